package processtest

import (
	"math"
	"testing"
)

// The critical values are the tabulated ones (the asymptotic row of the
// usual tables, e.g. Massey, JASA 1951: 1.36/√n at 0.05, 1.63/√n at 0.01,
// 1.95/√n at 0.001), printed to two decimals.
func TestCritical(t *testing.T) {
	for _, tt := range []struct{ alpha, c float64 }{{0.05, 1.36}, {0.01, 1.63}, {0.001, 1.95}} {
		if got := Critical(tt.alpha, 1); math.Abs(got-tt.c) > 0.005 {
			t.Errorf("Critical(%g) = %.4f, want %.3f", tt.alpha, got, tt.c)
		}
		if got, want := Critical(tt.alpha, 400), Critical(tt.alpha, 1)/20; math.Abs(got-want) > 1e-15 {
			t.Errorf("Critical(%g, 400) = %g, want %g", tt.alpha, got, want)
		}
	}
}

// D by hand: samples {0.1, 0.5, 0.9} against the uniform CDF have
// empirical steps 1/3, 2/3, 1, so D = max(0.1, 1/3−0.1, 0.5−1/3, 2/3−0.5,
// 0.9−2/3, 1−0.9) = 0.2333.
func TestKS(t *testing.T) {
	d := KS([]float64{0.9, 0.1, 0.5}, func(x float64) float64 { return x })
	if want := 1.0/3 - 0.1; math.Abs(d-want) > 1e-15 {
		t.Errorf("D = %g, want %g", d, want)
	}
}

// Two samples: identical ones (ties everywhere) give 0, disjoint ones 1,
// and {1, 2, 3} against {2, 3, 4} has its gap 1/3 at every step.
func TestKS2(t *testing.T) {
	tests := []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1, 1, 2}, []float64{2, 1, 1}, 0},
		{[]float64{1, 2}, []float64{3, 4, 5}, 1},
		{[]float64{1, 2, 3}, []float64{2, 3, 4}, 1.0 / 3},
	}
	for _, tt := range tests {
		if got := KS2(tt.a, tt.b); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("KS2(%v, %v) = %g, want %g", tt.a, tt.b, got, tt.want)
		}
	}
}

// The distribution functions at points where they are known by hand.
func TestCDFs(t *testing.T) {
	if got := ExponentialCDF(2)(math.Ln2 / 2); math.Abs(got-0.5) > 1e-15 {
		t.Errorf("exponential median: F = %g, want 0.5", got)
	}
	// Lomax α = 1, β = 1: F(1) = 1 − 1/2.
	if got := LomaxCDF(1, 1)(1); math.Abs(got-0.5) > 1e-15 {
		t.Errorf("Lomax: F = %g, want 0.5", got)
	}
}
