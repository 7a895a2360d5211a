package change

// Auto is the crawler's estimator, chosen by the accuracy study
// (freshcrawl accuracy, package study): the bias-reduced
// Last-Modified estimator (§6.5) for a page whose modification times can be
// used and have shown at least AutoLMChanges changes, else paper 001's
// prior-seeded MLE with Prior.
//
// The study's reasons: without modification times, prior-mle with a prior
// learnt from the page's population has the smallest error at few visits
// on regular and irregular visits alike (improved collapses on random
// visits, mle spreads widely at n ≤ 10); with them, lm-reduced is the only
// estimator whose bias does not depend on r, but before it has seen two
// changes it answers 0 for most slowly changing pages, where the prior does
// better.
type Auto struct {
	// Prior seeds the MLE: the page's site's learnt prior, or paper 001's.
	Prior Prior
	// LastModified reports whether the page's modification times may be
	// used (its site's Last-Modified or sitemaps have earned trust).
	LastModified bool
}

// AutoLMChanges is the changes the Last-Modified observations of a page
// must have shown before Auto uses them.
const AutoLMChanges = 2

// Name returns "auto".
func (Auto) Name() string { return "auto" }

// Estimate returns lm-reduced's estimate where allowed, else prior-mle's.
// Last-Modified must be on nine in ten of the page's observations: an
// estimator fed only those that had it would see a biased sample.
func (a Auto) Estimate(s *Stats) Estimate {
	if e, ok := a.lastModified(s); ok {
		return e
	}
	return PriorMLE{Prior: a.Prior}.Estimate(s)
}

// UsesLastModified reports whether Estimate answers lm-reduced's estimate
// for s.
func (a Auto) UsesLastModified(s *Stats) bool {
	_, ok := a.lastModified(s)
	return ok
}

// lastModified returns lm-reduced's estimate and true where Auto uses it.
func (a Auto) lastModified(s *Stats) (Estimate, bool) {
	if a.LastModified && s.lmX >= AutoLMChanges && 10*s.lmCount >= 9*s.count {
		if e := (LMReduced{}).Estimate(s); e.OK {
			return e, true
		}
	}
	return Estimate{}, false
}
