package policy

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/policy/brute"
)

// bruteHarmonic is Ḡ(r) by brute force: E[H_N] for N ~ Poisson(y) summed
// term by term, averaged over y in [0, r] by Simpson's rule.
func bruteHarmonic(r float64) float64 {
	expH := func(y float64) float64 {
		if y == 0 {
			return 0
		}
		s, h, p := 0.0, 0.0, math.Exp(-y) // p = P(N = n)
		for n := 1; n < 2000; n++ {
			p *= y / float64(n)
			h += 1 / float64(n)
			s += p * h
			if float64(n) > y+40*math.Sqrt(y)+40 {
				break
			}
		}
		return s
	}
	return brute.Simpson(expH, 0, r, 4000) / r
}

// TestHarmonicStalenessBruteForce checks Ḡ against the expected harmonic
// penalty computed from its definition (H_N over the Poisson count of
// missed changes, averaged over the interval), on both sides of the
// series/asymptotic switch at r = 4, and its limits: r/2 for small r
// (a change missed half the interval on average costs 1), and γ + ln r −
// 1 for large r.
func TestHarmonicStalenessBruteForce(t *testing.T) {
	for _, r := range []float64{1e-3, 0.05, 0.3, 1, 1.5, 2.5, 3.99, 4.01, 7, 20, 60} {
		got, want := HarmonicStaleness(r, 1), bruteHarmonic(r)
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("Ḡ(%g) = %.15g, brute force %.15g", r, got, want)
		}
	}
	if got := harmonicG(1e-8); math.Abs(got-0.5e-8) > 1e-8*0.5e-8 {
		t.Errorf("Ḡ(1e-8) = %g, want r/2", got)
	}
	if got, want := harmonicG(1e4), eulerGamma+math.Log(1e4)-1+1e-4; math.Abs(got-want) > 1e-12*want {
		t.Errorf("Ḡ(1e4) = %.15g, want γ + ln r − 1 + 1/r = %.15g", got, want)
	}
	if HarmonicStaleness(0, 0) != 0 || !math.IsInf(HarmonicStaleness(1, 0), 1) {
		t.Error("a page that never changes costs 0; one never visited, +Inf")
	}
}

// TestInvEm2 checks em2⁻¹ against its closed form c + 1 + W₀(−e^{−(c+1)})
// (W₀ by bisection) and by round trip, over twenty decades.
func TestInvEm2(t *testing.T) {
	w0 := func(x float64) float64 { // w·e^w = x on (−1, 0] for x in [−1/e, 0)
		lo, hi := -1.0, 0.0
		for range 200 {
			m := (lo + hi) / 2
			if m*math.Exp(m) < x {
				lo = m
			} else {
				hi = m
			}
		}
		return (lo + hi) / 2
	}
	for c := 1e-10; c < 1e10; c *= 3.7 {
		r := invEm2(c)
		if back := em2(r); math.Abs(back-c) > 1e-12*c {
			t.Errorf("em2(em2⁻¹(%g)) = %g", c, back)
		}
		if c > 1e-4 && c < 30 { // where the closed form is well conditioned
			if want := c + 1 + w0(-math.Exp(-(c + 1))); math.Abs(r-want) > 1e-9*want {
				t.Errorf("em2⁻¹(%g) = %.15g, closed form %.15g", c, r, want)
			}
		}
	}
}

// harmonicObjective is Σ w Ḡ(λ/f).
func harmonicObjective(pages []Page, freq []float64) float64 {
	s := 0.0
	for i, p := range pages {
		s += p.weight() * HarmonicStaleness(p.Rate, freq[i])
	}
	return s
}

// TestOptimalHarmonicBruteForce checks the allocation against a direct
// minimisation of Σ w Ḡ(λ/f) over the simplex Σ f = B (nested golden
// sections) on random instances of two and three pages, and the Lagrange
// conditions w·em2(λ/f)/λ = ν on a larger one: the same ν for every page,
// none given up.
func TestOptimalHarmonicBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for trial := range 40 {
		n := 2 + trial%2
		pages := make([]Page, n)
		for i := range pages {
			pages[i] = Page{Rate: math.Pow(10, -2+3*rng.Float64()), Weight: math.Pow(2, -2+4*rng.Float64())}
		}
		budget := math.Pow(10, -1+2*rng.Float64())
		freq := make([]float64, n)
		if err := (OptimalHarmonic{}).Allocate(pages, budget, freq); err != nil {
			t.Fatal(err)
		}
		best, brute := brute.Simplex(n, budget, func(f []float64) float64 { return harmonicObjective(pages, f) })
		got := harmonicObjective(pages, freq)
		if got > best*(1+1e-9) || got < best*(1-1e-6) {
			t.Errorf("trial %d: objective %.12g, brute force %.12g (freq %v, brute %v)", trial, got, best, freq, brute)
		}
	}
	pages := make([]Page, 2000)
	for i := range pages {
		pages[i] = Page{Rate: math.Pow(10, -7+4*rng.Float64()), Weight: math.Pow(2, -2+4*rng.Float64())}
	}
	freq := make([]float64, len(pages))
	nu, err := (OptimalHarmonic{}).Solve(pages, 0.01, freq)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for i, p := range pages {
		if !(freq[i] > 0) {
			t.Fatalf("page %d (rate %g) given up", i, p.Rate)
		}
		if got := p.weight() * em2(p.Rate/freq[i]) / p.Rate; math.Abs(got-nu) > 1e-6*nu {
			t.Fatalf("page %d: w·em2(λ/f)/λ = %g, ν = %g", i, got, nu)
		}
		sum += freq[i]
	}
	if math.Abs(sum-0.01) > SumTolerance*0.01 {
		t.Errorf("frequencies sum to %g, budget 0.01", sum)
	}
}

// TestHarmonicStretch checks the stretch integral two ways: against
// E[H_{1+M}], M ~ Poisson(y), summed term by term and integrated by
// Simpson's rule; and, averaged over the time c of the first change in a
// visit interval I (density λe^{−λc}), against I·Ḡ(λI), which counts the
// same penalty from the visit (the closed form HarmonicStaleness).
func TestHarmonicStretch(t *testing.T) {
	expH1 := func(y float64) float64 { // E[H_{1+M}]
		s, h, p := 0.0, 0.0, math.Exp(-y)
		for n := 1; n < 2000; n++ {
			h += 1 / float64(n)
			s += p * h
			p *= y / float64(n)
			if float64(n) > y+40*math.Sqrt(y)+40 {
				break
			}
		}
		return s
	}
	for _, y := range []float64{1e-3, 0.1, 1, 3.9, 4.1, 10, 60} {
		got, want := HarmonicStretch(y), brute.Simpson(expH1, 0, y, 4000)
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("HarmonicStretch(%g) = %.12g, brute force %.12g", y, got, want)
		}
	}
	for _, r := range []float64{0.05, 1, 5, 30} { // λ = 1, I = r
		got := brute.Simpson(func(c float64) float64 { return math.Exp(-c) * HarmonicStretch(r-c) }, 0, r, 4000) / r
		if want := HarmonicStaleness(r, 1); math.Abs(got-want) > 1e-9*want {
			t.Errorf("r = %g: stretches averaged %.12g, Ḡ %.12g", r, got, want)
		}
	}
	if HarmonicStretch(0) != 0 {
		t.Errorf("HarmonicStretch(0) = %g", HarmonicStretch(0))
	}
}
