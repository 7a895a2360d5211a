package brute

import (
	"math"
	"testing"
)

// Each method against a closed form: the least point of a parabola, of a
// sum of parabolas on the simplex (its minimum where Σ t = B is t), and
// Simpson's rule, exact for cubics.
func TestClosedForms(t *testing.T) {
	if x := Golden(func(x float64) float64 { return (x - 0.3) * (x - 0.3) }, 0, 1); math.Abs(x-0.3) > 1e-9 {
		t.Errorf("Golden: %g, want 0.3", x)
	}
	for _, target := range [][]float64{{0.2, 0.5}, {0.1, 0.3, 0.6}} {
		cost := func(f []float64) float64 {
			s := 0.0
			for i := range f {
				s += (f[i] - target[i]) * (f[i] - target[i])
			}
			return s
		}
		best, f := Simplex(len(target), 0.2+0.5+float64(len(target)-2)*0.3, cost)
		for i := range f {
			if math.Abs(f[i]-target[i]) > 1e-6 || best > 1e-12 {
				t.Errorf("Simplex(%v): %v, cost %g", target, f, best)
				break
			}
		}
	}
	if got := Simpson(func(x float64) float64 { return x * x * x }, 0, 2, 2); math.Abs(got-4) > 1e-12 {
		t.Errorf("Simpson of x³ on [0, 2]: %g, want 4", got)
	}
}
