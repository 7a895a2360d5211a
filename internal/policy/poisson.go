package policy

import "math"

// The baselines of issue 19: the optima of Kolobov et al. (NeurIPS 2019,
// LambdaCrawl) and Azar et al. (PNAS 2018), which assume that each page is
// crawled as a Poisson process of rate ρ. A page of change rate Δ crawled
// so is fresh a share ρ/(ρ + Δ) of the time, and its copy has missed a
// geometric number of changes, P(N ≥ k) = (Δ/(ρ + Δ))^k, so its expected
// harmonic penalty is Σ_k P(N ≥ k)/k = ln(1 + Δ/ρ). freshcrawl visits a
// page at evenly spaced times instead (Freshness, HarmonicStaleness); run
// in freshcrawl, these allocations are visited evenly too.

// PoissonFreshness is ρ/(ρ + Δ): the freshness of a page of change rate
// delta crawled as a Poisson process of rate rho (1 if it never changes).
func PoissonFreshness(delta, rho float64) float64 {
	if delta == 0 {
		return 1
	}
	return rho / (rho + delta)
}

// PoissonHarmonic is ln(1 + Δ/ρ): the expected harmonic staleness of a page
// of change rate delta crawled as a Poisson process of rate rho.
func PoissonHarmonic(delta, rho float64) float64 {
	if delta == 0 {
		return 0
	}
	return math.Log1p(delta / rho)
}

// LambdaCrawl minimises Σ μ_i ln(1 + Δ_i/ρ_i) under Σ ρ_i = B: Kolobov et
// al.'s LambdaCrawl for pages without change signals (NeurIPS 2019). The
// Lagrange condition μΔ/(ρ(ρ + Δ)) = λ gives ρ = (−Δ + √(Δ² + 4μΔ/λ))/2,
// evaluated as 2μΔ/(λ(Δ + √(Δ² + 4μΔ/λ))), which does not cancel; every
// page that changes is crawled. μ is the page's weight. Pages that never
// change get no visits; if no page changes the budget is spread
// uniformly. The frequencies sum to B within SumTolerance.
type LambdaCrawl struct{}

// Allocate implements Allocator.
func (LambdaCrawl) Allocate(pages []Page, budget float64, freq []float64) error {
	if err := check(pages, budget, freq); err != nil {
		return err
	}
	// ρ(ρ + Δ) = μΔ/λ bounds ρ by μ/λ: at λ = Σμ/B the sum is at most B.
	sw := 0.0
	for _, p := range pages {
		if p.Rate > 0 {
			sw += p.weight()
		}
	}
	if done, err := trivial(pages, budget, freq, sw == 0); done {
		return err
	}
	_, err := solvePages(pages, budget, freq, math.Log(sw/budget), func(p Page, lambda float64) (f, df float64) {
		d := p.Rate
		// ρ, and dρ/d ln λ = −μΔ/(λ·root).
		return LambdaCrawlFrequency(d, p.weight(), lambda), -p.weight() * d / (lambda * math.Sqrt(d*d+4*p.weight()*d/lambda))
	})
	return err
}

// LambdaCrawlFrequency is LambdaCrawl's crawl rate ρ of one page of change
// rate delta and weight w at multiplier lambda (see LambdaCrawl).
func LambdaCrawlFrequency(delta, w, lambda float64) float64 {
	if delta == 0 {
		return 0
	}
	return 2 * w * delta / (lambda * (delta + math.Sqrt(delta*delta+4*w*delta/lambda)))
}

// BinaryPoisson maximises Σ μ_i ρ_i/(ρ_i + Δ_i) under Σ ρ_i = B: the
// binary-freshness optimum of Azar et al. (PNAS 2018) for Poisson crawls.
// The Lagrange condition μΔ/(ρ + Δ)² = λ gives ρ = √(μΔ/λ) − Δ where that
// is positive; a page with μ ≤ λΔ is given up. μ is the page's weight.
// Pages that never change get no visits; if no page changes the budget is
// spread uniformly. The frequencies sum to B within SumTolerance.
type BinaryPoisson struct{}

// Allocate implements Allocator.
func (BinaryPoisson) Allocate(pages []Page, budget float64, freq []float64) error {
	if err := check(pages, budget, freq); err != nil {
		return err
	}
	// ρ ≤ √(μΔ/λ): at λ = (Σ√(μΔ)/B)² the sum is at most B.
	k := 0.0
	for _, p := range pages {
		k += math.Sqrt(p.weight() * p.Rate)
	}
	if done, err := trivial(pages, budget, freq, k == 0); done {
		return err
	}
	_, err := solvePages(pages, budget, freq, 2*math.Log(k/budget), func(p Page, lambda float64) (f, df float64) {
		rho := BinaryPoissonFrequency(p.Rate, p.weight(), lambda)
		if rho == 0 {
			return 0, 0
		}
		return rho, -(rho + p.Rate) / 2 // ρ, and dρ/d ln λ = −√(μΔ/λ)/2
	})
	return err
}

// BinaryPoissonFrequency is Azar et al.'s crawl rate ρ of one page of
// change rate delta and weight w at multiplier lambda: √(wΔ/λ) − Δ, or 0
// for a page given up (w ≤ λΔ; see BinaryPoisson).
func BinaryPoissonFrequency(delta, w, lambda float64) float64 {
	q := math.Sqrt(w * delta / lambda)
	if q <= delta {
		return 0
	}
	return q - delta
}
