package dataset

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// floatEdges are inputs where a fast path goes wrong if it is careless:
// the limits of the exact mantissa (2⁵³ and 2⁵³+1) and of the exact powers
// of ten (10²² and 10²³), decimals halfway between two float64s, the
// smallest and largest float64s, underflow, overflow, leading zeros that
// do not count as digits, and what strconv accepts that the fast path
// leaves to it: signs, inf and nan, hex, underscores.
var floatEdges = []string{
	"0", "0.0", "00", ".0", "0.", "0e0", "0e-999", "0e5000", "000000000000000000000000000001.5", "0.000000000000000000000000123",
	"1", "1.0", "10", "0.1", "0.3", ".5", "5.", "1e22", "1e23", "1e-22", "1e-23", "1E5", "1e+5", "1e-0", "0.1e23", "10e22",
	"9007199254740992", "9007199254740993", "9007199254740994", "900719925474099.3", "9.007199254740993e-10",
	"123456789012345678901234567890", "12345678901234567890", "1.00000000000000011102230246251565404236316680908203125",
	"1.1039699074074100", "5.5143055555555556", "97.99999999999999", "4.9e-324", "5e-324", "2.2250738585072011e-308",
	"2.2250738585072014e-308", "1.7976931348623157e308", "1.7976931348623159e308", "1e-400", "1e400", "1e10000",
	"8.98846567431158e307", "0.000001", "86400", "1.5e-7",
	"", ".", "e5", "1e", "1e+", "1e-", "-", "+", "1.5.2", "1..5", "1e5.5", "1ee5", " 1", "1 ", "1,5",
	"-1", "+2", "-0", "+0.5", "-1e-400", "inf", "+Inf", "-infinity", "nan", "NaN", "007", "0x10", "0x1p-2", "0X1.8P1", "1_0", "1_000.5", "_1", "0b1",
}

// randomDecimal returns a decimal in one of the shapes the files hold or
// nearly do: digits, a point, more digits, an exponent, each part of any
// length up to past what the fast path takes, and now and then a sign or
// a stray character.
func randomDecimal(rng *rand.Rand) string {
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + rng.IntN(10))
		}
		return string(b)
	}
	var s strings.Builder
	if rng.IntN(20) == 0 {
		s.WriteByte("+-"[rng.IntN(2)])
	}
	s.WriteString(digits(rng.IntN(20)))
	if rng.IntN(3) > 0 {
		s.WriteString("." + digits(rng.IntN(24)))
	}
	if rng.IntN(4) == 0 {
		s.WriteString([]string{"e", "E", "e-", "e+", "E-"}[rng.IntN(5)] + digits(rng.IntN(4)))
	}
	if rng.IntN(50) == 0 {
		s.WriteByte(" .e_x"[rng.IntN(5)])
	}
	return s.String()
}

// randomFormatted returns a float64 of any magnitude, or a short decimal
// as the rates files hold, written by strconv in one of its formats.
func randomFormatted(rng *rand.Rand) string {
	v := math.Float64frombits(rng.Uint64() &^ (1 << 63))
	if rng.IntN(2) == 0 {
		v = math.Exp((rng.Float64() - 0.5) * 90)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 1
	}
	switch rng.IntN(5) {
	case 0:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case 1:
		return strconv.FormatFloat(v, 'g', 1+rng.IntN(17), 64)
	case 2:
		return strconv.FormatFloat(v, 'e', rng.IntN(20), 64)
	case 3:
		return strconv.FormatFloat(v, 'f', rng.IntN(20), 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// checkFloat fails t unless parseFloat(s) is strconv.ParseFloat(s, 64),
// bit for bit and error for error, and scanFloat, where it takes a
// prefix of s, gives strconv's value of that prefix. It reports whether
// scanFloat took the whole of s.
func checkFloat(t *testing.T, s string) (fast bool) {
	t.Helper()
	got, err := parseFloat([]byte(s))
	want, werr := strconv.ParseFloat(s, 64)
	if (err != nil) != (werr != nil) || math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
		t.Fatalf("parseFloat(%q) = %v, %v; strconv %v, %v", s, got, err, want, werr)
	}
	v, n, ok := scanFloat([]byte(s))
	if !ok {
		return false
	}
	pwant, perr := strconv.ParseFloat(s[:n], 64)
	if n == 0 || perr != nil || math.Float64bits(v) != math.Float64bits(pwant) {
		t.Fatalf("scanFloat(%q) = %v from %d bytes; strconv of %q: %v, %v", s, v, n, s[:n], pwant, perr)
	}
	return n == len(s)
}

// TestParseFloat checks parseFloat and scanFloat against strconv on the
// edge cases and on 400,000 seeded random inputs, and that the fast path
// is taken for the numbers the files hold and declined where it cannot be
// exact.
func TestParseFloat(t *testing.T) {
	for _, s := range floatEdges {
		checkFloat(t, s)
	}
	rng := rand.New(rand.NewPCG(53, 22))
	fast := 0
	for range 200_000 {
		if checkFloat(t, randomDecimal(rng)) {
			fast++
		}
		checkFloat(t, randomFormatted(rng))
	}
	t.Logf("fast path took %d of 200000 random decimals", fast)
	// The files' numbers: %.4g and %.3g in the rates files, 15 significant
	// digits and %.2f in the Bing dataset.
	for range 10_000 {
		v := math.Exp(1.5 * rng.NormFloat64())
		for _, s := range []string{strconv.FormatFloat(v, 'g', 4, 64), strconv.FormatFloat(v, 'g', 3, 64),
			strconv.FormatFloat(0.5+rng.Float64(), 'g', 15, 64), strconv.FormatFloat(v, 'f', 2, 64)} {
			if !checkFloat(t, s) {
				t.Fatalf("scanFloat(%q) left it to strconv", s)
			}
		}
	}
	for _, s := range []string{"", ".", "e5", "1e", "1e+", "+1", "-1", "inf", "12345678901234567890", "9007199254740993", "1e23", "1e-23", "0.1e-22"} {
		if v, n, ok := scanFloat([]byte(s)); ok && n == len(s) {
			t.Errorf("scanFloat(%q) = %v, took it", s, v)
		}
	}
	// It stops at the first byte that is not part of the number.
	for _, tt := range []struct {
		s string
		v float64
		n int
	}{{"1.25, 0]", 1.25, 4}, {"2e-3]", 0.002, 4}, {"7e]", 0, 0}, {"0x10", 0, 1}, {"3.5\t", 3.5, 3}} {
		if v, n, ok := scanFloat([]byte(tt.s)); v != tt.v || n != tt.n || ok != (tt.n > 0) {
			t.Errorf("scanFloat(%q) = %v, %d, %v; want %v, %d", tt.s, v, n, ok, tt.v, tt.n)
		}
	}
}

// FuzzParseFloat checks parseFloat and scanFloat against strconv on any
// input.
func FuzzParseFloat(f *testing.F) {
	for _, s := range floatEdges {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkFloat(t, s)
	})
}

// BenchmarkParseFloat parses the numbers of a rates file (%.4g of a
// log-normal rate) and of the Bing dataset (15 significant digits), by
// parseFloat and by strconv.ParseFloat of a string made from the bytes,
// as the readers would without it.
func BenchmarkParseFloat(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	inputs := map[string][][]byte{}
	for range 4096 {
		inputs["rates"] = append(inputs["rates"], strconv.AppendFloat(nil, math.Exp(1.5*rng.NormFloat64()), 'g', 4, 64))
		inputs["bing"] = append(inputs["bing"], strconv.AppendFloat(nil, 0.5+rng.Float64(), 'g', 15, 64))
	}
	for _, name := range []string{"rates", "bing"} {
		in := inputs[name]
		b.Run(name+"/dataset", func(b *testing.B) {
			var sum float64
			for i := 0; b.Loop(); i++ {
				v, _ := parseFloat(in[i&4095])
				sum += v
			}
		})
		b.Run(name+"/strconv", func(b *testing.B) {
			var sum float64
			for i := 0; b.Loop(); i++ {
				v, _ := strconv.ParseFloat(string(in[i&4095]), 64)
				sum += v
			}
		})
	}
}
