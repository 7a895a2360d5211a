package dataset

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAppendG checks AppendG and AppendF4 against strconv, byte for
// byte, on 200 000 random numbers over every magnitude and on the hard
// cases: exact ties (which strconv rounds to even), values that round up
// to the next power of ten, powers of ten themselves, and what the
// shortcuts leave to strconv.
func TestAppendG(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 17))
	vals := []float64{0, 1, 10, 100, 1e-15, 1e15, 0.125, 2.5, 1234.5, 123.45, 9999.5, 99.95, 9.995, 0.99995, 1e-5, 9.9995e-5,
		0.00012345, 12345678, 0.5, 0.05, 0.00005, 1.00005, 86400, 1e22, 5e-324, -1, -0.5, math.Copysign(0, -1), 9.9999995e14, 999999999999999, 1e-16, math.MaxFloat64, math.Inf(1), math.NaN()}
	for range 200_000 {
		v := math.Exp((rng.Float64() - 0.5) * 90)
		switch rng.IntN(4) {
		case 0: // a short decimal, as in the rates files
			v = math.Round(v*1e4) / 1e4
		case 1: // a tie at some precision
			v = (math.Floor(v) + 0.5) * math.Pow(10, float64(rng.IntN(9)-4))
		}
		vals = append(vals, v)
	}
	for _, v := range vals {
		for _, prec := range []int{1, 3, 4, 9, 15} {
			if got, want := string(AppendG(nil, v, prec)), strconv.FormatFloat(v, 'g', prec, 64); got != want {
				t.Fatalf("AppendG(%v, %d) = %s, strconv %s", v, prec, got, want)
			}
		}
		for _, v := range []float64{v, v / 1e4, -v} {
			if got, want := string(AppendF4(nil, v)), strconv.FormatFloat(v, 'f', 4, 64); got != want {
				t.Fatalf("AppendF4(%v) = %s, strconv %s", v, got, want)
			}
		}
	}
}

// BenchmarkAppendG formats the numbers of an allocate table (4
// significant digits of a log-normal rate) by AppendG and by strconv.
func BenchmarkAppendG(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	vals := make([]float64, 4096)
	for i := range vals {
		vals[i] = math.Exp(1.5 * rng.NormFloat64())
	}
	buf := make([]byte, 0, 32)
	b.Run("dataset", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			buf = AppendG(buf[:0], vals[i&4095], 4)
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			buf = strconv.AppendFloat(buf[:0], vals[i&4095], 'g', 4, 64)
		}
	})
}

// BenchmarkAppendF4 formats freshnesses, from 0 to 1, by AppendF4 and by
// strconv.
func BenchmarkAppendF4(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	vals := make([]float64, 4096)
	for i := range vals {
		vals[i] = rng.Float64()
	}
	buf := make([]byte, 0, 32)
	b.Run("dataset", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			buf = AppendF4(buf[:0], vals[i&4095])
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			buf = strconv.AppendFloat(buf[:0], vals[i&4095], 'f', 4, 64)
		}
	})
}
