package change

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// codecCases returns Stats to round-trip: empty, small, long, decayed,
// cached root, fractional weights and extreme bins.
func codecCases() map[string]Stats {
	cases := map[string]Stats{"empty": {}, "decay only": {Decay: 7 * day}}
	obs, at := randomHistory(9, 300, 1/day)
	var long, decayed Stats
	decayed.Decay = 30 * day
	for i, o := range obs {
		long.Add(o, at[i])
		decayed.Add(o, at[i])
	}
	PriorMLE{}.Estimate(&long) // caches a root
	cases["long"] = long
	cases["decayed"] = decayed
	cases["example 6.5"] = *fromLists([]float64{6 * hour, 3 * hour}, []float64{4 * hour, 7 * hour})
	var extreme Stats
	extreme.Add(Observation{Interval: 1e-3, Changed: true, SinceModified: 0}, -5)
	extreme.Add(Observation{Interval: 1e12, Changed: true, SinceModified: 1}, 1e12)
	cases["extreme bins"] = extreme
	scaled := long
	scaled.Scale(0.3)
	cases["scaled"] = scaled
	return cases
}

// TestMarshalRoundTrip checks that decoding gives back exactly the Stats
// that was encoded, and that the encoding is deterministic.
func TestMarshalRoundTrip(t *testing.T) {
	for name, s := range codecCases() {
		t.Run(name, func(t *testing.T) {
			b, err := s.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var got Stats
			if err := got.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			if got != s {
				t.Errorf("round trip changed the Stats:\n got %+v\nwant %+v", got.floats(), s.floats())
			}
			again, _ := got.MarshalBinary()
			if !bytes.Equal(again, b) {
				t.Error("re-encoding differs")
			}
		})
	}
}

// TestEncodedSize pins the encoded sizes quoted on MarshalBinary. A page of
// 300 visits at 8 h ± 50 % with no decay has whole-number n, X and bin
// weights, stored as uvarints, and its changed intervals fill 7 bins.
func TestEncodedSize(t *testing.T) {
	page := func(n int, lm bool) *Stats {
		obs := updateObservations(n)
		var s Stats
		at := 0.0
		for _, o := range obs {
			if !lm {
				o.SinceModified = -1
			}
			at += o.Interval
			s.Add(o, at)
		}
		PriorMLE{}.Estimate(&s)
		return &s
	}
	// About 85 of the 300 visits see a change, so every bin weight is a
	// 1-byte uvarint: a bin takes its index, 1 and 8 bytes.
	const bins = 7 * (1 + 1 + 8)
	tests := []struct {
		name string
		s    *Stats
		want int
	}{
		// Version, mask, intMask, bin count.
		{"empty", &Stats{}, 4},
		// Version, 2-byte mask, 1-byte intMask (n, X), bin count; n = 300 in
		// 2 bytes and X in 1; last, ΣI, Σt_u, minC and the hint as floats;
		// the count in 2 bytes.
		{"300 visits, no Last-Modified", page(300, false), 1 + 2 + 1 + 1 + 2 + 1 + 5*8 + 2 + bins},
		// The intMask grows to 2 bytes (N, X of Fig. 6.11 are bits 7, 8);
		// N = 300 in 2 bytes, X in 1, T as a float, the LM count in 2.
		{"300 visits with Last-Modified", page(300, true), 1 + 2 + 2 + 1 + 2 + 1 + 5*8 + 2 + 1 + 8 + 2 + 2 + bins},
	}
	for _, tt := range tests {
		b, _ := tt.s.MarshalBinary()
		t.Logf("%s: %d bytes", tt.name, len(b))
		if len(b) != tt.want {
			t.Errorf("%s: %d bytes, want %d", tt.name, len(b), tt.want)
		}
	}
}

// enc builds an encoding by hand: bytes, and floats as 8 little-endian bytes.
func enc(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch v := p.(type) {
		case int:
			b = append(b, byte(v))
		case float64:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	return b
}

// TestUnmarshalCorrupt checks that malformed or non-canonical encodings are
// refused with ErrCorrupt and leave the Stats untouched.
func TestUnmarshalCorrupt(t *testing.T) {
	good, _ := regular(5, 2, day).MarshalBinary()
	const v = statsVersion
	tests := []struct {
		name string
		b    []byte
	}{
		{"nil", nil},
		{"version", append([]byte{9}, good[1:]...)},
		{"truncated", good[:len(good)-1]},
		{"trailing", append(append([]byte{}, good...), 0)},
		{"unknown field", enc(v, 0x80, 0x40, 0, 0)},
		{"non-minimal mask", enc(v, 0x80, 0x00, 0, 0)},
		{"intMask not within mask", enc(v, 0, 1<<fN, 0)},
		{"NaN", enc(v, 1<<fN, 0, math.NaN(), 0)},
		{"negative", enc(v, 1<<fSumI, 0, -1.5, 0)},
		{"whole number as a float", enc(v, 1<<fN, 0, 2.0, 0)},
		{"zero count", enc(v, 0x80, 0x10, 0, 0, 0)},
		{"bin without minC", enc(v, 0, 0, 1, 5|binIntFlag, 1, 1.5)},
		{"bins out of order", enc(v, 1<<fMinC, 1<<fMinC, 3, 2, 5|binIntFlag, 1, 1.5, 5|binIntFlag, 1, 1.5)},
		{"empty bin", enc(v, 1<<fMinC, 1<<fMinC, 3, 1, 5|binIntFlag, 0, 0.0)},
		{"infinite bin length", enc(v, 1<<fMinC, 1<<fMinC, 3, 1, 5|binIntFlag, 1, math.Inf(1))},
		// Bin 5 holds lengths in [2^(5/4), 2^(6/4)) = [2.38, 2.83).
		{"bin mean outside its bin", enc(v, 1<<fMinC, 1<<fMinC, 3, 1, 5|binIntFlag, 2, 7.0)},
		{"X > n", enc(v, 1<<fN|1<<fX, 1<<fN|1<<fX, 2, 3, 0)},
		{"bin weight underflowed", enc(v, 1<<fMinC, 1<<fMinC, 3, 1, 5, 1e-300, 2.5e-300)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := *regular(3, 1, day)
			before := s
			if err := s.UnmarshalBinary(tt.b); !errors.Is(err, ErrCorrupt) {
				t.Errorf("error %v, want ErrCorrupt", err)
			}
			if s != before {
				t.Error("a failed decode changed the Stats")
			}
		})
	}
	// The hand-built encoder agrees with the real one on a valid Stats.
	var s Stats
	s.Add(Observation{Interval: 1.5, Changed: true, SinceModified: -1}, 2.5)
	// mask: last, n, X, ΣI, minC and the count (bit 11): 0x85e as a uvarint.
	want := enc(v, 0xde, 0x10, 1<<fN|1<<fX, 2.5, 1, 1, 1.5, 1.5, 1, 1, 2|binIntFlag, 1, 1.5)
	if got, _ := s.MarshalBinary(); !bytes.Equal(got, want) {
		t.Errorf("encoding\n got %x\nwant %x", got, want)
	}
}

// FuzzUnmarshalStats decodes arbitrary bytes: nothing panics, and whatever
// decodes re-encodes to the same bytes and estimates without NaN rates.
func FuzzUnmarshalStats(f *testing.F) {
	for _, s := range codecCases() {
		b, _ := s.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Stats
		if err := s.UnmarshalBinary(b); err != nil {
			return
		}
		again, _ := s.MarshalBinary()
		if !bytes.Equal(again, b) {
			t.Fatalf("re-encoding differs:\n%x\n%x", b, again)
		}
		for _, est := range All() {
			if e := est.Estimate(&s); e.OK && (math.IsNaN(e.Rate) || e.Rate < 0) {
				t.Fatalf("%s: rate %v", est.Name(), e.Rate)
			}
		}
		// What Stats' own operations make of a valid Stats still decodes,
		// unless a sum is near enough to overflow that doubling it does.
		for _, v := range s.floats() {
			if math.Abs(v) > 1e300 {
				return
			}
		}
		for _, b := range s.bins {
			if b.t > 1e300 {
				return
			}
		}
		c := s
		c.Add(Observation{Interval: 3600, Changed: true, SinceModified: 10}, s.last+3600)
		c.Merge(&s)
		c.Scale(0.5)
		enc, _ := c.MarshalBinary()
		var back Stats
		if err := back.UnmarshalBinary(enc); err != nil {
			t.Fatalf("after Add, Merge and Scale: %v", err)
		}
	})
}
