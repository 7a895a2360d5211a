package refresh

import (
	"net/http"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// This file keeps each page's change-rate estimate up to date (dissertation
// ch. 6, paper 001): every visit of a held page becomes an Observation,
// folded into the page's change.Stats and its host's pooled Stats, and the
// page's Rate is estimated anew. A host's validators earn trust by agreeing
// with the content checksums before the module lets them decide anything.

// priorWeight is the weight of the empirical-Bayes prior learnt from a
// group's or host's pool, in pseudo-observations. Paper 001's device is
// one changed and one unchanged pseudo-interval, a prior as strong as a
// page's first visit; the pages of a site change at rates decades apart,
// so its pooled rate says little about one page, and at weight 1 it pulled
// a page changing daily, seen 13 times, to 0.65 of its rate on simweb. In
// the simulator (ch. 4 rate mix, seeds 2001–2002) 0.25 came out best:
// 98.08 % of the oracle against 97.86 % at 1, 97.96 % at 0.1 and 97.65 %
// at 2.
const priorWeight = 0.25

// Answer is what a fetch of a page told the module: the status and the
// headers it judges the host's validators and clock by.
type Answer struct {
	Status int
	// LastModified, ETag and Date are the response's headers ("" if
	// absent).
	LastModified, ETag, Date string
}

// Observe folds a visit at now that answered 200 or 304 into the page's
// and its host's change history and estimates the page's rate anew. prev
// is the row before the visit (wasHeld: it held content), p the row being
// written, v its visit; changed says whether the content differed from
// prev's. It sets p.Change, p.Rate and p.Checked, and v.Modified where the
// host's modification times are trusted.
func (m *Module) Observe(h *Host, prev *store.Page, wasHeld bool, a Answer, changed bool, p *store.Page, v *store.Visit, now time.Time) {
	hc := m.changeOf(h)
	stats := m.statsOf(p)
	before := stats
	hc.pool.Decay = stats.Decay
	m.pool.Decay = stats.Decay
	if wasHeld && a.Status == http.StatusOK {
		hc.judgeValidators(prev, a, changed)
	}
	v.Modified = m.modifiedAt(hc, prev, wasHeld, a, changed, p, now)
	if wasHeld && Pulled(prev) && prev.Rate*now.Sub(prev.Checked).Seconds() < 1 {
		// A visit a signal pulled forward came because the page (or, in
		// a sweep, its site) changed: for a page not expected to change
		// within the interval, its time since the modification is the
		// signal's delay, not a draw of the page's own pace, and fed to
		// the Last-Modified estimator it would make every signalled page
		// look fast. (Where a change is expected, λI ≥ 1, the time T since
		// it, given a change in the interval I, has likelihood
		// λe^{−λT}/(1 − e^{−λI}), which the selection barely moves, and it
		// is what tells a page changing many times an interval from one
		// changing once.) The visit is recorded without it, so that
		// Replay folds the same.
		v.Modified = time.Time{}
	}
	group := m.groupOf(h, hc, p.URL)
	if wasHeld {
		for _, pre := range preObservations(&stats, prev.Checked, v.Modified) {
			m.fold(hc, group, &stats, pre, prev.Checked)
		}
		if obs, ok := observation(prev.Checked, now, changed, v.Modified); ok {
			m.fold(hc, group, &stats, obs, now)
		}
	}
	p.Checked = now
	m.keep(hc, group, &before, &stats, p)
}

// ObserveUnchanged folds into p's change history, and its pools, that a
// trusted sitemap read at to still gave a lastmod before p's last check:
// the page was unchanged from that check to to, which becomes its last
// check. A page fetched on its sitemap's signals is otherwise observed
// only at those fetches, each of which finds a change, and the reads that
// found none, made on the sitemap's schedule whatever the page did, are
// the spans that tell how seldom it changes. It returns the visit that
// records it (store.StatusUnchanged, for Replay), nil if there is none.
func (m *Module) ObserveUnchanged(h *Host, p *store.Page, to time.Time) *store.Visit {
	obs, ok := observation(p.Checked, to, false, time.Time{})
	if !ok {
		return nil
	}
	hc := m.changeOf(h)
	stats := m.statsOf(p)
	before := stats
	group := m.groupOf(h, hc, p.URL)
	m.fold(hc, group, &stats, obs, to)
	p.Checked = to
	m.keep(hc, group, &before, &stats, p)
	return &store.Visit{Time: to, Status: store.StatusUnchanged}
}

// statsOf is p's change history, with the module's forgetting.
func (m *Module) statsOf(p *store.Page) change.Stats {
	var stats change.Stats
	if len(p.Change) > 0 {
		if err := stats.UnmarshalBinary(p.Change); err != nil {
			m.log.Warn("change history unreadable, starting afresh", "url", p.URL, "err", err)
			stats = change.Stats{}
		}
	}
	stats.Decay = m.decay()
	return stats
}

// fold adds obs, made at at, to a page's history stats and to the pools
// of its host, its URL group (nil: none) and the crawl.
func (m *Module) fold(hc *hostChange, group *groupChange, stats *change.Stats, obs change.Observation, at time.Time) {
	t := seconds(at)
	stats.Add(obs, t)
	hc.pool.Decay, m.pool.Decay = stats.Decay, stats.Decay
	hc.pool.Add(obs, t)
	m.pool.Add(obs, t)
	hc.dirty = true
	if group != nil {
		group.pool.Decay = stats.Decay
		group.pool.Add(obs, t)
		group.dirty = true
	}
}

// keep updates the host's population for the page's history going from
// before to stats, estimates its rate anew and writes the history to p.
func (m *Module) keep(hc *hostChange, group *groupChange, before, stats *change.Stats, p *store.Page) {
	hc.updatePopulation(before, stats)
	if est := m.estimate(hc, group, stats); est.OK {
		p.Rate = est.Rate
	}
	b, err := stats.MarshalBinary()
	if err != nil { // Only a Stats holding NaN fails; start afresh.
		m.log.Warn("change history not encodable, starting afresh", "url", p.URL, "err", err)
		b = nil
	}
	p.Change = b
}

// judgeValidators counts, on a 200 of a page held before, whether the
// host's validators changed exactly when the content did.
func (hc *hostChange) judgeValidators(prev *store.Page, a Answer, changed bool) {
	if a.LastModified != "" && prev.LastModified != "" {
		note(&hc.state.LastModified, a.LastModified != prev.LastModified, changed)
		hc.dirty = true
	}
	if a.ETag != "" && prev.ETag != "" {
		note(&hc.state.ETag, a.ETag != prev.ETag, changed)
		hc.dirty = true
	}
}

// modifiedAt is when the page last changed on the crawler's clock, as far
// as the host is trusted to say: its Last-Modified, else its sitemap's
// lastmod; zero if neither is trusted or known.
func (m *Module) modifiedAt(hc *hostChange, prev *store.Page, wasHeld bool, a Answer, changed bool, p *store.Page, now time.Time) time.Time {
	headerLM := a.LastModified != "" || a.Status == http.StatusNotModified && p.LastModified != ""
	var sitemap time.Time
	if wasHeld && !prev.Checked.IsZero() && !Distrusted(hc.state.Sitemap) && !m.cfg.NoSignals {
		// Judged even where Last-Modified is sent: a trusted sitemap
		// also tells which pages to revisit (Signalled).
		sitemap = m.sitemapModified(hc, a, p.URL, prev.Checked, changed, now)
	}
	if headerLM && Trusted(hc.state.LastModified) {
		mod, _ := m.modified(a, p.LastModified, now)
		return mod
	}
	if headerLM {
		return time.Time{}
	}
	return sitemap
}

// observation is what a comparison of the content at now with the content
// checked at prev tells the estimators: the interval, whether it changed,
// and, if modified is known, how long before now the page last changed.
// ok is false if there was no earlier check to compare with.
func observation(prev, now time.Time, changed bool, modified time.Time) (change.Observation, bool) {
	if prev.IsZero() || !now.After(prev) {
		return change.Observation{}, false
	}
	obs := change.Observation{Interval: now.Sub(prev).Seconds(), Changed: changed, SinceModified: -1}
	if !modified.IsZero() {
		obs.SinceModified = max(now.Sub(modified).Seconds(), 0)
	}
	return obs, true
}

// preObservations is what a trusted modification time tells about the
// time before the first check of a page: if the content checked first had
// last changed at modified, the page changed at modified and not again
// until that first check. Under Poisson change that span A is the backward
// recurrence time, of likelihood λe^{−λA}: an unchanged observation over A
// (the e^{−λA}) and a change seen right after it happened (the λ: a
// changed interval whose length tends to 0 contributes exactly 1/λ to the
// MLE's score), given as a changed interval of a millionth of A whose
// Last-Modified is half of it. (Without the second, the estimates of pages
// changing every few days came out at half their rate on simweb.)
//
// They are added once, at the first comparison made with a trusted
// modification time (s has no Last-Modified observation yet) if no
// comparison before it found a change, the modification time being older
// than the first check. checked is the previous check; the first one was
// the unchanged time s holds before it. A host's validators earn trust
// only as its pages change, so most pages were first checked before it:
// on simweb at day 27, pages changing once in 1–3 years, 57 % of them with
// honest modification times, were estimated 15 times too fast, as
// visits alone cannot tell such a page from one changing monthly within a
// month. (Forgetting shrinks the unchanged time s holds, so a span checked
// long ago is counted partly twice: a fraction 1 − e^{−Δ/τ} of it.) A
// page unchanged for a year is then known to be slow after two visits,
// where the visits alone would take a year to say so.
func preObservations(s *change.Stats, checked, modified time.Time) []change.Observation {
	if s.LMCount() > 0 || s.Changed() > 0 || checked.IsZero() || modified.IsZero() {
		return nil
	}
	first := checked.Add(-time.Duration(s.SumUnchanged() * float64(time.Second)))
	if !modified.Before(first) {
		return nil
	}
	a := first.Sub(modified).Seconds()
	eps := a * 1e-6
	return []change.Observation{
		{Interval: a, SinceModified: a},
		{Interval: eps, Changed: true, SinceModified: eps / 2},
	}
}

// sitemapModified judges the page's sitemap lastmod, if there is one,
// against a comparison of the content at now with that at checked, and
// returns it on the crawler's clock where the host's sitemaps are trusted
// and it is consistent with the comparison: a lastmod after checked for a
// changed page, or before it for an unchanged one. A changed page whose
// lastmod is older than checked has a stale sitemap entry, which tells
// nothing (zero).
//
// The time returned is the lastmod moved on by the time from the
// sitemap's read to now: the page is as old at this visit as it was at
// the read. The lastmod is the last change before the read, and a page
// that changed again since (a fast one, fetched a while after the read)
// is younger now than the lastmod says; the read, made on the sitemap's
// schedule whatever the page did, is where its age is a fair draw. On
// simweb's demo, pages changing 16–64 times a day were estimated at
// 0.2–0.35 of their rate from their ages at the fetch.
func (m *Module) sitemapModified(hc *hostChange, a Answer, url string, checked time.Time, changed bool, now time.Time) time.Time {
	lm, read, err := m.store.LastMod(url)
	if err != nil || lm.IsZero() {
		return time.Time{}
	}
	mod, ok := m.serverTime(a, lm, now)
	if !ok {
		return time.Time{}
	}
	claims := mod.After(checked)
	if claims {
		note(&hc.state.Sitemap, true, changed)
		hc.dirty = true
	}
	if !Trusted(hc.state.Sitemap) || claims != changed {
		return time.Time{}
	}
	if !read.IsZero() && read.Before(now) && !mod.After(read) {
		mod = mod.Add(now.Sub(read))
	}
	return mod
}

// modified returns when the page last changed on the crawler's clock, from
// the answer's Last-Modified (or, for a 304, the one held).
func (m *Module) modified(a Answer, held string, now time.Time) (time.Time, bool) {
	lmText := a.LastModified
	if a.Status == http.StatusNotModified || lmText == "" {
		lmText = held
	}
	lm, err := http.ParseTime(lmText)
	if err != nil {
		return time.Time{}, false
	}
	return m.serverTime(a, lm, now)
}

// serverTime moves lm, a time on the server's clock, to the crawler's,
// measured against the answer's Date so that the two clocks need not
// agree (and may run at different speeds, TimeScale).
func (m *Module) serverTime(a Answer, lm time.Time, now time.Time) (time.Time, bool) {
	serverNow := now
	if d, err := http.ParseTime(a.Date); err == nil {
		serverNow = d
	} else if m.cfg.TimeScale != 1 {
		return time.Time{}, false // Without Date the clocks cannot be related.
	}
	age := serverNow.Sub(lm)
	if age < 0 {
		age = 0 // A Last-Modified in the future (clock skew) says "just now".
	}
	return now.Add(-time.Duration(float64(age) / m.cfg.TimeScale)), true
}

// estimate is the crawler's estimator (the default of freshcrawl estimate
// too), change.Auto: the bias-reduced Last-Modified estimator where the
// host's modification times are trusted and the page's have shown two
// changes (dissertation §6.5: practically unbiased at any visit rate), else
// paper 001's prior-seeded irregular-interval MLE, its prior learnt from
// the pooled history of the page's URL-pattern group or, before that has
// enough, of its host (empirical Bayes, paper 001 §4.4), and paper 001's,
// on the crawler's clock, before either has.
func (m *Module) estimate(hc *hostChange, group *groupChange, s *change.Stats) change.Estimate {
	var gp *change.Stats
	if group != nil {
		gp = &group.pool
	}
	hs := hc.state
	hs.Sitemap = m.sitemapAgreement(hc)
	auto := Estimator(&hs, &hc.pool, gp, m.crawlPrior())
	if hc.pop.N() >= popMin {
		return change.Empirical{Pop: &hc.pop, Fallback: auto}.Estimate(s)
	}
	return auto.Estimate(s)
}

// popMin is the pages a host's population must hold before its pages are
// estimated by empirical Bayes over change's rate grid (change.Empirical,
// as the simulator's default estimates): the weights of a few pages are
// noise.
const popMin = 50

// updatePopulation moves a page's term in its host's mixing weights from
// its posterior given before, its Stats before the visit, to its
// posterior given after: the online counterpart of the EM step the
// simulator takes over all pages at each re-plan (change.Population.Add).
// The approximation: the term removed is recomputed under today's
// weights, not the ones it was added under, so the sum drifts by the
// weights' change between a page's visits, and pages not revisited keep
// the term of their last visit; Weights clamps what drift makes negative.
func (hc *hostChange) updatePopulation(before, after *change.Stats) {
	var pi, post [change.GridLen]float64
	var lik [change.GridLen]float32
	weights := hc.pop.Weights(pi[:0])
	if before.N() > 0 {
		hc.pop.Add(change.Posterior(weights, change.RelLikelihood(before, lik[:0]), post[:0]), -1)
	}
	if after.N() > 0 {
		hc.pop.Add(change.Posterior(weights, change.RelLikelihood(after, lik[:0]), post[:0]), 1)
	}
}

// Estimator is the crawler's estimator for a page of a host whose state
// is hs, pooled history pool, and whose page's URL-pattern group has the
// pooled history group (nil: none); base is the prior before either pool
// has enough observations.
func Estimator(hs *store.HostState, pool, group *change.Stats, base change.Prior) change.Auto {
	return change.Auto{Prior: prior(pool, group, base), LastModified: lmTrusted(hs)}
}

// prior is the prior of a page of a host whose pool and group's pool are
// given: learnt from the group's pool once that is large enough, else from
// the host's, else base.
func prior(pool, group *change.Stats, base change.Prior) change.Prior {
	if group != nil && group.Count() >= poolMin {
		pool = group
	}
	if pool.Count() >= poolMin {
		if p, err := change.PriorFromPopulation(pool, base, priorWeight); err == nil {
			return p
		}
	}
	return base
}

// defaultPrior is paper 001's prior moved to the crawler's clock.
func defaultPrior(timeScale float64) change.Prior {
	p := change.Paper001Prior()
	p.Changed /= timeScale
	p.Unchanged /= timeScale
	return p
}

// Replay adds to s the comparisons Observe made over a page's visits:
// each 200 or 304 answer (and each sitemap read that found the page
// unchanged, store.StatusUnchanged) is compared with the last one before
// it, unless the page was gone (4xx) or moved (3xx) between them; failed
// fetches compare nothing.
func Replay(s *change.Stats, visits []store.Visit) {
	var checked time.Time
	for _, v := range visits {
		switch st := v.Status; {
		case st == http.StatusNotModified || st == store.StatusUnchanged || st >= 200 && st < 300:
			changed := st != http.StatusNotModified && v.Changed
			for _, pre := range preObservations(s, checked, v.Modified) {
				s.Add(pre, seconds(checked))
			}
			if obs, ok := observation(checked, v.Time, changed, v.Modified); ok {
				s.Add(obs, seconds(v.Time))
			}
			checked = v.Time
		case st >= 300 && st < 500 && st != http.StatusTooManyRequests:
			checked = time.Time{}
		}
	}
}
