package change

import (
	"errors"
	"fmt"
	"math"
)

// Classes are the frequency classes of the Bayesian estimator.
type Classes struct {
	// Rates are the classes' change rates in changes per second, each
	// positive and finite.
	Rates []float64
	// Prior holds the prior probability of each class, in the order of
	// Rates; it need not sum to 1. Nil means uniform.
	Prior []float64
}

// DefaultClasses returns five classes at the representative rates of
// dissertation ch. 4 and Table 5.7: once a day, a week, a month (30 days),
// four months (120 days) and a year (365 days), with a uniform prior (the
// seeds print only two of the five population shares; spec §4.6).
func DefaultClasses() Classes {
	const day = 86400
	return Classes{Rates: []float64{1.0 / day, 1.0 / (7 * day), 1.0 / (30 * day), 1.0 / (120 * day), 1.0 / (365 * day)}}
}

// Bayes places a page in one of a few frequency classes by Bayesian
// inference (dissertation §6.6). After observations E the posterior is
// eq. 6.7 generalised to K classes:
//
//	P(C_k | E) ∝ P(C_k) · Π_j (changed_j ? 1 − e^(−λ_k t_j) : e^(−λ_k t_j))
//
// the Poisson probability of each observation under class k. The changed
// intervals enter at their Stats bin means; the unchanged ones through their
// exact sum. With decay the weights act as exponents (a tempered likelihood).
//
// Estimate.Class is the most probable class (argmax, as in the dissertation,
// which needs no threshold) and Rate is that class's rate, not the posterior
// mean, so that a policy gets one of its configured rates. Posterior returns
// the whole distribution. Use it when the policy only needs a class (crawl
// weekly or monthly, Example 6.7); access is most informative between the
// class frequencies (Fig. 6.17).
type Bayes struct {
	rates    []float64
	logPrior []float64
}

// NewBayes returns the Bayesian estimator over c, or an error if c has no
// class, a rate that is not positive and finite, or a prior that does not
// match the rates, is negative or sums to 0.
func NewBayes(c Classes) (Bayes, error) {
	k := len(c.Rates)
	if k == 0 {
		return Bayes{}, errors.New("bayes: no classes")
	}
	if c.Prior != nil && len(c.Prior) != k {
		return Bayes{}, fmt.Errorf("bayes: %d prior probabilities for %d classes", len(c.Prior), k)
	}
	b := Bayes{rates: make([]float64, k), logPrior: make([]float64, k)}
	var sum float64
	for i, r := range c.Rates {
		if !(r > 0) || math.IsInf(r, 1) {
			return Bayes{}, fmt.Errorf("bayes: class %d has rate %v", i, r)
		}
		b.rates[i] = r
		p := 1.0
		if c.Prior != nil {
			p = c.Prior[i]
		}
		if !(p >= 0) || math.IsInf(p, 1) {
			return Bayes{}, fmt.Errorf("bayes: class %d has prior %v", i, p)
		}
		sum += p
	}
	if !(sum > 0) {
		return Bayes{}, errors.New("bayes: prior sums to 0")
	}
	for i := range b.logPrior {
		p := 1.0
		if c.Prior != nil {
			p = c.Prior[i]
		}
		b.logPrior[i] = math.Log(p / sum)
	}
	return b, nil
}

// Name returns "bayes".
func (Bayes) Name() string { return "bayes" }

// Estimate returns the most probable class and its rate; OK is false with no
// observation or no class.
func (b Bayes) Estimate(s *Stats) Estimate {
	if !(s.n > 0) || len(b.rates) == 0 {
		return notOK()
	}
	p := problem{s: s}
	best, bestLP := -1, math.Inf(-1)
	for k := range b.rates {
		if lp := b.logPost(&p, s.sumU, k); lp > bestLP || best < 0 {
			best, bestLP = k, lp
		}
	}
	return Estimate{Rate: b.rates[best], Lo: math.NaN(), Hi: math.NaN(), Class: best, OK: true}
}

// Posterior appends to dst the posterior probability of each class given s
// (the prior when s is empty) and returns the extended slice.
func (b Bayes) Posterior(s *Stats, dst []float64) []float64 {
	p := problem{s: s}
	start := len(dst)
	maxLP := math.Inf(-1)
	for k := range b.rates {
		lp := b.logPost(&p, s.sumU, k)
		dst = append(dst, lp)
		maxLP = math.Max(maxLP, lp)
	}
	// Normalise in log space so long histories do not underflow.
	var sum float64
	for i := start; i < len(dst); i++ {
		dst[i] = math.Exp(dst[i] - maxLP)
		sum += dst[i]
	}
	for i := start; i < len(dst); i++ {
		dst[i] /= sum
	}
	return dst
}

// logPost returns the unnormalised log posterior of class k: eq. 6.7's
// numerator, log P(C_k) + Σ w·log(1 − e^(−λ_k t_c)) − λ_k Σ t_u.
func (b Bayes) logPost(p *problem, sumU float64, k int) float64 {
	lambda := b.rates[k]
	return b.logPrior[k] - lambda*sumU + p.logAllChanged(lambda)
}
