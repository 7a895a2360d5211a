package warc

import (
	"bytes"
	"strconv"
	"sync"
	"testing"
)

// TestEncodeAhead encodes records on many goroutines, some before the first
// file exists and across rotations, writes them in a different order than
// they were encoded, and checks that every record reads back verified, in
// write order, pointing at its own file's warcinfo record.
func TestEncodeAhead(t *testing.T) {
	const n = 60
	w, dir := newTestWriter(t, WriterConfig{MaxFileSize: 8 << 10, Compression: 1})
	body := func(i int) []byte {
		b := make([]byte, 1500)
		for j := range b {
			b[j] = byte((i + 1) * j * 7919 >> 3)
		}
		return b
	}
	encode := func(i int) *Encoded {
		var e *Encoded
		var err error
		uri := "http://example.com/" + strconv.Itoa(i)
		switch i % 3 {
		case 0:
			e, err = w.EncodeResponse(Response{TargetURI: uri, HTTPHeader: httpResponse("Content-Length: 1500"), Body: body(i)})
		case 1:
			e, err = w.EncodeRequest(Request{TargetURI: uri, HTTPHeader: []byte("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n")})
		default:
			e, err = w.EncodeRevisit(Revisit{TargetURI: uri, HTTPHeader: httpResponse("Content-Length: 0"), PayloadDigest: "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"})
		}
		if err != nil {
			t.Error(err) // not Fatal: encode runs on other goroutines too
		}
		return e
	}
	// The first batch is encoded before any file exists.
	first := make([]*Encoded, 5)
	for i := range first {
		if first[i] = encode(i); first[i] == nil {
			t.FailNow()
		}
	}
	var order []string
	for _, e := range first {
		if _, err := w.WriteEncoded(e); err != nil {
			t.Fatal(err)
		}
		order = append(order, e.RecordID())
	}
	// The rest are encoded concurrently, then written in reverse.
	rest := make([]*Encoded, n)
	var wg sync.WaitGroup
	for i := range rest {
		wg.Go(func() { rest[i] = encode(len(first) + i) })
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for i := len(rest) - 1; i >= 0; i-- {
		loc, err := w.WriteEncoded(rest[i])
		if err != nil {
			t.Fatal(err)
		}
		if loc.RecordID != rest[i].RecordID() {
			t.Errorf("location names %s, record is %s", loc.RecordID, rest[i].RecordID())
		}
		order = append(order, rest[i].RecordID())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := warcFiles(t, dir)
	if len(files) < 3 {
		t.Fatalf("%d files: want rotations between encode and write", len(files))
	}
	var read []string
	for _, f := range files {
		recs := readRecords(t, readFile(t, f)) // readRecords verifies digests
		infoID := recs[0].Header.Get("WARC-Record-ID")
		for _, r := range recs[1:] {
			if got := r.Header.Get("WARC-Warcinfo-ID"); got != infoID {
				t.Errorf("%s: record %s points at warcinfo %s, not %s", f, r.Header.Get("WARC-Record-ID"), got, infoID)
			}
			read = append(read, r.Header.Get("WARC-Record-ID"))
		}
	}
	if len(read) != len(order) {
		t.Fatalf("read %d records, wrote %d", len(read), len(order))
	}
	for i := range read {
		if read[i] != order[i] {
			t.Fatalf("record %d is %s, want %s", i, read[i], order[i])
		}
	}
}

// TestEncodeReuse writes an Encoded, whose member buffer then goes back to
// the pool, encodes another record of the same size into that buffer, and
// writes the first Encoded again: both copies must be the first record,
// whole, which fails if the released buffer were still the first record's
// member (a CRC error when this test was written).
func TestEncodeReuse(t *testing.T) {
	w, dir := newTestWriter(t, WriterConfig{Compression: 1})
	page := func(s string) []byte { return bytes.Repeat([]byte("<p>"+s+"</p>\n"), 400) }
	encode := func(uri string, body []byte) *Encoded {
		t.Helper()
		e, err := w.EncodeResponse(Response{TargetURI: uri, HTTPHeader: httpResponse("Content-Type: text/html"), Body: body})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	write := func(e *Encoded) {
		t.Helper()
		if _, err := w.WriteEncoded(e); err != nil {
			t.Fatal(err)
		}
	}
	write(encode("http://example.com/open", nil)) // the file, so Encode compresses
	a := encode("http://example.com/a", page("alpha"))
	write(a)
	b := encode("http://example.com/b", page("omega"))
	write(a)
	write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs := readRecords(t, readFile(t, warcFiles(t, dir)[0])) // verifies digests
	want := []struct {
		id   string
		body []byte
	}{{a.RecordID(), page("alpha")}, {a.RecordID(), page("alpha")}, {b.RecordID(), page("omega")}}
	if len(recs) != 2+len(want) {
		t.Fatalf("%d records, want %d", len(recs), 2+len(want))
	}
	for i, r := range recs[2:] {
		if id := r.Header.Get("WARC-Record-ID"); id != want[i].id || !bytes.HasSuffix(r.Block, want[i].body) {
			t.Errorf("record %d is %s, want %s with its body", i, id, want[i].id)
		}
	}
}

// TestGivenPayloadDigest checks that a response given its payload digest
// is the record the writer makes when it computes the digest itself.
func TestGivenPayloadDigest(t *testing.T) {
	header := httpResponse("Transfer-Encoding: chunked")
	body := chunk("chunk 0\n", "chunk 1\n", "chunk 2\n")
	w, dir := newTestWriter(t, WriterConfig{})
	id := NewRecordID()
	for _, digest := range []string{"", PayloadDigest(header, body)} {
		r := Response{ID: id, Date: epoch, TargetURI: "http://example.com/", HTTPHeader: header, Body: body, PayloadDigest: digest}
		if _, err := w.WriteResponse(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	recs := readRecords(t, readFile(t, warcFiles(t, dir)[0])) // verifies digests
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	computed, given := recs[1].Header, recs[2].Header
	// Computed with Python's hashlib, as in TestPayloadDigest.
	if d := computed.Get("WARC-Payload-Digest"); d != "sha1:UKX4VO7UCBL2TZHVGGWRN6UAG7TOHDZF" {
		t.Errorf("computed payload digest %s", d)
	}
	for _, f := range computed {
		if g := given.Get(f.Name); g != f.Value {
			t.Errorf("%s: %q given the digest, %q computed", f.Name, g, f.Value)
		}
	}
}

func TestWorthCompressing(t *testing.T) {
	big := make([]byte, 4096)
	resp := func() Header { return Header{{"WARC-Type", TypeResponse}} }
	tests := []struct {
		name  string
		h     Header
		block [][]byte
		want  bool
	}{
		{"small request", Header{{"WARC-Type", TypeRequest}}, [][]byte{[]byte("GET / HTTP/1.1\r\n\r\n")}, false},
		{"large request", Header{{"WARC-Type", TypeRequest}}, [][]byte{big}, true},
		{"plain response", resp(), [][]byte{httpResponse("Content-Type: text/html"), big}, true},
		{"gzip response", resp(), [][]byte{httpResponse("Content-Encoding: gzip"), big}, false},
		{"gzip response, odd case", resp(), [][]byte{httpResponse("content-ENCODING:  br "), big}, false},
		{"identity response", resp(), [][]byte{httpResponse("Content-Encoding: identity"), big}, true},
		{"empty coding", resp(), [][]byte{httpResponse("Content-Encoding:"), big}, true},
		{"coding named in the body only", resp(), [][]byte{httpResponse("X: y"), append([]byte("Content-Encoding: gzip\r\n"), big...)}, true},
		{"gzip revisit header", Header{{"WARC-Type", TypeRevisit}}, [][]byte{append(httpResponse("Content-Encoding: gzip"), big...)}, false},
		{"metadata", Header{{"WARC-Type", TypeMetadata}}, [][]byte{big}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := worthCompressing(tt.h, tt.block); got != tt.want {
				t.Errorf("worthCompressing = %v, want %v", got, tt.want)
			}
		})
	}
}
