package change

import "math"

// improvedA is the pseudo-count a of the improved estimator
// −log((X̄ + a)/(n + a)). Dissertation §6.4.2 (Fig. 6.4) picks 0.5, the limit
// of the a that solves n·log((n+a)/(n−1+a)) = 1 and so cancels the
// first-order bias.
const improvedA = 0.5

// Improved is the dissertation's estimator for visits at a regular interval
// that only tell whether the page changed (§6.4.2):
//
//	r̂ = −log((X̄ + 0.5)/(n + 0.5)),   λ̂ = r̂·f
//
// where X̄ = n − X is the number of visits that saw no change and f = n/ΣI is
// the visit frequency (for irregular visits, the reciprocal of the mean
// interval; MLE is the right estimator there). Unlike X/T its bias shrinks as
// n grows: with 20 visits it stays within 10 % while r = λ/f < 3.47. When
// every visit saw a change it saturates at log(2n+1)·f.
//
// Its interval is Clopper–Pearson's exact binomial interval for
// q = e^(−r) = Pr{no change in an interval} (Lemma 6.1), estimated by X̄/n,
// mapped through r = −log q, which is monotone, so the coverage is exactly
// that of the binomial interval: at least 95 % for every r and n (verified
// by exact enumeration in TestImprovedCoverage). The counts may be
// fractional (decay); the Beta quantiles take real parameters.
type Improved struct{}

// Name returns "improved".
func (Improved) Name() string { return "improved" }

// Estimate returns λ̂ = r̂·f with the Clopper–Pearson interval.
func (Improved) Estimate(s *Stats) Estimate { return checked(improved(s)) }

func improved(s *Stats) Estimate {
	if !(s.n > 0 && s.sumI > 0) {
		return notOK()
	}
	n := s.n
	k := math.Max(0, n-s.x) // X̄, the visits with no change
	f := n / s.sumI
	// Dissertation §6.4.2, final estimator: r̂ = −log((X̄+0.5)/(n+0.5)).
	r := -math.Log((k + improvedA) / (n + improvedA))
	// Clopper–Pearson bounds on q from Beta quantiles:
	// q_lo = B⁻¹(α/2; X̄, n−X̄+1), q_hi = B⁻¹(1−α/2; X̄+1, n−X̄).
	const tail = (1 - Confidence) / 2
	qLo, qHi := 0.0, 1.0
	if k > 0 {
		qLo = invRegIncBeta(k, n-k+1, tail)
	}
	if k < n {
		qHi = invRegIncBeta(k+1, n-k, 1-tail)
	}
	return Estimate{
		Rate:  r * f,
		Lo:    math.Max(0, -math.Log(qHi)) * f, // +0, not −0, when q_hi = 1
		Hi:    -math.Log(qLo) * f,              // +Inf when no visit was unchanged
		Class: -1,
		OK:    true,
	}
}
