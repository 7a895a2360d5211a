package crawler

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// This file keeps each page's change-rate estimate up to date (dissertation
// ch. 6, paper 001): every visit of a held page becomes an Observation,
// folded into the page's change.Stats and its site's pooled Stats, and the
// page's Rate is estimated anew. A site's validators earn trust by agreeing
// with the content checksums before the crawler lets them decide anything.

// Trust thresholds for a site's validators (Last-Modified, ETag): they are
// trusted once they changed together with the content at least trustAgree
// times and disagreed with it at most once in trustRatio agreements, and
// distrusted once they disagreed more often than that. A visit where
// neither changed proves nothing: a validator stamped with a deploy date
// is as still as an honest one between changes.
const (
	trustAgree = 5
	trustRatio = 20
	// probeEvery and probeTrusted are how often a revisit to a site goes
	// without validators while they are unproven, and once they are
	// trusted: a conditional GET answered 304 shows nothing about the
	// validators, so the crawler asks unconditionally now and then and
	// compares. Trusted validators are still checked, as sites change.
	probeEvery   = 2
	probeTrusted = 32
	// poolMin is the observations a site's pool needs before it, rather
	// than paper 001's fixed prior, seeds the estimates of its pages.
	poolMin = 20
	// priorWeight is the weight of the empirical-Bayes prior learnt from a
	// group's or site's pool, in pseudo-observations. Paper 001's device is
	// one changed and one unchanged pseudo-interval, a prior as strong as a
	// page's first visit; the pages of a site change at rates decades
	// apart, so its pooled rate says little about one page, and at weight 1
	// it pulled a page changing daily, seen 13 times, to 0.65 of its rate
	// on simweb. In the simulator (ch. 4 rate mix, seeds 2001–2002) 0.25
	// came out best: 98.08 % of the oracle against 97.86 % at 1, 97.96 %
	// at 0.1 and 97.65 % at 2.
	priorWeight = 0.25
)

// validatorTrust counts how a site's validator agreed with the content:
// it agrees when it changed with the checksum, and disagrees when exactly
// one of the two changed.
type validatorTrust struct{ agree, disagree uint32 }

func (v *validatorTrust) note(validatorChanged, contentChanged bool) {
	switch {
	case validatorChanged && contentChanged:
		v.agree++
	case validatorChanged != contentChanged:
		v.disagree++
	}
}

// trusted reports whether the validator has proven reliable.
func (v validatorTrust) trusted() bool {
	return v.agree >= trustAgree && v.disagree*trustRatio <= v.agree
}

// distrusted reports whether the validator has proven unreliable.
func (v validatorTrust) distrusted() bool {
	return v.disagree > 0 && v.disagree*trustRatio > v.agree
}

// siteChange is what the crawler knows about a host's changes: how far its
// validators can be trusted and the pooled history of its pages. It lives
// on the host and is only touched while the host is busy, by the worker
// (reading) or the committer (writing), so it needs no lock.
type siteChange struct {
	lm, etag validatorTrust
	// sitemap judges the lastmod dates of the site's sitemaps. Unlike a
	// response's Last-Modified, a sitemap is read now and then, so a
	// lastmod older than a change says nothing (the sitemap is stale);
	// only a lastmod that claims a change since the last check is judged,
	// against the content.
	sitemap validatorTrust
	probes  uint32 // revisits since the last unconditional one
	pool    change.Stats
	dirty   bool // changed since it was last staged
	// groups pools the site's pages by URL pattern, the first segment of
	// the path (/news/…, /products/…): pages of one section of a site tend
	// to change alike (paper 001 §4.4 groups its corpus likewise). Loaded
	// from the store on first use; at most maxGroups per site.
	groups map[string]*groupChange
}

// groupChange is the pooled history of one URL-pattern group of a site.
type groupChange struct {
	pool  change.Stats
	dirty bool
}

// maxGroups bounds the URL-pattern groups pooled per site; pages of
// further groups use the site's pool (a site with thousands of top-level
// paths has no sections worth the name).
const maxGroups = 64

// groupOf returns the URL-pattern group of a canonical URL: the first
// segment of its path if the path goes deeper, else "" (pages at the root).
func groupOf(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	rest := u[i+3:]
	j := strings.IndexByte(rest, '/')
	if j < 0 {
		return ""
	}
	path := rest[j+1:]
	if k := strings.IndexAny(path, "?#"); k >= 0 {
		path = path[:k]
	}
	k := strings.IndexByte(path, '/')
	if k < 0 {
		return ""
	}
	return path[:k]
}

// groupKey is the setting that holds a URL-pattern group's pool.
func groupKey(host, group string) string { return "group/" + host + "/" + group }

// conditional reports whether a revisit should carry the page's validators.
func (s *siteChange) conditional() bool {
	if s == nil {
		return true
	}
	if s.lm.distrusted() || s.etag.distrusted() {
		return false
	}
	every := uint32(probeEvery)
	if s.lm.trusted() || s.etag.trusted() {
		every = probeTrusted
	}
	s.probes++
	return s.probes%every != 0
}

// siteVersion is the first byte of a stored siteChange; version 1 had no
// sitemap counts.
const siteVersion = 2

func (s *siteChange) counts() []*uint32 {
	return []*uint32{&s.lm.agree, &s.lm.disagree, &s.etag.agree, &s.etag.disagree, &s.probes, &s.sitemap.agree, &s.sitemap.disagree}
}

func (s *siteChange) encode() (string, error) {
	b := []byte{siteVersion}
	for _, p := range s.counts() {
		v := *p
		b = binary.AppendUvarint(b, uint64(v))
	}
	b, err := s.pool.AppendBinary(b)
	return string(b), err
}

var errSiteCorrupt = errors.New("corrupt site change record")

func decodeSite(v string) (*siteChange, error) {
	b := []byte(v)
	if len(b) == 0 || b[0] < 1 || b[0] > siteVersion {
		return nil, errSiteCorrupt
	}
	s := &siteChange{}
	counts := s.counts()
	if b[0] == 1 {
		counts = counts[:5]
	}
	b = b[1:]
	for _, p := range counts {
		x, n := binary.Uvarint(b)
		if n <= 0 || x > math.MaxUint32 {
			return nil, errSiteCorrupt
		}
		*p, b = uint32(x), b[n:]
	}
	if err := s.pool.UnmarshalBinary(b); err != nil {
		return nil, fmt.Errorf("%w: %v", errSiteCorrupt, err)
	}
	return s, nil
}

// siteKey is the setting that holds a host's siteChange.
func siteKey(host string) string { return "site/" + host }

// siteOf returns h's siteChange, reading it from the store the first time.
// Called by the committer only.
func (c *Crawler) siteOf(h *host) *siteChange {
	if h.change != nil {
		return h.change
	}
	h.change = &siteChange{}
	v, ok, err := c.store.Setting(siteKey(h.name))
	switch {
	case err != nil:
		c.log.Warn("site change record unreadable, starting afresh", "host", h.name, "err", err)
	case ok:
		s, err := decodeSite(v)
		if err != nil {
			c.log.Warn("site change record unreadable, starting afresh", "host", h.name, "err", err)
			break
		}
		h.change = s
	}
	return h.change
}

// observe folds a visit that answered 200 or 304 into the page's and its
// site's change history and estimates the page's rate anew. prev is the
// row before the visit (known says whether there was one); p is the row
// being written, v its visit.
func (c *Crawler) observe(h *host, prev store.Page, known bool, changed bool, resp *fetch.Response, p *store.Page, v *store.Visit, now time.Time) {
	site := c.siteOf(h)
	var stats change.Stats
	if len(p.Change) > 0 {
		if err := stats.UnmarshalBinary(p.Change); err != nil {
			c.log.Warn("change history unreadable, starting afresh", "url", p.URL, "err", err)
			stats = change.Stats{}
		}
	}
	stats.Decay = c.decay()
	site.pool.Decay = stats.Decay

	// The validators earn trust on 200s of a page held before: did they
	// change exactly when the content did?
	if known && prev.Held && resp.Status == http.StatusOK {
		if lm := resp.Header.Get("Last-Modified"); lm != "" && prev.LastModified != "" {
			site.lm.note(lm != prev.LastModified, changed)
			site.dirty = true
		}
		if et := resp.Header.Get("ETag"); et != "" && prev.ETag != "" {
			site.etag.note(et != prev.ETag, changed)
			site.dirty = true
		}
	}
	headerLM := resp.Header.Get("Last-Modified") != "" || resp.Status == http.StatusNotModified && p.LastModified != ""
	switch {
	case headerLM && site.lm.trusted():
		if mod, ok := c.modified(resp, p.LastModified, now); ok {
			v.Modified = mod
		}
	case !headerLM && known && prev.Held && !prev.Checked.IsZero() && !site.sitemap.distrusted():
		v.Modified = c.sitemapModified(site, resp, p.URL, prev.Checked, changed, now)
	}
	group := c.groupOf(h, site, p.URL)
	if known && prev.Held {
		for _, pre := range preObservations(&stats, prev.Checked, v.Modified) {
			at := seconds(prev.Checked)
			stats.Add(pre, at)
			site.pool.Add(pre, at)
			if group != nil {
				group.pool.Decay = stats.Decay
				group.pool.Add(pre, at)
			}
		}
		if obs, ok := observation(prev.Checked, now, changed, v.Modified); ok {
			at := seconds(now)
			stats.Add(obs, at)
			site.pool.Add(obs, at)
			site.dirty = true
			if group != nil {
				group.pool.Decay = stats.Decay
				group.pool.Add(obs, at)
				group.dirty = true
			}
		}
	}
	p.Checked = now
	est := c.estimate(site, group, &stats)
	if est.OK {
		p.Rate = est.Rate
	}
	b, err := stats.MarshalBinary()
	if err != nil { // Only a Stats holding NaN fails; start afresh.
		c.log.Warn("change history not encodable, starting afresh", "url", p.URL, "err", err)
		b = nil
	}
	p.Change = b
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
// the unchanged time s holds before it. A site's validators earn trust
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

// seconds is t as seconds since the Unix epoch, the estimators' clock.
func seconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// decay is the estimators' forgetting time constant in seconds, 0 for none.
func (c *Crawler) decay() float64 {
	switch {
	case c.cfg.ChangeDecay > 0:
		return c.cfg.ChangeDecay.Seconds()
	case c.cfg.ChangeDecay < 0:
		return 0
	}
	return DefaultChangeMemory * c.interval().Seconds()
}

// sitemapModified judges the page's sitemap lastmod, if there is one,
// against a comparison of the content at now with that at checked, and
// returns it on the crawler's clock where the site's sitemaps are trusted
// and it is consistent with the comparison: a lastmod after checked for a
// changed page, or before it for an unchanged one. A changed page whose
// lastmod is older than checked has a stale sitemap entry, which tells
// nothing (zero).
func (c *Crawler) sitemapModified(site *siteChange, resp *fetch.Response, url string, checked time.Time, changed bool, now time.Time) time.Time {
	lm, err := c.store.LastMod(url)
	if err != nil || lm.IsZero() {
		return time.Time{}
	}
	mod, ok := c.serverTime(resp, lm, now)
	if !ok {
		return time.Time{}
	}
	claims := mod.After(checked)
	if claims {
		site.sitemap.note(true, changed)
		site.dirty = true
	}
	if site.sitemap.trusted() && claims == changed {
		return mod
	}
	return time.Time{}
}

// modified returns when the page last changed on the crawler's clock, from
// the response's Last-Modified (or, for a 304, the one held).
func (c *Crawler) modified(resp *fetch.Response, held string, now time.Time) (time.Time, bool) {
	lmText := resp.Header.Get("Last-Modified")
	if resp.Status == http.StatusNotModified || lmText == "" {
		lmText = held
	}
	lm, err := http.ParseTime(lmText)
	if err != nil {
		return time.Time{}, false
	}
	return c.serverTime(resp, lm, now)
}

// serverTime moves lm, a time on the server's clock, to the crawler's,
// measured against the response's Date so that the two clocks need not
// agree (and may run at different speeds, TimeScale).
func (c *Crawler) serverTime(resp *fetch.Response, lm time.Time, now time.Time) (time.Time, bool) {
	serverNow := now
	if d, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
		serverNow = d
	} else if c.cfg.TimeScale != 1 {
		return time.Time{}, false // Without Date the clocks cannot be related.
	}
	age := serverNow.Sub(lm)
	if age < 0 {
		age = 0 // A Last-Modified in the future (clock skew) says "just now".
	}
	return now.Add(-time.Duration(float64(age) / c.cfg.TimeScale)), true
}

// estimate is the crawler's estimator (the default of freshcrawl estimate
// too), change.Auto: the bias-reduced Last-Modified estimator where the
// site's modification times are trusted and the page's have shown two
// changes (dissertation §6.5: practically unbiased at any visit rate), else
// paper 001's prior-seeded irregular-interval MLE, its prior learnt from
// the pooled history of the page's URL-pattern group or, before that has
// enough, of its site (empirical Bayes, paper 001 §4.4), and paper 001's,
// on the crawler's clock, before either has.
func (c *Crawler) estimate(site *siteChange, group *groupChange, s *change.Stats) change.Estimate {
	return autoEstimate(s, site.lmTrusted(), site.prior(group, c.basePrior))
}

// groupOf returns the pool of url's URL-pattern group on h, reading it
// from the store the first time; nil if the site has maxGroups already.
// Called by the committer only.
func (c *Crawler) groupOf(h *host, site *siteChange, url string) *groupChange {
	name := groupOf(url)
	if g := site.groups[name]; g != nil {
		return g
	}
	if len(site.groups) >= maxGroups {
		return nil
	}
	g := &groupChange{}
	if v, ok, err := c.store.Setting(groupKey(h.name, name)); err == nil && ok {
		if err := g.pool.UnmarshalBinary([]byte(v)); err != nil {
			c.log.Warn("group change record unreadable, starting afresh", "host", h.name, "group", name, "err", err)
			g.pool = change.Stats{}
		}
	}
	if site.groups == nil {
		site.groups = map[string]*groupChange{}
	}
	site.groups[name] = g
	return g
}

// lmTrusted reports whether the site gives modification times the
// estimators may use: a trusted Last-Modified or trusted sitemaps.
func (s *siteChange) lmTrusted() bool { return s.lm.trusted() || s.sitemap.trusted() }

// autoEstimate is the rule of Crawler.estimate for a page whose site's
// modification times are trusted or not and whose prior is given.
func autoEstimate(s *change.Stats, lmTrusted bool, prior change.Prior) change.Estimate {
	return change.Auto{Prior: prior, LastModified: lmTrusted}.Estimate(s)
}

// prior is the prior of a page of the site in group (nil: none): learnt
// from the group's pool once that is large enough, else from the site's,
// else base.
func (s *siteChange) prior(group *groupChange, base change.Prior) change.Prior {
	pool := &s.pool
	if group != nil && group.pool.Count() >= poolMin {
		pool = &group.pool
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

// stageSite writes h's siteChange and its groups' pools to txn if they
// changed.
func (c *Crawler) stageSite(txn *store.Txn, h *host) error {
	s := h.change
	if s == nil {
		return nil
	}
	for name, g := range s.groups {
		if !g.dirty {
			continue
		}
		b, err := g.pool.MarshalBinary()
		if err != nil {
			return fmt.Errorf("group change record of %s/%s: %w", h.name, name, err)
		}
		if err := txn.SetSetting(groupKey(h.name, name), string(b)); err != nil {
			return err
		}
		g.dirty = false
	}
	if !s.dirty {
		return nil
	}
	v, err := s.encode()
	if err != nil {
		return fmt.Errorf("site change record of %s: %w", h.name, err)
	}
	if err := txn.SetSetting(siteKey(h.name), v); err != nil {
		return err
	}
	s.dirty = false
	return nil
}
