// Package frontier reproduces what `freshcrawl reproduce` can check of the
// refresh schedulers published since the dissertation: Kolobov, Peres,
// Lubetzky and Horvitz's harmonic staleness and LambdaCrawl (SIGIR 2019,
// NeurIPS 2019) and Azar, Horvitz, Lubetzky, Peres and Shahaf's optimum of
// binary freshness for Poisson crawls (PNAS 2018). Their papers are not
// among the seeds, so the rows are the closed forms the baselines are built
// on (each against a brute-force computation), the baselines' optima
// against a direct minimisation on small instances, and the orderings
// issue 19 reports from running the authors' released code beside
// freshcrawl, measured here on freshcrawl's own implementations. The
// figures of that comparison depend on the authors' code and instances,
// which are not here: the orderings are reproduced, the figures are quoted.
package frontier

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/policy/brute"
	"github.com/freshcrawl/freshcrawl/internal/reproduce/claim"
)

// Sections of the claims (claim.SourceOf groups them by these prefixes).
const (
	secSIGIR   = "Kolobov et al. SIGIR 2019"
	secNeurIPS = "Kolobov et al. NeurIPS 2019"
	secAzar    = "Azar et al. PNAS 2018"
)

const day = 86400.0

// Claims returns the rows and orderings; the learnt-rate comparisons run
// the simulator on 10^4 pages (a few seconds each on 2 cores).
func Claims(ctx context.Context, seed uint64) ([]claim.Claim, error) {
	out := closedForms()
	out = append(out, smallOptima(seed)...)
	out = append(out, instanceClaims(seed)...)
	learnt, err := learntClaims(ctx, seed)
	if err != nil {
		return nil, fmt.Errorf("frontier: %w", err)
	}
	return append(out, learnt...), nil
}

// closedForms checks the Poisson-crawl costs the baselines optimise. A page
// changing at rate Δ, crawled as a Poisson process of rate ρ, has missed N
// changes at a random moment with P(N = k) = p·qᵏ, p = ρ/(ρ+Δ), q = 1 − p:
// its freshness is P(N = 0) = ρ/(ρ + Δ), and since H_N = ∫₀¹ (1 − uᴺ)/(1 −
// u) du and E[uᴺ] = p/(1 − qu), its harmonic staleness is ∫₀¹ (1 − p/(1 −
// qu))/(1 − u) du, integrated here by Simpson's rule, against the closed
// form ln(1 + Δ/ρ).
func closedForms() []claim.Claim {
	var out []claim.Claim
	for _, r := range []float64{0.5, 2, 10} { // Δ/ρ
		q := r / (1 + r)
		integrand := func(u float64) float64 { return q / (1 - q*u) } // (1 − p/(1 − qu))/(1 − u), as 1 − p = q
		out = append(out, claim.Claim{Row: claim.Row{Section: secSIGIR + " §3",
			Quantity: fmt.Sprintf("harmonic staleness ln(1 + Δ/ρ) of a Poisson crawl, Δ/ρ = %g (against ∫ (1 − E[uᴺ])/(1 − u) du)", r),
			Paper:    brute.Simpson(integrand, 0, 1, 20000), Computed: policy.PoissonHarmonic(r, 1), Tol: 1e-9, Kind: "derived"}})
	}
	out = append(out, claim.Claim{Row: claim.Row{Section: secAzar,
		Quantity: "freshness ρ/(ρ + Δ) of a Poisson crawl, Δ/ρ = 2 (against P(N = 0))",
		Paper:    1 / (1 + 2.0), Computed: policy.PoissonFreshness(2, 1), Tol: 1e-12, Kind: "derived"}})
	return out
}

// smallOptima sets the baselines' allocations against a direct
// minimisation of their objectives over the budget simplex (brute.Simplex)
// on random three-page instances.
func smallOptima(seed uint64) []claim.Claim {
	rng := rand.New(rand.NewPCG(seed, 19))
	var out []claim.Claim
	for _, tt := range []struct {
		section, name string
		alloc         policy.Allocator
		cost          func(delta, rho float64) float64 // minimised
	}{
		{secNeurIPS, "LambdaCrawl's Σ μ ln(1 + Δ/ρ)", policy.LambdaCrawl{}, policy.PoissonHarmonic},
		{secAzar, "binary-Poisson's −Σ μ ρ/(ρ + Δ)", policy.BinaryPoisson{}, func(d, r float64) float64 { return -policy.PoissonFreshness(d, r) }},
	} {
		worst := 0.0
		for range 10 {
			pages := make([]policy.Page, 3)
			for i := range pages {
				pages[i] = policy.Page{Rate: math.Pow(10, -2+2*rng.Float64()), Weight: 0.2 + 2*rng.Float64()}
			}
			budget := 0.05 + rng.Float64()
			sum := func(f []float64) float64 {
				s := 0.0
				for i, p := range pages {
					s += p.Weight * tt.cost(p.Rate, f[i])
				}
				return s
			}
			f := make([]float64, 3)
			if err := tt.alloc.Allocate(pages, budget, f); err != nil {
				worst = math.Inf(1)
				continue
			}
			best, _ := brute.Simplex(3, budget, sum)
			worst = max(worst, (sum(f)-best)/math.Abs(best))
		}
		out = append(out, claim.Claim{Row: claim.Row{Section: tt.section,
			Quantity: "optimum of " + tt.name + " against a direct minimisation, 10 random 3-page instances (worst relative excess)",
			Paper:    0, Computed: max(worst, 0), Tol: 1e-6, Kind: "derived"}})
	}
	return out
}
