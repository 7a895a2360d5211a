package change

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Confidence is the level of every interval an estimator reports: two-sided
// 95 %, 2.5 % in each tail.
const Confidence = 0.95

const (
	// zConf is the standard normal quantile at 1 − (1 − Confidence)/2.
	zConf = 1.959963984540054
	// logTail is log((1 − Confidence)/2) = log 0.025, the log-probability
	// at which the exact tail bounds are drawn.
	logTail = -3.6888794541139363
)

// Estimate is what an estimator infers from a Stats.
type Estimate struct {
	// Rate is the estimated change rate λ in changes per second; 0 means no
	// change has been seen. It is never +Inf: histories where every visit
	// saw a change get a finite, documented substitute.
	Rate float64
	// Lo and Hi bound a Confidence interval for λ where the estimator has
	// one, else they are NaN. Hi may be +Inf when every visit saw a change.
	Lo, Hi float64
	// Class is the index of the most probable class for the Bayesian
	// estimator, else −1.
	Class int
	// OK is false when there is not enough data to estimate; Rate, Lo and
	// Hi are then NaN.
	OK bool
}

// notOK returns the Estimate of an estimator that has too little data.
func notOK() Estimate {
	return Estimate{Rate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Class: -1}
}

// point returns an Estimate of rate with no interval.
func point(rate float64) Estimate {
	return checked(Estimate{Rate: rate, Lo: math.NaN(), Hi: math.NaN(), Class: -1, OK: true})
}

// checked returns e, or notOK if its rate is not a finite number: only
// absurd Stats produce one, with intervals near the limits of float64 or
// decoded from foreign bytes (FuzzUnmarshalStats).
func checked(e Estimate) Estimate {
	if math.IsNaN(e.Rate) || math.IsInf(e.Rate, 0) {
		return notOK()
	}
	return e
}

// An Estimator infers a page's change rate from its Stats.
type Estimator interface {
	// Name is the short stable name used by the CLI's -estimator flag.
	Name() string
	// Estimate computes the estimate. It may write s's cached MLE root.
	Estimate(s *Stats) Estimate
}

// ErrUnknownEstimator is returned by ByName for a name no estimator has.
var ErrUnknownEstimator = errors.New("unknown change estimator")

// All returns one estimator of each kind with its defaults, in the order
// naive, improved, mle, lm, lm-reduced, bayes, prior-mle.
func All() []Estimator {
	b, err := NewBayes(DefaultClasses())
	if err != nil {
		panic(err) // DefaultClasses is valid; TestRegistry checks it.
	}
	return []Estimator{Naive{}, Improved{}, MLE{}, LM{}, LMReduced{}, b, PriorMLE{Prior: Paper001Prior()}}
}

// ByName returns the estimator of All with the given name.
func ByName(name string) (Estimator, error) {
	var names []string
	for _, e := range All() {
		if e.Name() == name {
			return e, nil
		}
		names = append(names, e.Name())
	}
	return nil, fmt.Errorf("%w %q (want one of %s)", ErrUnknownEstimator, name, strings.Join(names, ", "))
}

// Naive is the estimator X/T: changes seen over time watched (dissertation
// §6.4.1). It is biased low whenever changes are missed — by more than 10 %
// once the page changes more than 0.21 times per visit interval — and the
// bias does not shrink with more visits. It is kept as the baseline.
type Naive struct{}

// Name returns "naive".
func (Naive) Name() string { return "naive" }

// Estimate returns X/ΣI; it has no interval.
func (Naive) Estimate(s *Stats) Estimate {
	if !(s.n > 0 && s.sumI > 0) {
		return notOK()
	}
	// Dissertation §6.4.1: r̂ = X/n with r = λ/f, so λ̂ = X/T.
	return point(s.x / s.sumI)
}
