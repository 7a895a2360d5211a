package change

import (
	"errors"
	"fmt"
	"math"
)

// Prior is a prior on a page's change rate expressed as pseudo-data, the
// device of paper 001 (§A.6, after Grimes & Ford 2008): Weight copies of one
// interval of length Changed in which a change was seen and one of length
// Unchanged in which none was, added to the page's own observations before
// solving eq. 6.3. The pseudo-likelihood is
// ((1 − e^(−λ·Changed))·e^(−λ·Unchanged))^Weight, so the estimate is defined
// from the first visit and the prior is swamped as real data accumulate.
type Prior struct {
	Changed   float64 // length of the changed pseudo-interval, seconds
	Unchanged float64 // length of the unchanged pseudo-interval, seconds
	Weight    float64 // how many copies of the pair; paper 001 uses 1
}

// paperRatio is Unchanged/Changed in paper 001's prior: 57 h over 1 h.
const paperRatio = 57

// Paper001Prior returns paper 001's prior: one change seen after 1 hour and
// none after 57 hours, fitted to 10,000 pages of the Google index. Alone it
// gives λ = ln(58/57) per hour, a change period of about 57.5 h.
func Paper001Prior() Prior {
	return Prior{Changed: 3600, Unchanged: paperRatio * 3600, Weight: 1}
}

// PriorFromRate returns a prior of the given weight whose pseudo-data alone
// estimate rate lambda0 (changes per second). It keeps paper 001's shape
// (unchanged = 57 × changed) and scales both intervals: the pseudo-only root
// of eq. 6.3, 1/(e^(λ·c) − 1) = 57, is λ = ln(58/57)/c, so c = ln(58/57)/λ0.
// Because λ0·c = 0.0174 is small the pseudo-likelihood is close to
// λ·e^(−λ/λ0): one change in a time 1/λ0. Paper001Prior is
// PriorFromRate(ln(58/57)/3600, 1).
func PriorFromRate(lambda0, weight float64) (Prior, error) {
	if !(lambda0 > 0) || math.IsInf(lambda0, 1) {
		return Prior{}, fmt.Errorf("prior: rate %v is not positive and finite", lambda0)
	}
	if !(weight > 0) || math.IsInf(weight, 1) {
		return Prior{}, fmt.Errorf("prior: weight %v is not positive and finite", weight)
	}
	c := math.Log1p(1.0/paperRatio) / lambda0
	return Prior{Changed: c, Unchanged: paperRatio * c, Weight: weight}, nil
}

// PriorFromPopulation returns an empirical-Bayes prior for the pages of a
// site or URL-pattern group: PriorFromRate at the rate that PriorMLE with
// the base prior (paper 001's, on the caller's clock) estimates from
// pooled, the group's merged Stats. Going through the base prior keeps the
// rate positive and finite when the group has seen no change (or only
// changes) and leaves it near the base's while the group is small. The base
// must be on the same clock as the observations: paper 001's 57 h of
// pseudo-exposure would swamp a pool of a simulated web running 3,600
// times faster than the crawler's clock.
func PriorFromPopulation(pooled *Stats, base Prior, weight float64) (Prior, error) {
	if !base.valid() {
		return Prior{}, fmt.Errorf("prior: invalid base prior %+v", base)
	}
	p := *pooled // the estimate caches a hint; leave the caller's Stats alone
	est := PriorMLE{Prior: base}.Estimate(&p)
	return PriorFromRate(est.Rate, weight)
}

// Rate returns the change rate the pseudo-data alone estimate:
// ln(1 + Changed/Unchanged)/Changed.
func (p Prior) Rate() float64 { return math.Log1p(p.Changed/p.Unchanged) / p.Changed }

func (p Prior) valid() bool {
	return p.Changed > 0 && p.Unchanged > 0 && p.Weight > 0 &&
		!math.IsInf(p.Changed, 1) && !math.IsInf(p.Unchanged, 1) && !math.IsInf(p.Weight, 1)
}

// PriorMLE is paper 001's estimator for an evolving corpus (§A.6): the
// eq. 6.3 MLE on the page's observations plus Prior's pseudo-data. There is
// always a changed and an unchanged interval, so the root always exists and
// no special case is needed; with no observation at all it returns the
// prior's rate, which is how new pages get their first interval. It converges
// to the MLE as observations accumulate. This is the default for a crawler:
// defined from the first visit, right for irregular intervals, cheap to
// update (see BenchmarkUpdate).
//
// The interval is the MLE's Wald interval on log λ, with the pseudo-data
// counted in the information.
type PriorMLE struct {
	// Prior is the pseudo-data. The zero Prior means Paper001Prior.
	Prior Prior
}

// Name returns "prior-mle".
func (PriorMLE) Name() string { return "prior-mle" }

// Estimate solves eq. 6.3 on s plus the pseudo-data. OK is false only for a
// Prior that is neither zero nor valid.
func (e PriorMLE) Estimate(s *Stats) Estimate {
	pr := e.Prior
	if pr == (Prior{}) {
		pr = Paper001Prior()
	}
	if !pr.valid() {
		return notOK()
	}
	p := problem{s: s}
	p.pw, p.pm = pr.Weight, pr.Changed
	p.u = s.sumU + pr.Weight*pr.Unchanged
	lambda, info := p.solve(s.hint)
	s.hint = lambda
	lo, hi := waldLog(lambda, info)
	return checked(Estimate{Rate: lambda, Lo: lo, Hi: hi, Class: -1, OK: true})
}

// DefaultPoolK is Pooled's default K: ten observations, the number at which
// the improved estimator is within ±35 % of the truth with probability 0.75
// (dissertation Example 6.4).
const DefaultPoolK = 10

// ErrNoSite is returned by NewPooled for a nil site.
var ErrNoSite = errors.New("pooled: no site statistics")

// Pooled lends a page with few observations the history of its site or
// group, the site-level pooling of dissertation ch. 7 for pages the crawler
// has only just met. The rule: while the page has n < K (weighted)
// observations, its Stats are merged with the site's Stats scaled to weigh
// K − n observations, and Inner estimates from the merge; from K on, Inner
// sees the page alone. The site's data thus fill the page's history up to K
// observations, and the site's influence falls linearly to 0 as the page's
// own observations reach K. A new page gets the site's rate exactly with the
// estimators that scaling all weights leaves unchanged (naive, mle, lm,
// lm-reduced); improved and prior-mle add their fixed pseudo-counts to the
// K borrowed observations.
//
// Site should be the pooled Stats of the page's site (Stats.Merge, or one
// Stats that every page's observations are also added to); including the
// page itself counts its data slightly twice, which is harmless once the
// site has many pages.
type Pooled struct {
	Inner Estimator // the estimator applied to the blend; nil means prior-mle
	Site  *Stats    // the site's or group's pooled Stats; nil means no pooling
	K     float64   // observations at which the page stands alone; ≤ 0 means DefaultPoolK
}

// NewPooled returns a Pooled estimator over site. A nil inner means PriorMLE
// with paper 001's prior; k ≤ 0 means DefaultPoolK.
func NewPooled(inner Estimator, site *Stats, k float64) (Pooled, error) {
	if site == nil {
		return Pooled{}, ErrNoSite
	}
	if inner == nil {
		inner = PriorMLE{Prior: Paper001Prior()}
	}
	if !(k > 0) {
		k = DefaultPoolK
	}
	return Pooled{Inner: inner, Site: site, K: k}, nil
}

// Name returns "pooled-" followed by the inner estimator's name.
func (p Pooled) Name() string { return "pooled-" + p.inner().Name() }

func (p Pooled) inner() Estimator {
	if p.Inner == nil {
		return PriorMLE{Prior: Paper001Prior()}
	}
	return p.Inner
}

// Estimate applies Inner to s blended with the site as described on Pooled.
func (p Pooled) Estimate(s *Stats) Estimate {
	k := p.K
	if !(k > 0) {
		k = DefaultPoolK
	}
	if s.n >= k || p.Site == nil || !(p.Site.n > 0) {
		return p.inner().Estimate(s)
	}
	site := *p.Site
	site.Decay = s.Decay
	site.Scale((k - s.n) / site.n)
	blend := *s
	blend.Merge(&site)
	return p.inner().Estimate(&blend)
}
