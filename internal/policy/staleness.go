package policy

import "math"

// StalenessCost is paper 001's cost model (Ford, Grimes & Tassone, §3): a
// page of Poisson change period Δ = 1/λ is crawled every t = r·Δ, each crawl
// costs Crawl (C_c) and each second the stored copy is stale costs Stale
// (C_s). Only the ratio C_c/C_s matters to the optimum. Both must be
// positive.
type StalenessCost struct {
	Crawl float64 // C_c, the cost of one crawl
	Stale float64 // C_s, the cost of one stale second
}

// Rate is the expected total cost per second of crawling a page of change
// period delta (seconds) every r·delta seconds (paper 001 §3, A.2):
// C(r) = [1 − (1 − e^{−r})/r]·C_s + C_c/(r·Δ).
func (c StalenessCost) Rate(delta, r float64) float64 {
	return em2(r)/r*c.Stale + c.Crawl/(r*delta)
}

// OptimalRatio is the cost-minimising ratio r* = t*/Δ for a page of change
// period delta (paper 001 §3, A.3): the root of e^r = (1 + r)/(1 − z) with
// z = C_c/(C_s·Δ). ok is false when z ≥ 1: the equation then has no
// positive root, the page goes stale faster than a crawl pays for itself,
// and the optimum is never to recrawl (the caller's cap interval applies).
//
// Taking logs, r − ln(1 + r) = −ln(1 − z): the same equation as Cho's
// freshness-optimal condition g(r) = μλ/w (OptimalFreshness), with z in the
// place of μλ/w, so it is solved by the same Lambert-W closed form.
func (c StalenessCost) OptimalRatio(delta float64) (r float64, ok bool) {
	z := c.Crawl / (c.Stale * delta)
	if !(z < 1) {
		return math.Inf(1), false
	}
	return invG(z), true
}

// Interval is paper 001's linear-shrinkage policy (§3.4, A.4): the next
// crawl interval t = r*·Δ̂ for the current estimate deltaHat of the change
// period, with r* recomputed from the estimate (the paper's simulations use
// the r* of the true Δ, a best case its footnote 1 admits). ok is false
// when r* does not exist; see OptimalRatio.
func (c StalenessCost) Interval(deltaHat float64) (t float64, ok bool) {
	r, ok := c.OptimalRatio(deltaHat)
	return r * deltaHat, ok
}

// VeryStaleProbability is the probability that a crawl interval of length
// t leaves a page of change period delta stale for at least m seconds
// (paper 001 §5.3, A.7): the staleness in one interval is t minus the time
// of the interval's first change, so it is 1 − e^{−(t−m)/Δ} when t > m and 0
// otherwise. With Δ known and t = r·Δ fixed, being stale for the whole
// interval (m = t) has probability 0; with Δ estimated, intervals longer
// than r·Δ carry this tail risk.
func VeryStaleProbability(t, m, delta float64) float64 {
	if t <= m {
		return 0
	}
	return -math.Expm1(-(t - m) / delta)
}

// ChangedShare is 1 − e^{−r}, the share of crawl intervals of length r·Δ in
// which a Poisson page changed (paper 001 §5.3, which mislabels it; see
// reproduce.Paper001Rows).
func ChangedShare(r float64) float64 { return -math.Expm1(-r) }
