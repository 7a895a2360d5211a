// Package change estimates how often a web page changes from what a crawler
// saw on its visits: the estimators of Cho's dissertation ch. 6 and paper
// 001's prior-seeded MLE (Ford, Grimes & Tassone), over one compact summary
// of a page's history.
//
// The model is the dissertation's: a page's changes form a Poisson process
// of rate λ, and each visit tells whether the page changed since the
// previous visit (an Observation), sometimes also when it was last modified.
// Units are seconds and changes per second throughout; r = λ/f, the number
// of changes per visit interval, is the dimensionless quantity the
// dissertation's bias figures are drawn against.
//
// A Stats accumulates a page's observations into fixed-size sufficient
// statistics (optionally forgetting old ones at a time constant τ), merges
// pages into site or group pools, and encodes in 100–200 bytes for
// the page's row. Every Estimator computes from a Stats.
//
// Which estimator to use:
//
//   - prior-mle (PriorMLE), the default: the irregular-interval MLE of
//     eq. 6.3 with paper 001's pseudo-data prior, so it has an answer from
//     the first visit, handles the crawler's uneven intervals and converges
//     to the MLE. Seed the prior from the page's site with
//     PriorFromPopulation, or blend in the site's data with Pooled, when new
//     pages of a site behave alike.
//   - lm-reduced (LMReduced) whenever the server's Last-Modified can be
//     trusted: practically unbiased at any visit rate, even after two visits
//     (§6.5), and its variance falls as visits get rarer.
//   - mle (MLE): eq. 6.3 without a prior, for analysis of complete
//     histories; it reports exact bounds when no change, or only changes,
//     were seen.
//   - improved (Improved): the closed form for regular visits (§6.4.2),
//     with an exact binomial confidence interval.
//   - bayes (Bayes): when the policy only needs a frequency class (§6.6).
//   - naive (Naive) and lm (LM): the biased estimators the dissertation
//     improves on, kept as baselines.
//
// All, ByName and the names above serve the CLI's -estimator flag. The
// public Bing freshness dataset, real crawl histories to try them on, is
// read by package dataset.
package change
