package study

import (
	"fmt"

	"github.com/freshcrawl/freshcrawl/internal/change"
)

// The study's estimators: every entry of change.All, two more priors for
// prior-mle, and the crawler's rule.
const (
	// PriorEB is prior-mle with the empirical-Bayes prior: PriorFromRate at
	// the geometric-mean rate of the study's population of pages (the rates
	// of the r grid), what the crawler learns from a site's pooled history.
	PriorEB = "prior-mle-eb"
	// Prior10x is prior-mle with paper 001's prior scaled so that its rate
	// is 10 times the page's true rate: a prior as wrong as paper 001's
	// 57.5 h is for a page that changes every 24 days.
	Prior10x = "prior-mle-10x"
	// Auto is the crawler's rule, change.Auto: lm-reduced where
	// Last-Modified is available and has shown two changes, else prior-mle
	// with the empirical-Bayes prior.
	Auto = "auto"
	// AutoEarly is the rule the study rejected: lm-reduced as soon as the
	// page has two Last-Modified observations, whether or not they saw a
	// change. Before two changes lm-reduced's estimate is 0 (no change) or
	// rests on one change, and the prior does better.
	AutoEarly = "auto-early"
)

// lmMin is AutoEarly's threshold of Last-Modified observations.
const lmMin = 2

// entry is one estimator of the study.
type entry struct {
	name string
	lm   bool // reads Last-Modified: reported only where it is available
	est  change.Estimator
}

// estimators returns the study's estimators for a page of true rate lambda
// in a population of geometric-mean rate popRate: those that ignore
// Last-Modified first, then those that read it. The plain prior-mle is
// change.All's, paper 001's prior at its absolute 57.5 h.
func estimators(lambda, popRate float64) ([]entry, error) {
	eb, err := change.PriorFromRate(popRate, 1)
	if err != nil {
		return nil, fmt.Errorf("empirical-Bayes prior: %w", err)
	}
	wrong := change.Paper001Prior()
	k := wrong.Rate() / (10 * lambda)
	wrong.Changed *= k
	wrong.Unchanged *= k

	var plain, lm []entry
	for _, e := range change.All() {
		switch e.(type) {
		case change.LM, change.LMReduced:
			lm = append(lm, entry{e.Name(), true, e})
		default:
			plain = append(plain, entry{e.Name(), false, e})
		}
	}
	plain = append(plain,
		entry{PriorEB, false, change.PriorMLE{Prior: eb}},
		entry{Prior10x, false, change.PriorMLE{Prior: wrong}},
		entry{Auto, false, change.Auto{Prior: eb}},
	)
	lm = append(lm,
		entry{Auto, true, change.Auto{Prior: eb, LastModified: true}},
		entry{AutoEarly, true, autoEarly{prior: eb}},
	)
	return append(plain, lm...), nil
}

// autoEarly is AutoEarly, the rule the study rejected (see AutoEarly).
type autoEarly struct{ prior change.Prior }

// Name returns "auto-early".
func (autoEarly) Name() string { return AutoEarly }

// Estimate is lm-reduced's estimate once the page has lmMin Last-Modified
// observations, else prior-mle's.
func (a autoEarly) Estimate(s *change.Stats) change.Estimate {
	if s.LMCount() >= lmMin {
		if e := (change.LMReduced{}).Estimate(s); e.OK {
			return e
		}
	}
	return change.PriorMLE{Prior: a.prior}.Estimate(s)
}
