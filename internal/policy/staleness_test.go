package policy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// minimiseRate finds the r minimising c.Rate(delta, ·) by golden-section
// search on (1e-4, 20), the brute-force reference for OptimalRatio.
func minimiseRate(c StalenessCost, delta float64) float64 {
	a, b := 1e-4, 20.0
	for range 300 {
		x, y := b-(b-a)*0.6180339887, a+(b-a)*0.6180339887
		if c.Rate(delta, x) < c.Rate(delta, y) {
			b = y
		} else {
			a = x
		}
	}
	return (a + b) / 2
}

// TestOptimalRatio checks paper 001's optimal r against golden-section
// minimisation of C(r) (relative 1e-6; the minimum is flat, so the search
// resolves r only to about √ε) and against the spec's values (A.3, A.10:
// 0.3208 and 0.2744/h at Δ = 24 h and C_c = C_s; 0.7310 at C_c = 4C_s;
// 0.1518 at C_s = 4C_c; r*(Δ) for Δ = 2..1000 h), to their printed digits.
// Units: costs per hour and Δ in hours are converted to seconds.
func TestOptimalRatio(t *testing.T) {
	const h = 3600.0
	tests := []struct {
		cc, cs, delta float64 // costs per crawl and per stale hour; Δ in hours
		r, tol        float64
		cost          float64 // per hour at r*; 0 = not checked
	}{
		{1, 1, 24, 0.3208, 5e-5, 0.27442},
		{4, 1, 24, 0.7310, 5e-5, 0.5186},
		{1, 4, 24, 0.1518, 5e-5, 0.5633},
		{1, 1, 2, 1.678, 5e-4, 0},
		{1, 1, 6, 0.731, 5e-4, 0},
		{1, 1, 100, 0.149, 5e-4, 0},
		{1, 1, 200, 0.1035, 5e-5, 0},
		{1, 1, 1000, 0.0454, 5e-5, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("Cc=%g,Cs=%g,Δ=%gh", tt.cc, tt.cs, tt.delta), func(t *testing.T) {
			c := StalenessCost{Crawl: tt.cc, Stale: tt.cs / h}
			r, ok := c.OptimalRatio(tt.delta * h)
			if !ok {
				t.Fatal("no optimum")
			}
			if brute := minimiseRate(c, tt.delta*h); relErr(r, brute) > 1e-6 {
				t.Errorf("r* = %.8f, golden section %.8f", r, brute)
			}
			if math.Abs(r-tt.r) > tt.tol {
				t.Errorf("r* = %.5f, spec %g", r, tt.r)
			}
			if tt.cost != 0 && math.Abs(c.Rate(tt.delta*h, r)*h-tt.cost) > 5e-5 {
				t.Errorf("cost %.5f/h, spec %g", c.Rate(tt.delta*h, r)*h, tt.cost)
			}
			if it, _ := c.Interval(tt.delta * h); relErr(it, r*tt.delta*h) > 1e-15 {
				t.Errorf("interval %g s, want r*·Δ = %g", it, r*tt.delta*h)
			}
		})
	}
	// r*(Δ) decreases in Δ (A.10 item 4).
	prev := math.Inf(1)
	for _, d := range logspace(1.01, 1e5, 50) {
		r, _ := StalenessCost{Crawl: 1, Stale: 1 / h}.OptimalRatio(d * h)
		if r >= prev {
			t.Errorf("r*(%g h) = %g not below %g", d, r, prev)
		}
		prev = r
	}
	// No root when C_c ≥ C_s·Δ: never recrawl (A.3; C_s = C_c = 1, Δ ≤ 1 h).
	if _, ok := (StalenessCost{Crawl: 1, Stale: 1 / h}).OptimalRatio(h); ok {
		t.Error("Δ = 1 h with C_c = C_s has an optimum; want none")
	}
	// Costs at other r (spec A.3, 5 decimals): the curve is flat near r*.
	c := StalenessCost{Crawl: 1, Stale: 1 / h}
	for _, p := range [][2]float64{{0.3, 0.27495}, {1.0 / 3, 0.27459}, {0.8, 0.36374}, {1, 0.40955}} {
		if got := c.Rate(24*h, p[0]) * h; math.Abs(got-p[1]) > 5e-6 {
			t.Errorf("C(%g) = %.6f/h, spec %g", p[0], got, p[1])
		}
	}
}

// TestSqrtLaw checks t* → √(2ΔC_c/C_s) (paper 001 §3.4). The brief asks for
// 5 % at Δ = 100 h and 2 % at 1000 h; the ratio is 1.0504 at 100 h, so the
// 5 % target is missed by 0.04 % (the spec's own A.3 row, t = 14.9 h against
// 14.1 h, says the same), and 1.0152 at 1000 h. Tolerances 1e-4.
func TestSqrtLaw(t *testing.T) {
	const h = 3600.0
	c := StalenessCost{Crawl: 1, Stale: 1 / h}
	for _, tt := range []struct{ delta, ratio float64 }{{100, 1.0504}, {200, 1.0349}, {1000, 1.0152}, {1e6, 1.0005}} {
		it, _ := c.Interval(tt.delta * h)
		if got := it / h / math.Sqrt(2*tt.delta); math.Abs(got-tt.ratio) > 1e-4 {
			t.Errorf("Δ = %g h: t*/√(2Δ) = %.5f, want %.4f", tt.delta, got, tt.ratio)
		}
	}
}

// TestVeryStale checks VeryStaleProbability against a Monte Carlo of the
// first change time in an interval (200,000 draws, tolerance 4 standard
// errors), and ChangedShare(1/3) = 0.2835 (spec A.3).
func TestVeryStale(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 200000
	for _, tt := range []struct{ t, m, delta float64 }{{8, 8, 24}, {12, 8, 24}, {30, 8, 24}, {5, 1, 2}} {
		hits := 0
		for range n {
			first := rng.ExpFloat64() * tt.delta
			if first < tt.t && tt.t-first >= tt.m {
				hits++
			}
		}
		p := VeryStaleProbability(tt.t, tt.m, tt.delta)
		se := math.Sqrt(max(p*(1-p), 1.0/n) / n)
		if got := float64(hits) / n; math.Abs(got-p) > 4*se {
			t.Errorf("t=%g m=%g Δ=%g: %.5f, Monte Carlo %.5f", tt.t, tt.m, tt.delta, p, got)
		}
	}
	if got := ChangedShare(1.0 / 3); math.Abs(got-0.2835) > 5e-5 {
		t.Errorf("ChangedShare(1/3) = %.5f, want 0.2835", got)
	}
}
