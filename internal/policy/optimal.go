package policy

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// OptimalFreshness maximises the collection's weighted time-averaged
// freshness Σ w_i F̄(λ_i, f_i)/Σ w_i under fixed-order visits and the budget
// Σ f_i = B (dissertation Problem 5.1, §5.5.4; weighted §5.6).
//
// The Lagrange conditions are w_i ∂F̄/∂f_i = μ (§5.5.4, footnote 3). With
// r = λ/f and g(r) = 1 − (1 + r)e^{−r}, ∂F̄/∂f = g(λ/f)/λ, so
// f_i = λ_i/g⁻¹(μλ_i/w_i) when μλ_i < w_i and f_i = 0 otherwise: a page that
// changes too often for its weight is abandoned ("penalize the elements that
// change too often", Theorem 5.5). F̄ is concave in f, so this point is the
// global maximum. g⁻¹ is Lambert's W₋₁ (see invG); μ is found by Newton
// and Illinois steps on ln Σf(μ) against ln B, safeguarded by bisection on
// ln μ (see solveMultiplier), in about ten passes over the pages, which run
// on all CPUs.
//
// Pages that never change get no visits; if no page changes the budget is
// spread uniformly. The frequencies sum to B within SumTolerance.
type OptimalFreshness struct{}

// Allocate implements Allocator.
func (o OptimalFreshness) Allocate(pages []Page, budget float64, freq []float64) error {
	_, err := o.Solve(pages, budget, freq)
	return err
}

// Solve is Allocate that also returns the multiplier μ (in seconds·weight,
// the marginal weighted freshness of one more visit per second). It is +Inf
// when the budget is zero.
func (OptimalFreshness) Solve(pages []Page, budget float64, freq []float64) (mu float64, err error) {
	if err := check(pages, budget, freq); err != nil {
		return 0, err
	}
	// μmax = max w/λ abandons every page; K/√μ bounds Σf from above
	// because g(r) ≤ r²/2, so μ* ≤ (K/B)².
	muMax, k := 0.0, 0.0
	for _, p := range pages {
		if p.Rate > 0 {
			muMax = max(muMax, p.weight()/p.Rate)
			k += math.Sqrt(p.Rate * p.weight() / 2)
		}
	}
	if done, err := trivial(pages, budget, freq, k == 0); done {
		return math.Inf(1), err
	}
	eval := func(x float64) (s, ds float64) {
		mu := math.Exp(x)
		return SumChunks(len(pages), func(lo, hi int) (s, ds float64) {
			return freshnessSum(pages[lo:hi], freq[lo:hi], mu)
		})
	}
	x, err := solveMultiplier(eval, math.Log(min(muMax, k*k/(budget*budget))), budget, freq)
	return math.Exp(x), err
}

// freshnessSum sets the freshness-optimal freq of pages at multiplier mu
// and returns their sum and its derivative in ln μ.
func freshnessSum(pages []Page, freq []float64, mu float64) (s, ds float64) {
	for i, p := range pages {
		freq[i] = 0
		if p.Rate == 0 {
			continue
		}
		c := mu * p.Rate / p.weight()
		if c >= 1 {
			continue // abandoned: μλ ≥ w
		}
		r := invG(c)
		freq[i] = p.Rate / r
		s += freq[i]
		// d f/d ln μ = −(λ/r²)·(dr/dc)·c, dr/dc = (1 + r)/(r(1 − c)).
		ds -= p.Rate * (1 + r) * c / (r * r * r * (1 - c))
	}
	return s, ds
}

// FreshnessFrequency is the freshness-optimal frequency of one page of rate
// lambda and weight w at multiplier mu: λ/g⁻¹(μλ/w), or 0 when μλ ≥ w
// (§5.5.4, Fig. 5.14(a)). By Theorem 5.5, FreshnessFrequency(cλ, w, μ/c) =
// c·FreshnessFrequency(λ, w, μ), and by §5.6 doubling w doubles the curve.
func FreshnessFrequency(lambda, w, mu float64) float64 {
	c := mu * lambda / w
	if lambda == 0 || c >= 1 {
		return 0
	}
	return lambda / invG(c)
}

// OptimalAge minimises the collection's weighted time-averaged age
// Σ w_i Ā(λ_i, f_i)/Σ w_i under fixed-order visits and the budget
// Σ f_i = B (§5.5.4, "age-optimal version"; weighted §5.6).
//
// With r = λ/f and h(r) = r²/2 − 1 + (1 + r)e^{−r}, ∂Ā/∂f = −h(λ/f)/λ², so
// the Lagrange conditions w_i h(λ_i/f_i)/λ_i² = ν give
// f_i = λ_i/h⁻¹(νλ_i²/w_i). h > 0 for r > 0, so no page that changes is
// abandoned; Ā is convex in f, so this point is the global minimum. ν is
// found as μ is in OptimalFreshness; h⁻¹ is a Halley iteration.
//
// Pages that never change get no visits; if no page changes the budget is
// spread uniformly. The frequencies sum to B within SumTolerance.
type OptimalAge struct{}

// Allocate implements Allocator.
func (o OptimalAge) Allocate(pages []Page, budget float64, freq []float64) error {
	_, err := o.Solve(pages, budget, freq)
	return err
}

// Solve is Allocate that also returns the multiplier ν (the marginal
// weighted age saved by one more visit per second, in seconds²·weight).
func (OptimalAge) Solve(pages []Page, budget float64, freq []float64) (nu float64, err error) {
	if err := check(pages, budget, freq); err != nil {
		return 0, err
	}
	// h(r) ≤ r²/2 and h(r) ≤ r³/3 bound f from above by √(w/(2ν)) and
	// (λw/(3ν))^{1/3}, so either sum at ν = (K/B)^p is at most B.
	var k2, k3 float64
	for _, p := range pages {
		if p.Rate > 0 {
			k2 += math.Sqrt(p.weight() / 2)
			k3 += math.Cbrt(p.Rate * p.weight() / 3)
		}
	}
	if done, err := trivial(pages, budget, freq, k2 == 0); done {
		return math.Inf(1), err
	}
	eval := func(x float64) (s, ds float64) {
		nu := math.Exp(x)
		return SumChunks(len(pages), func(lo, hi int) (s, ds float64) {
			return ageSum(pages[lo:hi], freq[lo:hi], nu)
		})
	}
	hi := min(2*math.Log(k2/budget), 3*math.Log(k3/budget))
	x, err := solveMultiplier(eval, hi, budget, freq)
	return math.Exp(x), err
}

// ageSum sets the age-optimal freq of pages at multiplier nu and returns
// their sum and its derivative in ln ν.
func ageSum(pages []Page, freq []float64, nu float64) (s, ds float64) {
	for i, p := range pages {
		freq[i] = 0
		if p.Rate == 0 {
			continue
		}
		y := nu * p.Rate * p.Rate / p.weight()
		r := invH(y)
		freq[i] = p.Rate / r
		s += freq[i]
		// d f/d ln ν = −(λ/r²)·y/h′(r), h′(r) = r(1 − e^{−r}).
		ds -= p.Rate * y / (r * r * r * oneMinusExp(r))
	}
	return s, ds
}

// AgeFrequency is the age-optimal frequency of one page of rate lambda and
// weight w at multiplier nu: λ/h⁻¹(νλ²/w) (§5.5.4, Fig. 5.14(b)). Doubling w
// scales the curve by √2 (§5.6).
func AgeFrequency(lambda, w, nu float64) float64 {
	if lambda == 0 {
		return 0
	}
	return lambda / invH(nu*lambda*lambda/w)
}

// trivial serves the allocations with nothing to optimise: a zero budget
// (no visits) and a collection where no page changes (uniform, as any
// split is optimal). It reports whether it filled freq.
func trivial(pages []Page, budget float64, freq []float64, static bool) (bool, error) {
	switch {
	case budget == 0:
		clear(freq)
		return true, nil
	case len(pages) == 0:
		return true, errors.Join(ErrInput, errors.New("a positive budget for no pages"))
	case static:
		return true, Uniform{}.Allocate(pages, budget, freq)
	}
	return false, nil
}

// errNoConvergence reports a multiplier search that did not converge, which
// would be a bug: the sums are monotone.
var errNoConvergence = errors.New("policy: multiplier search did not converge")

// solveMultiplier finds x = ln μ with S(x) = budget, where eval returns
// S(x) (filling freq as a side effect) and dS/dx, S is decreasing, and
// S(hi) ≤ budget. It steps down from hi by factors of 4 until S ≥ budget,
// then takes Newton steps on ln S(x) − ln budget (nearly linear in x:
// S ∝ μ^{−1/2} or ν^{−1/3} in the limits) and, once both ends of the
// bracket are known, Illinois regula falsi steps, bisecting whenever a
// step leaves the bracket. freq ends up holding the frequencies.
//
// S is continuous, but a page about to be abandoned (μλ → w) keeps
// f = λ/r with r only logarithmic in 1/(w − μλ), so in floating point its
// frequency drops from about λ/40 to 0 within one ulp of μ, and with many
// pages S is a fine staircase near the root. So the search stops once the
// bracket is narrower than 1e-6 in ln μ and freq becomes the convex
// combination of its two ends that meets the budget exactly. Both ends are
// KKT points for μ to within 1e-6; the pages on the staircase are in F̄'s
// linear regime (F̄ ≈ f/λ), where any split between them is optimal, and
// the others move smoothly, so the objective is off the optimum only in
// the second order, about 1e-12 relative.
func solveMultiplier(eval func(x float64) (s, ds float64), hi, budget float64, freq []float64) (float64, error) {
	const tol = SumTolerance / 10
	x := hi
	s, ds := eval(x)
	for s < budget*(1-tol) {
		hi = x
		x -= math.Ln2 * 2
		if x < -1500 {
			return x, errNoConvergence
		}
		s, ds = eval(x)
	}
	lo, sLo := x, s
	atLo := slices.Clone(freq)
	sHi := math.NaN() // unknown until evaluated
	side := 0         // which end the last two steps kept (Illinois)
	for range 300 {
		if math.Abs(s-budget) <= tol*budget {
			return x, nil
		}
		if s > budget {
			lo, sLo = x, s
			copy(atLo, freq)
			side = min(side, 0) - 1
		} else {
			hi, sHi = x, s
			side = max(side, 0) + 1
		}
		if hi-lo <= 1e-6 {
			break
		}
		next := math.NaN()
		switch {
		case sHi > 0:
			// Illinois: regula falsi on ln S, halving the stale end's
			// weight when the same end has been kept twice.
			fl, fh := math.Log(sLo/budget), math.Log(sHi/budget)
			if side <= -2 {
				fh /= 2
			} else if side >= 2 {
				fl /= 2
			}
			next = lo + (hi-lo)*fl/(fl-fh)
		case s > 0 && ds < 0:
			next = x - math.Log(s/budget)*s/ds
		}
		if !(next > lo && next < hi) {
			next = lo + (hi-lo)/2
		}
		x = next
		s, ds = eval(x)
	}
	sHi, _ = eval(hi)
	if !(sLo >= budget && sHi <= budget && sLo > sHi) {
		return x, errNoConvergence
	}
	theta := (budget - sHi) / (sLo - sHi)
	for i := range freq {
		freq[i] += theta * (atLo[i] - freq[i])
	}
	return hi, nil
}

// solvePages finds the multiplier m at which the frequencies page(p, m)
// of the pages that change (each with its derivative in ln m) sum to the
// budget, searching down from ln m = hi, where the sum is at most the
// budget (solveMultiplier), and leaves them in freq; pages that never
// change get none. The caller has checked the request and served the
// trivial cases.
func solvePages(pages []Page, budget float64, freq []float64, hi float64, page func(p Page, m float64) (f, df float64)) (float64, error) {
	eval := func(x float64) (s, ds float64) {
		m := math.Exp(x)
		return SumChunks(len(pages), func(lo, hi int) (s, ds float64) {
			for i, p := range pages[lo:hi] {
				freq[lo+i] = 0
				if p.Rate > 0 {
					f, df := page(p, m)
					freq[lo+i] = f
					s, ds = s+f, ds+df
				}
			}
			return s, ds
		})
	}
	x, err := solveMultiplier(eval, hi, budget, freq)
	return math.Exp(x), err
}

// chunks is how many pieces SumChunks cuts the pages into: fixed, so that
// the sum's rounding, and with it the allocation, does not depend on the
// number of CPUs.
const chunks = 64

// SumChunks returns Σ fn over [0, n) cut into chunks, the chunks run on up
// to GOMAXPROCS goroutines and added in order (below 2^14 items, fn over
// all of them at once): the passes of the allocations over their pages.
func SumChunks(n int, fn func(lo, hi int) (s, ds float64)) (s, ds float64) {
	if n < 1<<14 {
		return fn(0, n)
	}
	var parts [chunks][2]float64
	var next atomic.Int32
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), chunks) {
		wg.Go(func() {
			for c := int(next.Add(1)) - 1; c < chunks; c = int(next.Add(1)) - 1 {
				parts[c][0], parts[c][1] = fn(c*n/chunks, (c+1)*n/chunks)
			}
		})
	}
	wg.Wait()
	for _, p := range parts {
		s += p[0]
		ds += p[1]
	}
	return s, ds
}
