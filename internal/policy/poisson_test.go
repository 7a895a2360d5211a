package policy

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/policy/brute"
)

// TestPoissonHarmonicClosedForm checks ln(1 + Δ/ρ) against its definition:
// a page crawled as a Poisson process of rate ρ has, at a random moment,
// missed N changes with P(N = n) = (ρ/(ρ+Δ))(Δ/(ρ+Δ))ⁿ (a geometric count:
// the time since the last crawl is exponential), and E[H_N] summed term by
// term; and the freshness ρ/(ρ + Δ) as P(N = 0). Evenly spaced visits at
// the same rate cost less (Ḡ(r) < ln(1 + r)), which is why freshcrawl plans
// them.
func TestPoissonHarmonicClosedForm(t *testing.T) {
	for _, c := range []struct{ delta, rho float64 }{{1, 1}, {0.1, 2}, {5, 0.5}, {30, 1}} {
		p := c.rho / (c.rho + c.delta)
		q := 1 - p
		sum, h, pn := 0.0, 0.0, p
		for n := 1; n < 100000; n++ {
			pn *= q
			h += 1 / float64(n)
			sum += pn * h
			if pn*h < 1e-18 {
				break
			}
		}
		if got := PoissonHarmonic(c.delta, c.rho); math.Abs(got-sum) > 1e-9*sum {
			t.Errorf("Δ=%g ρ=%g: ln(1+Δ/ρ) = %.12g, E[H_N] = %.12g", c.delta, c.rho, got, sum)
		}
		if got := PoissonFreshness(c.delta, c.rho); math.Abs(got-p) > 1e-15 {
			t.Errorf("Δ=%g ρ=%g: freshness %g, P(N=0) = %g", c.delta, c.rho, got, p)
		}
		if r := c.delta / c.rho; HarmonicStaleness(c.delta, c.rho) >= PoissonHarmonic(c.delta, c.rho) {
			t.Errorf("r=%g: evenly spaced visits cost %g, Poisson crawls %g", r, HarmonicStaleness(c.delta, c.rho), PoissonHarmonic(c.delta, c.rho))
		}
	}
}

// TestPoissonBaselinesBruteForce checks LambdaCrawl and BinaryPoisson
// against direct optimisation of their objectives over the simplex (golden
// sections, as for the harmonic optimum) on random instances of 2 and 3
// pages, and LambdaCrawl's closed form against its Lagrange condition: the
// same μΔ/(ρ(ρ+Δ)) for every page.
func TestPoissonBaselinesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	harm := func(pages []Page, f []float64) (s float64) {
		for i, p := range pages {
			s += p.weight() * PoissonHarmonic(p.Rate, f[i])
		}
		return s
	}
	stale := func(pages []Page, f []float64) (s float64) { // 1 − freshness, to minimise
		for i, p := range pages {
			s += p.weight() * (1 - PoissonFreshness(p.Rate, f[i]))
		}
		return s
	}
	for trial := range 40 {
		n := 2 + trial%2
		pages := make([]Page, n)
		for i := range pages {
			pages[i] = Page{Rate: math.Pow(10, -1+2*rng.Float64()), Weight: math.Pow(2, -2+4*rng.Float64())}
		}
		budget := math.Pow(10, -1+2*rng.Float64())
		for _, tc := range []struct {
			name string
			a    Allocator
			cost func([]Page, []float64) float64
		}{{"lambdacrawl", LambdaCrawl{}, harm}, {"binary-poisson", BinaryPoisson{}, stale}} {
			freq := make([]float64, n)
			if err := tc.a.Allocate(pages, budget, freq); err != nil {
				t.Fatal(err)
			}
			best, _ := brute.Simplex(n, budget, func(f []float64) float64 { return tc.cost(pages, f) })
			if got := tc.cost(pages, freq); got > best*(1+1e-9)+1e-12 || got < best*(1-1e-6) {
				t.Errorf("trial %d %s: objective %.12g, brute force %.12g (freq %v)", trial, tc.name, got, best, freq)
			}
		}
	}
	pages := make([]Page, 1000)
	for i := range pages {
		pages[i] = Page{Rate: math.Pow(10, -7+4*rng.Float64()), Weight: math.Pow(2, -2+4*rng.Float64())}
	}
	freq := make([]float64, len(pages))
	if err := (LambdaCrawl{}).Allocate(pages, 0.01, freq); err != nil {
		t.Fatal(err)
	}
	lambda := 0.0
	for i, p := range pages {
		got := p.weight() * p.Rate / (freq[i] * (freq[i] + p.Rate))
		if i == 0 {
			lambda = got
		}
		if math.Abs(got-lambda) > 1e-6*lambda {
			t.Fatalf("page %d: μΔ/(ρ(ρ+Δ)) = %g, page 0's %g", i, got, lambda)
		}
	}
}
