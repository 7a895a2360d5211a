package dataset

import "strconv"

// The rates file of 10⁷ pages and the Bing dataset's histories hold some
// 10⁸ numbers between them, and strconv.ParseFloat's general algorithm
// (Eisel–Lemire, behind a string conversion) was most of the readers'
// time. Their numbers are short decimals, which scanFloat parses exactly
// by Clinger's fast path, the one strconv itself tries first; whatever it
// cannot do exactly goes to strconv (TestParseFloat, FuzzParseFloat).

// pow10 holds the powers of ten that a float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// maxMantissa is the largest mantissa scanFloat takes: every integer up
// to 2⁵³ is exact in a float64.
const maxMantissa = 1 << 53

// parseFloat is strconv.ParseFloat(string(b), 64) without the string: by
// scanFloat when that takes the whole of b, else by strconv.
func parseFloat(b []byte) (float64, error) {
	if v, n, ok := scanFloat(b); ok && n == len(b) {
		return v, nil
	}
	return strconv.ParseFloat(string(b), 64)
}

// scanFloat parses an unsigned decimal such as 1.10396990740741, .5 or
// 2e-3 from the front of b without allocating, and returns it and the
// number of bytes it used; v is strconv.ParseFloat(string(b[:n]), 64). It
// reports false when b does not start with such a number, or when its
// significant digits form an integer m over 2⁵³ or its decimal exponent k
// has |k| > 22. Otherwise m and 10^|k| are exact float64s, and one
// multiplication or division rounds correctly (Clinger's fast path).
// A caller that needs the whole of b, or the number to end at a
// delimiter, checks n.
func scanFloat(b []byte) (v float64, n int, ok bool) {
	// digits[.digits] as an integer m and the exponent that scales it.
	i, m, ok := scanDigits(b, 0, 0)
	if !ok {
		return 0, 0, false
	}
	whole, exp := i, 0
	if i < len(b) && b[i] == '.' {
		if i, m, ok = scanDigits(b, i+1, m); !ok {
			return 0, 0, false
		}
		exp = whole + 1 - i
	}
	if whole == 0 && exp == 0 {
		return 0, 0, false // no digit: "", ".", "e5"
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		var e int
		if e, i, ok = scanExponent(b, i+1); !ok {
			return 0, 0, false
		}
		exp += e
	}
	switch {
	case m == 0:
		return 0, i, true
	case exp >= 0 && exp < len(pow10):
		return float64(m) * pow10[exp], i, true
	case exp < 0 && -exp < len(pow10):
		return float64(m) / pow10[-exp], i, true
	}
	return 0, 0, false
}

// scanDigits appends the decimal digits of b from i to m, and returns
// where they end. It reports false when m would pass maxMantissa, which
// also keeps m*10 from overflowing. Leading zeros leave m at 0.
func scanDigits(b []byte, i int, m uint64) (int, uint64, bool) {
	for ; i < len(b); i++ {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		if m = m*10 + uint64(d); m > maxMantissa {
			return 0, 0, false
		}
	}
	return i, m, true
}

// scanExponent parses an exponent's optional sign and digits from b[i:],
// and returns it and where it ends. It reports false without a digit. It
// stops reading digits at 1000, which no exponent the fast path can use
// reaches; the digits left over are the caller's to reject.
func scanExponent(b []byte, i int) (e, end int, ok bool) {
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	start := i
	for ; i < len(b) && e < 1000; i++ {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		e = e*10 + int(d)
	}
	if i == start {
		return 0, 0, false
	}
	if neg {
		e = -e
	}
	return e, i, true
}
