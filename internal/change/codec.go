package change

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// statsVersion is the first byte of an encoded Stats. A decoder rejects
// versions it does not know, so a newer binary's rows are never misread.
const statsVersion = 1

// ErrCorrupt is returned by UnmarshalBinary for bytes that are not an
// encoded Stats.
var ErrCorrupt = errors.New("corrupt change stats encoding")

// The scalar fields of the encoding, in order; a bit per field says whether
// it is present (nonzero).
const (
	fDecay = iota
	fLast
	fN
	fX
	fSumI
	fSumU
	fMinC
	fLMN
	fLMX
	fLMT
	fHint
	fCount
	fLMCount
	numFields
)

// binIntFlag marks, in a bin's index byte, a weight stored as a uvarint.
const binIntFlag = 0x80

// maxExactInt is 2^53: every integer up to it is a float64.
const maxExactInt = 1 << 53

// isInt reports whether v is a whole number that a uvarint stores exactly.
// Without decay the counts and the bins' weights are.
func isInt(v float64) bool { return v >= 0 && v <= maxExactInt && v == math.Trunc(v) }

// MarshalBinary encodes s for storage with its page row. The layout:
//
//	version byte
//	uvarint mask: which scalar fields are present (zero ones are left out)
//	uvarint intMask: which present floats are whole numbers
//	each present field: a whole-number float as a uvarint, any other float
//	  as 8 little-endian bytes; the two counts as uvarints
//	byte: the number of nonzero bins; for each, its index byte (high bit
//	  set when the weight is a whole number), the weight (uvarint or 8
//	  bytes) and the length sum (8 bytes)
//
// Values are stored exactly, so decoding gives back the same Stats, and each
// Stats has exactly one encoding. An empty Stats takes 4 bytes; a page with
// 300 visits at 8 h ± 50 % and no decay, whose changed intervals fill 7
// bins, 134 bytes with Last-Modified and 120 without (TestEncodedSize).
// With decay the weights are no longer whole and take 8 bytes each.
func (s *Stats) MarshalBinary() ([]byte, error) {
	return s.AppendBinary(make([]byte, 0, 160))
}

// AppendBinary appends the encoding of MarshalBinary to b.
func (s *Stats) AppendBinary(b []byte) ([]byte, error) {
	f := s.floats()
	var mask, intMask uint64
	for i, v := range f {
		if v != 0 {
			mask |= 1 << i
			if isInt(v) {
				intMask |= 1 << i
			}
		}
	}
	if s.count != 0 {
		mask |= 1 << fCount
	}
	if s.lmCount != 0 {
		mask |= 1 << fLMCount
	}
	b = append(b, statsVersion)
	b = binary.AppendUvarint(b, mask)
	b = binary.AppendUvarint(b, intMask)
	for i, v := range f {
		switch {
		case intMask&(1<<i) != 0:
			b = binary.AppendUvarint(b, uint64(v))
		case mask&(1<<i) != 0:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	if s.count != 0 {
		b = binary.AppendUvarint(b, uint64(s.count))
	}
	if s.lmCount != 0 {
		b = binary.AppendUvarint(b, uint64(s.lmCount))
	}
	nbAt := len(b)
	b = append(b, 0)
	if s.minC > 0 {
		nb := 0
		for i := int(s.lo); i <= int(s.hi); i++ {
			x := s.bins[i]
			if x.w == 0 && x.t == 0 {
				continue
			}
			nb++
			if isInt(x.w) {
				b = append(b, byte(i)|binIntFlag)
				b = binary.AppendUvarint(b, uint64(x.w))
			} else {
				b = append(b, byte(i))
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x.w))
			}
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x.t))
		}
		b[nbAt] = byte(nb)
	}
	return b, nil
}

// floats returns s's float fields in encoding order.
func (s *Stats) floats() [fHint + 1]float64 {
	return [...]float64{s.Decay, s.last, s.n, s.x, s.sumI, s.sumU, s.minC, s.lmN, s.lmX, s.lmT, s.hint}
}

// statsDecoder reads an encoded Stats; the first failure sticks.
type statsDecoder struct {
	b   []byte
	err string
}

func (d *statsDecoder) fail(what string) {
	if d.err == "" {
		d.err = what
	}
	d.b = nil
}

// uvarint reads a minimal uvarint.
func (d *statsDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 || (n > 1 && d.b[n-1] == 0) {
		d.fail("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// float reads a float stored as a uvarint when whole, else as 8 bytes, which
// the encoder uses only for values that are not whole numbers.
func (d *statsDecoder) float(whole bool) float64 {
	if whole {
		v := d.uvarint()
		if v > maxExactInt {
			d.fail("whole number too large")
		}
		return float64(v)
	}
	v := d.raw()
	if isInt(v) {
		d.fail("whole number stored as a float")
	}
	return v
}

// raw reads a float stored as 8 little-endian bytes.
func (d *statsDecoder) raw() float64 {
	if len(d.b) < 8 {
		d.fail("truncated")
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return v
}

func (d *statsDecoder) byte() byte {
	if len(d.b) < 1 {
		d.fail("truncated")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// UnmarshalBinary decodes what MarshalBinary encoded, replacing s. It
// returns an error wrapping ErrCorrupt, and leaves s alone, for an unknown
// version, truncated or trailing bytes, any encoding but the canonical one,
// and values no Stats can hold (negative or non-finite sums, bins out of
// order).
func (s *Stats) UnmarshalBinary(data []byte) error {
	var t Stats
	if err := t.decode(data); err != "" {
		return fmt.Errorf("%w: %s", ErrCorrupt, err)
	}
	*s = t
	return nil
}

// decode fills the empty s from data and returns what was wrong, if
// anything. It reads the parts in encoding order (the header, the scalar
// fields, the counts, the bins); the format's invariants it checks are
// named by validMasks, validField and partsFit.
func (s *Stats) decode(data []byte) string {
	d := statsDecoder{b: data}
	if d.byte() != statsVersion {
		return "unknown version"
	}
	mask, intMask := d.uvarint(), d.uvarint()
	if !validMasks(mask, intMask) {
		return "bad field mask"
	}
	var f [fHint + 1]float64
	for i := range f {
		if mask&(1<<i) == 0 {
			continue
		}
		if f[i] = d.float(intMask&(1<<i) != 0); !validField(i, f[i]) {
			d.fail("bad value")
		}
	}
	s.Decay, s.last, s.n, s.x, s.sumI, s.sumU, s.minC = f[fDecay], f[fLast], f[fN], f[fX], f[fSumI], f[fSumU], f[fMinC]
	s.lmN, s.lmX, s.lmT, s.hint = f[fLMN], f[fLMX], f[fLMT], f[fHint]
	if !s.partsFit() {
		d.fail("a part exceeds its whole")
	}
	for _, c := range [2]struct {
		bit int
		dst *uint32
	}{{fCount, &s.count}, {fLMCount, &s.lmCount}} {
		if mask&(1<<c.bit) != 0 {
			v := d.uvarint()
			if v == 0 || v > math.MaxUint32 {
				d.fail("bad count")
			}
			*c.dst = uint32(v)
		}
	}
	nb := int(d.byte())
	prev := -1
	for range nb {
		c := d.byte()
		i := int(c &^ binIntFlag)
		w := d.float(c&binIntFlag != 0)
		l := d.raw()
		// A bin's mean length lies inside the bin (to rounding), as Add,
		// Merge and Scale keep it.
		lo, hi := binBounds(i)
		if m := l / w; i <= prev || i >= NumBins || !(w >= minBinWeight) || math.IsInf(w, 1) ||
			!(m >= lo*(1-1e-9) && m <= hi*(1+1e-9)) {
			d.fail("bad bin")
		}
		if d.err != "" {
			break
		}
		if prev < 0 {
			s.lo = uint8(i)
		}
		s.hi = uint8(i)
		s.bins[i] = bin{w, l}
		prev = i
	}
	switch {
	case d.err != "":
		return d.err
	case len(d.b) != 0:
		return "trailing bytes"
	case nb > 0 && s.minC == 0:
		return "bins without a changed interval"
	}
	return ""
}

// validMasks reports whether the field masks name only known fields, and
// whole numbers only among the present floats.
func validMasks(mask, intMask uint64) bool {
	return mask < 1<<numFields && intMask&^mask == 0 && intMask < 1<<(fHint+1)
}

// validField reports whether v can be the present float field i: every
// float field is a finite non-negative number except the clock, which may
// be any finite time, and a present field is nonzero.
func validField(i int, v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && v != 0 && (i == fLast || v >= 0)
}

// partsFit reports whether s's parts are within their wholes (to
// rounding): X ≤ n, Σt_u ≤ ΣI and, in Fig. 6.11's accumulators, X ≤ N.
func (s *Stats) partsFit() bool {
	const slack = 1 + 1e-9
	return !(s.x > s.n*slack || s.sumU > s.sumI*slack || s.lmX > s.lmN*slack)
}
