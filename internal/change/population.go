package change

import "math"

// This file is the empirical-Bayes estimator over a grid of rate classes:
// dissertation §6.6's Bayesian classes made fine enough to cover any time
// scale, with the population's mixing weights learnt from the pages
// themselves (the nonparametric maximum-likelihood estimate of a mixing
// distribution, Laird 1978, by EM).
//
// Why: a page whose every visit saw a change has no finite MLE, and the
// substitutes (log(2n+1)/I, or a prior-seeded MLE) grow only with log n, so
// a page changing 24 times a day, visited every 5 days, looks like a page
// changing once a day for months and keeps being visited. The population
// knows better: among pages that changed at every one of their visits most
// change far faster than the visits, and the posterior says so after a few
// visits.

// Grid bounds: class k has rate 2^(gridMinExp + k/GridPerOctave) changes a
// second, from once in 136 years to 16 a second, so that one grid serves
// the crawler's clock at any time scale and the simulator's.
const (
	// GridPerOctave is the number of classes per doubling of the rate.
	GridPerOctave = 3
	gridMinExp    = -32
	gridMaxExp    = 4
	// GridLen is the number of classes.
	GridLen = (gridMaxExp-gridMinExp)*GridPerOctave + 1
)

// gridRates are the classes' rates, ascending.
var gridRates = func() [GridLen]float64 {
	var r [GridLen]float64
	for k := range r {
		r[k] = math.Exp2(gridMinExp + float64(k)/GridPerOctave)
	}
	return r
}()

// GridRate returns the rate of class k, changes per second.
func GridRate(k int) float64 { return gridRates[k] }

// Population is a mixing distribution π over the rate grid: the share of a
// population's pages in each class. It is the prior of the empirical-Bayes
// estimator (Rate). It is learnt either in batch, by EM over every page's
// likelihood (Fit, the simulator's policy.Online), or incrementally, as the
// sum of the pages' posteriors (Add, the crawler, which holds no list of
// its pages' Stats). The zero value is an empty population whose weights
// are uniform over the grid. A Population is not safe for concurrent use.
type Population struct {
	sum [GridLen]float64 // Σ over member pages of their posterior (n·π after Fit)
	n   float64          // the pages' total weight
}

// Weights appends π to dst: the members' mean posterior, or uniform when
// the population has no member.
func (p *Population) Weights(dst []float64) []float64 {
	for k := range p.sum {
		if p.n > 0 {
			dst = append(dst, max(p.sum[k], 0)/p.n)
		} else {
			dst = append(dst, 1.0/GridLen)
		}
	}
	return dst
}

// N returns the population's total weight, in pages.
func (p *Population) N() float64 { return p.n }

// Add adds w times the posterior post (GridLen values summing to 1) of one
// page to the population; a negative w removes a posterior added before.
// The crawler adds a page's posterior after each visit and removes the one
// it added at the previous visit: that is one step of an online EM (each
// page's term of the EM mean is refreshed when the page is seen, under the
// weights of that moment, where batch EM refreshes every page's at once).
func (p *Population) Add(post []float64, w float64) {
	for k := range p.sum {
		p.sum[k] += w * post[k]
	}
	p.n += w
	if p.n < 1e-9 { // rounding after removing every page
		*p = Population{}
	}
}

// LogLikelihood appends to dst the log-likelihood of s under each class:
// dissertation eq. 6.7's factor Π (1 − e^(−λ t_c)) · e^(−λ Σ t_u), the
// changed intervals at their Stats bin means, the unchanged ones through
// their exact sum; with decay the weights act as exponents, as in Bayes.
// log(1 − e^(−λm)) comes from logChangedTable (within 1e-5 of the exact
// value, TestLogChangedTable), so that a page costs one log2 a bin instead
// of a log and an exp a bin and class.
func LogLikelihood(s *Stats, dst []float64) []float64 {
	start := len(dst)
	for _, lambda := range gridRates {
		dst = append(dst, -lambda*s.sumU)
	}
	if s.minC == 0 {
		return dst
	}
	ll := dst[start:]
	for i := int(s.lo); i <= int(s.hi); i++ {
		b := s.bins[i]
		if !(b.w > 0 && b.t > 0) {
			continue
		}
		// log2(λ_k m) = gridMinExp + k/GridPerOctave + log2 m.
		v0 := gridMinExp + math.Log2(b.t/b.w)
		for k := range ll {
			ll[k] += b.w * logChanged(v0+float64(k)/GridPerOctave)
		}
	}
	return dst
}

// logChanged returns log(1 − e^(−x)) for x = 2^v: by linear interpolation
// in logChangedTable inside its range, log x below it (the next term, −x/2,
// is under 2^−17) and 0 above it (the exact value is above −e^(−64)).
func logChanged(v float64) float64 {
	u := (v - tableMinV) * tablePerUnit
	switch {
	case u < 0:
		return v * math.Ln2
	case u >= tableLen-1:
		return 0
	}
	j := int(u)
	f := u - float64(j)
	return logChangedTable[j] + f*(logChangedTable[j+1]-logChangedTable[j])
}

// The table of log(1 − e^(−2^v)) for v in [tableMinV, tableMaxV] at
// tablePerUnit points per unit of v. Linear interpolation errs by at most
// h²/8·max|g″| with h = 1/128 and |g″| < 0.5 (g as a function of v): 4e-6.
const (
	tableMinV    = -18
	tableMaxV    = 6
	tablePerUnit = 128
	tableLen     = (tableMaxV-tableMinV)*tablePerUnit + 1
)

var logChangedTable = func() [tableLen]float64 {
	var t [tableLen]float64
	for j := range t {
		x := math.Exp2(tableMinV + float64(j)/tablePerUnit)
		t[j] = math.Log(-math.Expm1(-x))
	}
	return t
}()

// RelLikelihood appends to dst the likelihood of s under each class
// divided by its largest value, in float32: what Fit needs of a page,
// 4 bytes a class. Classes below e^(−80) of the largest are 0.
func RelLikelihood(s *Stats, dst []float32) []float32 {
	var ll [GridLen]float64
	LogLikelihood(s, ll[:0])
	top := math.Inf(-1)
	for _, v := range ll {
		top = max(top, v)
	}
	for _, v := range ll {
		if d := v - top; d > -80 {
			dst = append(dst, float32(math.Exp(d)))
		} else {
			dst = append(dst, 0)
		}
	}
	return dst
}

// Posterior appends to dst the posterior of each class given a page's
// relative likelihood lik (RelLikelihood) under the weights pi, and
// returns it. With no likelihood mass under pi (lik 0 wherever pi is not)
// it returns pi.
func Posterior(pi []float64, lik []float32, dst []float64) []float64 {
	start := len(dst)
	z := 0.0
	for k, l := range lik {
		v := pi[k] * float64(l)
		dst = append(dst, v)
		z += v
	}
	if !(z > 0) {
		return append(dst[:start], pi...)
	}
	for k := start; k < len(dst); k++ {
		dst[k] /= z
	}
	return dst
}

// Fit runs iters EM steps (Laird 1978) on the population's weights from the
// relative likelihoods of its pages, lik holding GridLen values a page,
// page after page; the weights it starts from are the current ones (warm
// start). One step is π_k ← mean over pages of π_k L_ik / Σ_j π_j L_ij, the
// mean posterior; each step raises the marginal likelihood Π_i Σ_k π_k L_ik
// and the fixed point is the NPMLE restricted to the grid. The population
// then has one member per page. A step costs one multiply-add per page and
// class.
func (p *Population) Fit(lik []float32, iters int) {
	pages := len(lik) / GridLen
	if pages == 0 {
		return
	}
	pi := p.Weights(make([]float64, 0, GridLen))
	var acc [GridLen]float64
	for range iters {
		acc = [GridLen]float64{}
		for i := range pages {
			row := lik[i*GridLen : (i+1)*GridLen]
			z := 0.0
			for k, l := range row {
				z += pi[k] * float64(l)
			}
			if !(z > 0) {
				continue
			}
			inv := 1 / z
			for k, l := range row {
				acc[k] += float64(l) * inv
			}
		}
		total := 0.0
		for k := range pi {
			pi[k] *= acc[k]
			total += pi[k]
		}
		for k := range pi {
			pi[k] /= total
		}
	}
	p.n = float64(pages)
	for k := range pi {
		p.sum[k] = pi[k] * p.n
	}
}

// FreshnessRate returns the rate whose freshness at visit frequency f
// equals the posterior's expected freshness there:
//
//	F(λ̂/f) = Σ_k post_k F(λ_k/f),  F(r) = (1 − e^(−r))/r
//
// (dissertation §5.4, fixed order). This is the functional the freshness
// plan needs: the posterior mean of λ is ruled by classes far faster than
// the visits, which the data cannot tell apart and which are all worth
// nothing (F ≈ f/λ), and the posterior mean of 1/λ by slow ones, all worth
// 1; the expected freshness weighs each class by what a visit at f buys.
// A page whose every visit saw a change gets a rate that the plan gives up
// once the fast classes carry nearly all the posterior, and a page that
// might be weekly or hourly keeps the weekly part's value. post holds
// GridLen values summing to 1; f > 0.
func FreshnessRate(post []float64, f float64) float64 {
	ef := 0.0
	for k, q := range post {
		if q > 1e-12 {
			r := gridRates[k] / f
			ef += q * freshnessOf(r)
		}
	}
	return invFreshness(ef) * f
}

// PosteriorMean returns Σ_k post_k λ_k.
func PosteriorMean(post []float64) float64 {
	m := 0.0
	for k, q := range post {
		m += q * gridRates[k]
	}
	return m
}

// freshnessOf is F(r) = (1 − e^(−r))/r, 1 at r = 0.
func freshnessOf(r float64) float64 {
	if r < 1e-8 {
		return 1 - r/2
	}
	return -math.Expm1(-r) / r
}

// invFreshness returns the r with F(r) = y for y in (0, 1): 0 for y ≥ 1
// and +Inf for y ≤ 0. It solves h(r) = 1/F(r) = r/(1 − e^(−r)) = 1/y by
// Newton's method from r = 1/y: h is increasing and convex with h(r) > r,
// so the start lies right of the root and the iterates fall monotonically
// onto it.
func invFreshness(y float64) float64 {
	switch {
	case !(y < 1):
		return 0
	case !(y > 0):
		return math.Inf(1)
	}
	target := 1 / y
	r := target
	for range 100 {
		em := -math.Expm1(-r) // 1 − e^(−r)
		h := r / em
		dh := (em - r*math.Exp(-r)) / (em * em)
		step := (h - target) / dh
		if !(step > 1e-12*r) || !(dh > 0) {
			break
		}
		r -= step
	}
	return r
}

// Empirical is the empirical-Bayes estimator over the rate grid: the
// page's posterior under the population's weights Pop (dissertation §6.6's
// eq. 6.7 on GridLen classes), summarised by FreshnessRate at the visit
// frequency Freq, or, when Freq is 0, at the page's own mean visit
// frequency n/ΣI. Pages whose Last-Modified Fallback would use keep the
// bias-reduced Last-Modified estimator (§6.5), which is unbiased at any
// visit rate; pages with no observation, or a population with no member,
// get Fallback's estimate.
type Empirical struct {
	Pop      *Population
	Freq     float64
	Fallback Auto
}

// Name returns "empirical-bayes".
func (Empirical) Name() string { return "empirical-bayes" }

// Estimate returns the estimate described on Empirical. Its interval is
// NaN.
func (e Empirical) Estimate(s *Stats) Estimate {
	if est, ok := e.Fallback.lastModified(s); ok {
		return est
	}
	if !(s.n > 0 && s.sumI > 0) || e.Pop == nil || !(e.Pop.N() > 0) {
		return e.Fallback.Estimate(s)
	}
	var lik [GridLen]float32
	var pi, post [GridLen]float64
	Posterior(e.Pop.Weights(pi[:0]), RelLikelihood(s, lik[:0]), post[:0])
	f := e.Freq
	if !(f > 0) {
		f = s.n / s.sumI
	}
	return point(FreshnessRate(post[:], f))
}
