package policy

import "math"

// Harmonic staleness (Kolobov, Peres, Lubetzky and Horvitz, "Optimal
// Freshness Crawl Under Politeness Constraints", SIGIR 2019, and Kolobov
// et al., NeurIPS 2019): a copy that has missed N changes of its page
// costs H_N = 1 + 1/2 + … + 1/N (H_0 = 0), so every missed change costs
// something and no page is ever worth giving up. Those papers crawl each
// page as a Poisson process, where the cost is ln(1 + λ/ρ); freshcrawl
// visits a page at evenly spaced times, so here it is derived for
// periodic visits.
//
// A page of Poisson rate λ last visited t ago has missed N ~ Poisson(λt)
// changes, and E[H_N] = ∫₀¹ (1 − e^{−λt s})/s ds = Ein(λt), the entire
// exponential integral (H_N = ∫₀¹ (1 − uᴺ)/(1 − u) du, E[uᴺ] =
// e^{−λt(1−u)}). Averaged over a visit interval I, with r = λI:
//
//	Ḡ(r) = (1/r) ∫₀ʳ Ein(y) dy = Ein(r) − 1 + (1 − e^{−r})/r
//	     = Σ_{k≥1} (−1)^{k+1} rᵏ/(k·(k+1)!),
//
// by parts (∫ Ein = y·Ein(y) − ∫ (1 − e^{−y}) dy). The optimum of
// Σ w_i Ḡ(λ_i/f_i) under Σ f_i = B: ∂Ḡ/∂f = −Ḡ′(r)·r²/λ and r²Ḡ′(r) =
// r − 1 + e^{−r} (em2), so the Lagrange conditions are
// w_i·em2(λ_i/f_i)/λ_i = ν. em2 rises from 0 without bound, so every page
// that changes gets a visit: f_i = λ_i/em2⁻¹(νλ_i/w_i), with
// em2⁻¹(c) = c + 1 + W₀(−e^{−(c+1)}). Ḡ is convex in f (its derivative,
// −w·em2(λ/f)/λ, rises with f), so this point is the global minimum.

// HarmonicStaleness is Ḡ(λ/f): the time-averaged expected harmonic
// penalty of a page of change rate lambda visited every 1/f; +Inf for a
// page that changes and is never visited, 0 for one that never changes.
func HarmonicStaleness(lambda, f float64) float64 {
	switch {
	case lambda == 0:
		return 0
	case f == 0:
		return math.Inf(1)
	}
	return harmonicG(lambda / f)
}

// harmonicG is Ḡ(r): summed from its series below r = 4 (alternating,
// its largest term under 1, so it loses under 1e-15; Ein(r) − 1 + … would
// cancel there), above from Ein (ein).
func harmonicG(r float64) float64 {
	if r < 4 {
		term, sum := 1.0, 0.0 // term = (−1)^{k+1} rᵏ/(k+1)!
		for k := 1; k < 60; k++ {
			term *= r / float64(k+1)
			if k > 1 {
				term = -term
			}
			t := term / float64(k)
			sum += t
			if math.Abs(t) < 1e-17*math.Abs(sum) {
				break
			}
		}
		return sum
	}
	return ein(r) - 1 + oneMinusExp(r)/r
}

// HarmonicStretch is λ·∫₀ᵀ E[H_{N(t)}] dt at y = λT for a Poisson page of
// rate λ that changed at time 0 and has not been visited since: the
// harmonic penalty its copy is expected to accrue over the first T of a
// stale stretch, in units of 1/λ. N(t) = 1 + M with M ~ Poisson(λt), and
// E[H_{1+M}] = E[H_M] + E[1/(1+M)] = Ein(y) + (1 − e^{−y})/y, whose
// integral from 0 to Y is (Y + 1)·Ein(Y) − em2(Y) (by parts, as Ḡ). The
// simulator measures a run's time-averaged harmonic staleness with it
// without drawing the changes after a stretch's first.
func HarmonicStretch(y float64) float64 {
	if !(y > 0) {
		return 0
	}
	return (y+1)*ein(y) - em2(y)
}

// ein is the entire exponential integral Ein(y) = ∫₀ʸ (1 − e^{−s})/s ds
// = Σ_{k≥1} (−1)^{k+1} yᵏ/(k·k!): the series below y = 4 (its largest
// term under 4, so it loses under a digit), γ + ln y + E₁(y) above.
func ein(y float64) float64 {
	if y < 4 {
		term, sum := -1.0, 0.0 // term = (−1)^{k+1} yᵏ/k!
		for k := 1; k < 80; k++ {
			term *= -y / float64(k)
			t := term / float64(k)
			sum += t
			if math.Abs(t) < 1e-17*math.Abs(sum) {
				break
			}
		}
		return sum
	}
	return eulerGamma + math.Log(y) + expint1(y)
}

// eulerGamma is the Euler–Mascheroni constant γ.
const eulerGamma = 0.57721566490153286061

// expint1 is the exponential integral E₁(x) = ∫ₓ^∞ e^{−t}/t dt for x ≥ 1,
// from its continued fraction e^{−x}/(x + 1 − 1²/(x + 3 − 2²/(x + 5 − …)))
// by the modified Lentz method (Numerical Recipes §6.3).
func expint1(x float64) float64 {
	const tiny = 1e-300
	b := x + 1
	c, d := 1/tiny, 1/b
	h := d
	for i := 1; i < 200; i++ {
		a := -float64(i * i)
		b += 2
		d = 1 / (a*d + b)
		c = b + a/c
		del := c * d
		h *= del
		if math.Abs(del-1) < 1e-16 {
			break
		}
	}
	return h * math.Exp(-x)
}

// invEm2 is the inverse of em2(r) = r − 1 + e^{−r} on [0, ∞), by Halley's
// iteration from r = s + s²/6 + s³/36, s = √(2c) (the series inverted),
// for c < 1 and from the asymptote c + 1 − e^{−(c+1)} above (the closed
// form's W₀(−x) ≈ −x), with one exponential a step: it runs once a page
// per pass of an allocation.
func invEm2(c float64) float64 {
	if !(c > 0) {
		return 0
	}
	var r float64
	if c < 1 {
		s := math.Sqrt(2 * c)
		r = s * (1 + s*(1.0/6+s/36))
	} else {
		r = c + 1 - math.Exp(-(c + 1))
	}
	for range 50 {
		var phi, d1, d2 float64 // em2(r) − c and its derivatives
		if r < 0.5 {
			d1 = -math.Expm1(-r)
			phi, d2 = em2(r)-c, 1-d1
		} else {
			e := math.Exp(-r) // r − 1 + e loses under a digit here
			phi, d1, d2 = r-1+e-c, 1-e, e
		}
		var done bool
		if math.Abs(phi) <= 1e-14*c {
			break
		}
		if r, done = halley(r, phi, d1, d2); done {
			break
		}
	}
	return r
}

// HarmonicFrequency is the harmonic-optimal frequency of one page of rate
// lambda and weight w at multiplier nu: λ/em2⁻¹(νλ/w), positive for every
// page that changes.
func HarmonicFrequency(lambda, w, nu float64) float64 {
	if lambda == 0 {
		return 0
	}
	return lambda / invEm2(nu*lambda/w)
}

// OptimalHarmonic minimises the collection's weighted time-averaged
// harmonic staleness Σ w_i Ḡ(λ_i/f_i) under evenly spaced visits and the
// budget Σ f_i = B (see HarmonicStaleness). No page that changes is given
// up, unlike under OptimalFreshness; where OptimalAge counts the time a
// copy has been stale, this counts the changes it missed, the first of
// them most. ν is found as μ is in OptimalFreshness.
//
// Pages that never change get no visits; if no page changes the budget is
// spread uniformly. The frequencies sum to B within SumTolerance.
type OptimalHarmonic struct{}

// Allocate implements Allocator.
func (o OptimalHarmonic) Allocate(pages []Page, budget float64, freq []float64) error {
	_, err := o.Solve(pages, budget, freq)
	return err
}

// Solve is Allocate that also returns the multiplier ν (the weighted
// harmonic staleness one more visit per second saves, in seconds·weight).
func (OptimalHarmonic) Solve(pages []Page, budget float64, freq []float64) (nu float64, err error) {
	if err := check(pages, budget, freq); err != nil {
		return 0, err
	}
	// em2(r) ≤ r²/2 and em2(r) ≤ r bound f from above by √(λw/(2ν)) and
	// w/ν, so either sum at ν = (K/B)² or W/B is at most B.
	var k, sw float64
	for _, p := range pages {
		if p.Rate > 0 {
			k += math.Sqrt(p.Rate * p.weight() / 2)
			sw += p.weight()
		}
	}
	if done, err := trivial(pages, budget, freq, k == 0); done {
		return math.Inf(1), err
	}
	return solvePages(pages, budget, freq, min(2*math.Log(k/budget), math.Log(sw/budget)), func(p Page, nu float64) (f, df float64) {
		c := nu * p.Rate / p.weight()
		r := invEm2(c)
		// d f/d ln ν = −(λ/r²)·c/em2′(r).
		return p.Rate / r, -p.Rate * c / (r * r * oneMinusExp(r))
	})
}
