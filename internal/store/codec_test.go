package store

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"
)

// maxTime is the largest time the codec must carry; it is far beyond the
// UnixNano range (year 2262), which the encoding deliberately avoids.
var maxTime = time.Unix(maxUnix, 999999999).UTC()

func TestPageRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		p    Page
	}{
		{"zero", Page{}},
		{"typical", Page{
			URL:       "https://example.com/a?b=c",
			FirstSeen: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC),
			LastFetch: time.Date(2026, 2, 3, 4, 5, 6, 7, time.UTC),
			Status:    200, Checksum: 0xdeadbeef, ETag: `"abc"`,
			LastModified: "Mon, 02 Jan 2026 03:04:05 GMT",
			Fetches:      12, Changes: 3, WARCFile: "fc-00001.warc.gz", WARCOffset: 123456,
			Kind: 1, Held: true, NextDue: time.Date(2026, 2, 10, 0, 0, 0, 1, time.UTC),
			PayloadDigest: "sha1:2FHGUMQLVXDJMGYNLMH4KCNZTMOXFVF3", RecordID: "<urn:uuid:6ba7b810-9dad-11d1-80b4-00c04fd430c8>",
			CaptureTime: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC),
		}},
		{"redirect", Page{
			URL: "http://example.com/", Status: 301, Location: "https://example.com/",
			Kind: 2, NextDue: time.Unix(-1, 999999999).UTC(), // before 1970, with nanoseconds
		}},
		{"kind alone", Page{Kind: 7}},
		{"held alone", Page{Held: true}},
		{"evicted", Page{URL: "http://e.test/", Evicted: true, Status: 200}},
		{"signalled", Page{URL: "http://s.test/", Held: true, Signalled: true}},
		{"evicted, signalled", Page{URL: "http://t.test/", Evicted: true, Signalled: true}},
		{"next due alone", Page{NextDue: time.Unix(0, 0).UTC()}},
		{"payload digest alone", Page{PayloadDigest: "d"}},
		{"record id alone", Page{RecordID: "r"}},
		{"capture time alone", Page{CaptureTime: time.Unix(1, 1).UTC()}},
		{"location alone", Page{Location: "l"}},
		{"change alone", Page{Change: []byte{1, 0, 0xff}}},
		{"rate alone", Page{Rate: 1.5e-5}},
		{"rate infinite", Page{Rate: math.Inf(1)}},
		{"checked alone", Page{Checked: time.Unix(7, 8).UTC()}},
		{"interval alone", Page{Interval: 86400.5}},
		{"modified alone", Page{Modified: time.Unix(9, 10).UTC()}},
		{"max", Page{
			URL:       string(bytes.Repeat([]byte("x"), 1<<16)),
			FirstSeen: maxTime, LastFetch: maxTime,
			Status: math.MaxInt, Checksum: math.MaxUint64,
			ETag: "\x00\xff", LastModified: "\xff",
			Fetches: math.MaxUint32, Changes: math.MaxUint32,
			WARCFile: "w", WARCOffset: math.MaxInt64,
			Kind: math.MaxUint8, Held: true, NextDue: maxTime, CaptureTime: maxTime,
			PayloadDigest: "\xff", RecordID: string(bytes.Repeat([]byte("r"), 300)), Location: "\x00",
			Change: bytes.Repeat([]byte{0xff}, 5000), Rate: math.MaxFloat64, Checked: maxTime,
			Interval: math.Inf(1), Modified: maxTime, Weight: 123.5, Found: 7.25, Exposure: 3600,
		}},
		{"min", Page{
			FirstSeen:   time.Unix(-1<<62, 0).UTC(),
			LastFetch:   time.Unix(0, 0).UTC(), // the epoch must not be confused with the zero time
			Status:      math.MinInt,
			WARCOffset:  math.MinInt64,
			NextDue:     time.Unix(-1<<62, 0).UTC(),
			CaptureTime: time.Unix(0, 0).UTC(),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodePage(encodePage(&tt.p))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.p) {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, tt.p)
			}
		})
	}
}

func TestVisitRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		v    Visit
	}{
		{"zero", Visit{}},
		{"typical", Visit{Time: time.Date(2026, 5, 6, 7, 8, 9, 10, time.UTC), Status: 304, LastModified: "lm", ETag: "e"}},
		{"changed", Visit{Time: time.Unix(1, 0).UTC(), Status: 200, Changed: true}},
		{"max", Visit{Time: maxTime, Status: math.MaxInt, Changed: true,
			LastModified: string(bytes.Repeat([]byte{0xff}, 1000)), ETag: "\x00"}},
		{"min", Visit{Time: time.Unix(-1<<62, 1).UTC(), Status: math.MinInt}},
		{"modified", Visit{Time: time.Unix(100, 0).UTC(), Status: 200, Modified: time.Unix(40, 5).UTC()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeVisit(encodeVisit(&tt.v))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.v {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, tt.v)
			}
		})
	}
}

func TestMetaRoundTrip(t *testing.T) {
	tests := []queueMeta{{}, {0, 1}, {5, 5}, {7, math.MaxUint64}, {math.MaxUint64, math.MaxUint64}}
	for _, m := range tests {
		got, err := decodeMeta(encodeMeta(m))
		if err != nil || got != m {
			t.Errorf("decodeMeta(encodeMeta(%v)) = %v, %v", m, got, err)
		}
	}
	if _, err := decodeMeta(encodeMeta(queueMeta{head: 2, tail: 1})); !errors.Is(err, ErrCorrupt) {
		t.Errorf("head > tail: err = %v, want ErrCorrupt", err)
	}
}

// TestDecodeCorrupt checks that every truncation, a trailing byte and an
// unknown version are all reported as ErrCorrupt rather than misread.
func TestDecodeCorrupt(t *testing.T) {
	page := encodePage(&Page{URL: "u", FirstSeen: time.Unix(5, 5), Status: 200, ETag: "e", WARCOffset: 9,
		Kind: 1, Held: true, NextDue: time.Unix(6, 6), PayloadDigest: "d", RecordID: "r", CaptureTime: time.Unix(7, 7), Location: "l"})
	visit := encodeVisit(&Visit{Time: time.Unix(5, 5), Status: 200, Changed: true, ETag: "e"})
	decoders := []struct {
		name   string
		enc    []byte
		decode func([]byte) error
	}{
		{"page", page, func(b []byte) error { _, err := decodePage(b); return err }},
		{"visit", visit, func(b []byte) error { _, err := decodeVisit(b); return err }},
	}
	for _, d := range decoders {
		t.Run(d.name, func(t *testing.T) {
			for n := 0; n < len(d.enc); n++ {
				if err := d.decode(d.enc[:n]); !errors.Is(err, ErrCorrupt) {
					t.Errorf("truncated to %d bytes: err = %v, want ErrCorrupt", n, err)
				}
			}
			if err := d.decode(append(append([]byte(nil), d.enc...), 0)); !errors.Is(err, ErrCorrupt) {
				t.Errorf("trailing byte: err = %v, want ErrCorrupt", err)
			}
			bad := append([]byte(nil), d.enc...)
			bad[0] = 99
			if err := d.decode(bad); !errors.Is(err, ErrCorrupt) {
				t.Errorf("version 99: err = %v, want ErrCorrupt", err)
			}
		})
	}
}

// TestPageHeldByte checks that the Held flag accepts only 0 and 1, so that
// each page has exactly one encoding.
func TestPageHeldByte(t *testing.T) {
	// With every field after Kind empty, Held is the byte after Kind, which
	// is followed by six one-byte fields (two zero times, four empty
	// strings), the 8-byte Rate, one more zero time, the 8-byte Interval,
	// a zero time, the 8-byte Weight, Found and Exposure.
	enc := encodePage(&Page{Kind: 0xab})
	i := len(enc) - 49
	if enc[i-1] != 0xab || enc[i] != 0 {
		t.Fatalf("layout changed: %x", enc)
	}
	for _, tt := range []struct {
		b             byte
		held, evicted bool
		ok            bool
	}{{0, false, false, true}, {1, true, false, true}, {2, false, true, true}, {3, false, false, false}, {0xff, false, false, false}} {
		enc[i] = tt.b
		p, err := decodePage(enc)
		if ok := err == nil; ok != tt.ok || p.Held != tt.held || p.Evicted != tt.evicted || (!ok && !errors.Is(err, ErrCorrupt)) {
			t.Errorf("Held byte %d: Held = %v, Evicted = %v, err = %v; want %v, %v, ok %v", tt.b, p.Held, p.Evicted, err, tt.held, tt.evicted, tt.ok)
		}
	}
}

func TestItemRoundTrip(t *testing.T) {
	tests := []Item{
		{}, {URL: "https://example.com/"}, {URL: "u", Kind: 1, Hops: 2},
		{URL: "\x00\xff", Kind: math.MaxUint8, Hops: math.MaxUint8},
		{URL: string(bytes.Repeat([]byte("x"), 1<<16)), Kind: 3},
	}
	for _, it := range tests {
		enc := encodeItem(it)
		if len(enc) != 2+len(it.URL) {
			t.Errorf("encodeItem(%.20q) has %d bytes, want %d", it.URL, len(enc), 2+len(it.URL))
		}
		got, err := decodeItem(enc)
		if err != nil || got != it {
			t.Errorf("decodeItem(encodeItem(%.20v)) = %.20v, %v", it, got, err)
		}
	}
	for _, b := range [][]byte{nil, {1}} {
		if _, err := decodeItem(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("decodeItem(%x): err = %v, want ErrCorrupt", b, err)
		}
	}
}

func TestTimeKeyOrder(t *testing.T) {
	// Sorted by time; the keys must sort the same way bytewise. The zero
	// time (year 1) lies between -2^62 s and -1 s.
	times := []time.Time{
		time.Unix(-1<<62, 0), {}, time.Unix(-1, 0), time.Unix(-1, 999999999),
		time.Unix(0, 0), time.Unix(0, 1), time.Unix(1, 0), time.Unix(1<<40, 5), maxTime,
	}
	for i := 1; i < len(times); i++ {
		if !times[i-1].Before(times[i]) {
			t.Fatalf("test table not sorted at %d", i)
		}
		a, b := appendTimeKey(nil, times[i-1]), appendTimeKey(nil, times[i])
		if bytes.Compare(a, b) >= 0 {
			t.Errorf("key(%v) >= key(%v)", times[i-1], times[i])
		}
	}
}

// FuzzDecode checks that decoding arbitrary bytes never panics and that
// whatever decodes re-encodes to the same bytes: the decoder accepts only
// canonical encodings.
func FuzzDecode(f *testing.F) {
	f.Add(encodePage(&Page{URL: "u", Status: 200}))
	f.Add(encodeVisit(&Visit{Time: time.Unix(3, 4), Changed: true}))
	f.Add(encodePage(&Page{FirstSeen: maxTime}))
	f.Add(encodePage(&Page{URL: "u", Kind: 2, Held: true, NextDue: time.Unix(1, 2), PayloadDigest: "d",
		RecordID: "r", CaptureTime: time.Unix(-1, 3), Location: "l"}))
	f.Add(encodeItem(Item{URL: "u", Kind: 1, Hops: 2}))
	f.Add(encodeVisit(&Visit{Time: time.Unix(-62135596800, 0)})) // the zero time reached through time.Unix
	f.Fuzz(func(t *testing.T, b []byte) {
		if p, err := decodePage(b); err == nil {
			if re := encodePage(&p); !bytes.Equal(re, b) {
				t.Errorf("page re-encodes differently: %x vs %x", re, b)
			}
		}
		if it, err := decodeItem(b); err == nil {
			if re := encodeItem(it); !bytes.Equal(re, b) {
				t.Errorf("item re-encodes differently: %x vs %x", re, b)
			}
		}
		if v, err := decodeVisit(b); err == nil {
			if re := encodeVisit(&v); !bytes.Equal(re, b) {
				t.Errorf("visit re-encodes differently: %x vs %x", re, b)
			}
		}
	})
}

// TestDecodeOlderVersions checks that rows written before the change-rate
// fields existed (page version 2, visit version 1) still decode.
func TestDecodeOlderVersions(t *testing.T) {
	p := Page{URL: "u", Status: 200, Held: true, Change: []byte{1}, Rate: 2}
	b := encodePage(&p)
	// A version-2 row is the same bytes without Change, Rate, Checked,
	// Interval, Modified, Weight, Found and Exposure; version 3 without
	// the last five; version 4 without the last three, version 5 without
	// the last two.
	old := append([]byte{2}, b[1:len(b)-len(appendString(nil, string(p.Change)))-8-1-8-1-8-16]...)
	v3 := append([]byte{3}, b[1:len(b)-8-1-8-16]...)
	v5 := append([]byte{5}, b[1:len(b)-16]...)
	if got, err := decodePage(v5); err != nil || !reflect.DeepEqual(got, p) {
		t.Errorf("version 5 page = %+v, %v; want %+v", got, err, p)
	}
	if got, err := decodePage(v3); err != nil || !reflect.DeepEqual(got, p) {
		t.Errorf("version 3 page = %+v, %v; want %+v", got, err, p)
	}
	v4 := append([]byte{4}, b[1:len(b)-8-16]...)
	if got, err := decodePage(v4); err != nil || !reflect.DeepEqual(got, p) {
		t.Errorf("version 4 page = %+v, %v; want %+v", got, err, p)
	}
	got, err := decodePage(old)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Page{URL: "u", Status: 200, Held: true}); !reflect.DeepEqual(got, want) {
		t.Errorf("version 2 page = %+v, want %+v", got, want)
	}
	v := Visit{Time: time.Unix(5, 0).UTC(), Status: 304, Modified: time.Unix(1, 0).UTC()}
	vb := encodeVisit(&v)
	oldV := append([]byte{1}, vb[1:len(vb)-len(appendTime(nil, v.Modified))]...)
	gotV, err := decodeVisit(oldV)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Visit{Time: v.Time, Status: 304}); gotV != want {
		t.Errorf("version 1 visit = %+v, want %+v", gotV, want)
	}
	if _, err := decodePage(append([]byte{1}, b[1:]...)); err == nil {
		t.Error("a version-1 page row decoded")
	}
}
