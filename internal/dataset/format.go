package dataset

import (
	"math"
	"strconv"
)

// The table freshcrawl allocate writes for 10⁷ pages holds some 4·10⁷
// numbers of 3 and 4 significant digits and 10⁷ freshnesses to 4
// decimals, and strconv's general algorithm for a fixed precision (Ryū)
// made the command 8 % slower for the first (10⁷ pages without host
// limits, bench/allocate.sh) and about 3 % for the second. Such numbers
// take an exact shortcut instead: one correctly rounded multiplication by
// a power of ten that is itself exact (pow10, which scanFloat uses too),
// and anything else, including the near ties where the shortcut's
// rounding could differ from the exact value's, goes to strconv. The
// output is strconv's, byte for byte (TestAppendG, TestAppendF4).

// AppendG appends v as strconv.AppendFloat(b, v, 'g', prec, 64) does, for
// prec from 1 to 15, in about three quarters of the time for a positive v
// from 10⁻¹⁵ to 10¹⁵ (BenchmarkAppendG).
func AppendG(b []byte, v float64, prec int) []byte {
	if !(v > 0) || v < 1e-15 || v >= 1e15 {
		return strconv.AppendFloat(b, v, 'g', prec, 64)
	}
	// e = ⌊log₁₀ v⌋: from the binary exponent, v = f·2^e2 with f in
	// [1, 2), it is ⌊e2·log₁₀ 2⌋ or one more. (v is normal here.)
	e2 := int(math.Float64bits(v)>>52) - 1023
	e := (e2 * 78913) >> 18 // ⌊e2·log₁₀ 2⌋ for |e2| < 1650, as in Ryu
	lo, hi := pow10[prec-1], pow10[prec]
	var m float64
	for range 2 {
		// m = v·10^scale has prec digits before the point.
		switch scale := prec - 1 - e; {
		case scale >= 0 && scale <= 22:
			m = v * pow10[scale]
		case scale < 0 && scale >= -22:
			m = v / pow10[-scale]
		default:
			return strconv.AppendFloat(b, v, 'g', prec, 64)
		}
		if m < hi {
			break
		}
		e++
	}
	if m < lo || m >= hi {
		return strconv.AppendFloat(b, v, 'g', prec, 64)
	}
	// m is within one rounding (2⁻⁵² relative) of the exact v·10^scale, so
	// rounding it gives the exact value's rounding unless that is a near tie.
	r := math.Floor(m)
	switch frac := m - r; {
	case math.Abs(frac-0.5) < 1e-9:
		return strconv.AppendFloat(b, v, 'g', prec, 64)
	case frac > 0.5:
		r++
	}
	if r >= hi { // 9.995 → 10.0
		r /= 10
		e++
	}
	var d [16]byte
	u := uint64(r)
	for k := prec - 1; k >= 0; k-- {
		d[k] = byte('0' + u%10)
		u /= 10
	}
	nd := prec
	for nd > 1 && d[nd-1] == '0' {
		nd--
	}
	return formatG(b, d[:nd], e+1, prec)
}

// formatG is strconv's %g layout of the digits d (no trailing zeros) with
// the decimal point dp places from their start, at precision prec.
func formatG(b, d []byte, dp, prec int) []byte {
	nd := len(d)
	eprec := prec
	if eprec > nd && nd >= dp {
		eprec = nd
	}
	if exp := dp - 1; exp < -4 || exp >= eprec {
		prec = min(prec, nd)
		b = append(b, d[0])
		if prec > 1 {
			b = append(b, '.')
			b = append(b, d[1:prec]...)
		}
		b = append(b, 'e')
		if exp < 0 {
			b = append(b, '-')
			exp = -exp
		} else {
			b = append(b, '+')
		}
		if exp < 10 {
			b = append(b, '0')
		}
		return strconv.AppendInt(b, int64(exp), 10)
	}
	// strconv's %f of the digits with prec > dp → all of them after the
	// point, else none: written out for the three places of the point.
	switch {
	case dp <= 0:
		b = append(b, '0', '.')
		for range -dp {
			b = append(b, '0')
		}
		return append(b, d...)
	case dp >= nd:
		b = append(b, d...)
		for range dp - nd {
			b = append(b, '0')
		}
		return b
	}
	b = append(b, d[:dp]...)
	b = append(b, '.')
	return append(b, d[dp:]...)
}

// AppendF4 appends v as strconv.AppendFloat(b, v, 'f', 4, 64) does, in a
// quarter of the time for v from 0 to 100 (BenchmarkAppendF4).
func AppendF4(b []byte, v float64) []byte {
	// Below 10⁶, m is within 1.2·10⁻¹⁰ of the exact v·10⁴, so it rounds to
	// the same integer unless it is within 10⁻⁹ of a tie.
	m := v * 1e4
	if math.Signbit(v) || !(m < 1e6) || math.Abs(m-math.Floor(m)-0.5) < 1e-9 {
		return strconv.AppendFloat(b, v, 'f', 4, 64)
	}
	r := uint64(math.Floor(m + 0.5))
	b = strconv.AppendUint(b, r/10000, 10)
	f := r % 10000
	return append(b, '.', byte('0'+f/1000), byte('0'+f/100%10), byte('0'+f/10%10), byte('0'+f%10))
}
