package policy

import "math"

// simpson integrates fn over [a, b] with composite Simpson's rule on n
// (even) panels; the tests use it as the brute-force reference.
func simpson(fn func(float64) float64, a, b float64, n int) float64 {
	h := (b - a) / float64(n)
	s := fn(a) + fn(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * fn(a+float64(i)*h)
	}
	return s * h / 3
}

// relErr is |got − want|/|want|, or |got| when want is 0.
func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

// logspace is n points from lo to hi, evenly spaced in log.
func logspace(lo, hi float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = lo * math.Pow(hi/lo, float64(i)/float64(n-1))
	}
	return out
}

// day converts: rates per day to per second and frequencies back.
const day = 86400.0
