package refresh

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// Trust thresholds for a host's validators (Last-Modified, ETag): they are
// trusted once they changed together with the content at least trustAgree
// times and disagreed with it at most once in trustRatio agreements, and
// distrusted once they disagreed more often than that. A visit where
// neither changed proves nothing: a validator stamped with a deploy date
// is as still as an honest one between changes.
const (
	trustAgree = 5
	trustRatio = 20
	// probeEvery and probeTrusted are how often a revisit to a host goes
	// without validators while they are unproven, and once they are
	// trusted: a conditional GET answered 304 shows nothing about the
	// validators, so the crawler asks unconditionally now and then and
	// compares. Trusted validators are still checked, as sites change.
	probeEvery   = 2
	probeTrusted = 32
	// poolMin is the observations a host's pool needs before it, rather
	// than paper 001's fixed prior, seeds the estimates of its pages.
	poolMin = 20
	// maxGroups bounds the URL-pattern groups pooled per host; pages of
	// further groups use the host's pool (a host with thousands of
	// top-level paths has no sections worth the name).
	maxGroups = 64
)

// Trusted reports whether a validator (or a sitemap's lastmod dates) that
// agreed with the content as a says has proven reliable.
func Trusted(a store.Agreement) bool {
	return a.Agree >= trustAgree && a.Disagree*trustRatio <= a.Agree
}

// Distrusted reports whether it has proven unreliable.
func Distrusted(a store.Agreement) bool {
	return a.Disagree > 0 && a.Disagree*trustRatio > a.Agree
}

// note counts one comparison: a claim agrees when it changed with the
// content, and disagrees when exactly one of the two changed.
func note(a *store.Agreement, claimChanged, contentChanged bool) {
	switch {
	case claimChanged && contentChanged:
		a.Agree++
	case claimChanged != contentChanged:
		a.Disagree++
	}
}

// Host is the module's view of one host: its capacity (capacity.go),
// always, and what the crawl has learnt of its changes, read from the
// store at its first outcome. The crawler keeps one per host and sets
// Delay; the module's methods take it while the host is busy.
type Host struct {
	// Name is the host (an authority: name and port).
	Name string
	// Delay is the gap the crawler leaves between two requests to the
	// host (its politeness delay or Crawl-delay).
	Delay time.Duration
	// service is a moving average of the host's response times in
	// seconds; load is the planned revisit frequency of its held pages
	// and excess the part of it over the host's capacity.
	service, load, excess float64
	change                *hostChange
	// sitemaps is when each of the host's sitemaps is due, as the rows
	// committed since the crawl started say (NoteSitemap); sitemapTurn,
	// that the host's last due turn went to one (DueSitemap).
	sitemaps    map[string]time.Time
	sitemapTurn bool
	// pulls counts the pulls of the host's last trusted sitemap read
	// (Signalled) that its responses since (NoteService) have not
	// matched: until they have, or until pulling, a read of its sitemap
	// finds the same claims.
	pulls   int
	pulling time.Time
}

// NoteSitemap records that the host's sitemap u is due at due (zero: not
// due).
func (h *Host) NoteSitemap(u string, due time.Time) {
	if due.IsZero() {
		delete(h.sitemaps, u)
		return
	}
	if h.sitemaps == nil {
		h.sitemaps = map[string]time.Time{}
	}
	h.sitemaps[u] = due
}

// DueSitemap returns the row of a sitemap of host h due by now, which the
// crawler reads before the host's revisits due; a sitemap whose row has
// moved since it was noted is dropped. A sitemap's interval is its
// discovery interval (Module.Discovered), priced as a revisit is, but
// ranked with the revisits by how late each was, it waited for them: on
// the PEPs' replay, whose hosts' revisits ran seconds late (the pulls a
// sitemap brings forward come on top of the planned revisits, which spend
// the whole budget), sitemaps were read every 3–7 s, with gaps of 25–70
// s in the recoveries from mass edits, just when their news was worth the
// most. Only a host whose sitemaps are trusted reads them first: there
// each read is news of changes the plan acts on at once (Signalled);
// elsewhere a sitemap is read for new URLs, and one full of them (at the
// start of a crawl) took every other due turn, at its discovery interval
// priced as if the revisits had the whole budget. A sitemap takes at
// most every other due turn of its host, so that it never starves the
// revisits, and none while the pulls of its last trusted read are being
// made (Host.pulls; for at most a uniform interval): a read then finds
// the same claims, and on the PEPs' replay, its pages planned as
// signalled ones, sitemaps read at every other turn took half the
// fetches and slowed the recoveries from mass edits. Under a policy whose plan does not
// act on a sitemap's news (Signalled pulls nothing there: uniform, the
// adaptive baselines, the round robin) a sitemap is read in its turn, as
// any other URL.
func (m *Module) DueSitemap(h *Host, now time.Time) (store.Page, bool, error) {
	if len(h.sitemaps) == 0 || m.planner == nil || !m.acts || !Trusted(m.sitemapAgreement(m.changeOf(h))) || h.sitemapTurn || h.pulls > 0 && now.Before(h.pulling) {
		h.sitemapTurn = false
		return store.Page{}, false, nil
	}
	for u, due := range h.sitemaps {
		if due.After(now) {
			continue
		}
		p, err := m.store.GetPage(u)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return store.Page{}, false, err
		}
		if err != nil || !p.NextDue.Equal(due) {
			delete(h.sitemaps, u) // moved since: the due index has it
			continue
		}
		h.sitemapTurn = true
		return p, true, nil
	}
	return store.Page{}, false, nil
}

// hostChange is what is known of a host's changes and validators.
type hostChange struct {
	state store.HostState // its counts; Pool is not kept up to date
	pool  change.Stats
	dirty bool // changed since it was last staged
	// groups pools the host's pages by URL pattern, the first segment of
	// the path (/news/…, /products/…): pages of one section of a site tend
	// to change alike (paper 001 §4.4 groups its corpus likewise). Loaded
	// from the store on first use; at most maxGroups.
	groups map[string]*groupChange
	// burst is the sample of the host's recent comparisons that tells a
	// sweep (burst.go); in memory only.
	burst burst
	// pop is the mixing weights of the host's pages over change's rate
	// grid, the prior of their empirical-Bayes estimates (estimate.go).
	// It lives in memory only and is rebuilt as pages are revisited.
	pop change.Population
}

// groupChange is the pooled history of one URL-pattern group of a host.
type groupChange struct {
	pool  change.Stats
	dirty bool
}

// changeOf returns what is known of h's changes, reading it from the
// store the first time.
func (m *Module) changeOf(h *Host) *hostChange {
	if h.change != nil {
		return h.change
	}
	h.change = &hostChange{}
	hs, ok, err := m.store.HostState(h.Name)
	switch {
	case err != nil:
		m.log.Warn("host change record unreadable, starting afresh", "host", h.Name, "err", err)
	case ok:
		if err := h.change.pool.UnmarshalBinary(hs.Pool); err != nil {
			m.log.Warn("host change record unreadable, starting afresh", "host", h.Name, "err", err)
			break
		}
		h.change.state = hs
	}
	return h.change
}

// groupOf returns the pool of url's URL-pattern group on h, reading it
// from the store the first time; nil if the host has maxGroups already.
func (m *Module) groupOf(h *Host, hc *hostChange, url string) *groupChange {
	name := GroupOf(url)
	if g := hc.groups[name]; g != nil {
		return g
	}
	if len(hc.groups) >= maxGroups {
		return nil
	}
	g := &groupChange{}
	if v, ok, err := m.store.GroupPool(h.Name, name); err == nil && ok {
		if err := g.pool.UnmarshalBinary(v); err != nil {
			m.log.Warn("group change record unreadable, starting afresh", "host", h.Name, "group", name, "err", err)
			g.pool = change.Stats{}
		}
	}
	if hc.groups == nil {
		hc.groups = map[string]*groupChange{}
	}
	hc.groups[name] = g
	return g
}

// GroupOf returns the URL-pattern group of a canonical URL: the first
// segment of its path if the path goes deeper, else "" (pages at the root).
func GroupOf(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	path, ok := strings.CutPrefix(u[i+3+len(urlx.Authority(u)):], "/")
	if !ok {
		return ""
	}
	if k := strings.IndexAny(path, "?#"); k >= 0 {
		path = path[:k]
	}
	k := strings.IndexByte(path, '/')
	if k < 0 {
		return ""
	}
	return path[:k]
}

// Conditional reports whether a revisit to h should carry the page's
// validators, and counts the revisit: the host's validators go unproven
// (or, trusted, unchecked) otherwise.
func (h *Host) Conditional() bool {
	hc := h.change
	if hc == nil {
		return true
	}
	s := &hc.state
	if Distrusted(s.LastModified) || Distrusted(s.ETag) {
		return false
	}
	every := uint32(probeEvery)
	if Trusted(s.LastModified) || Trusted(s.ETag) {
		every = probeTrusted
	}
	s.Probes++
	return s.Probes%every != 0
}

// Stage writes h's change record and its groups' pools to txn if they
// changed since they were last staged.
func (m *Module) Stage(txn *store.Txn, h *Host) error {
	hc := h.change
	if hc == nil {
		return nil
	}
	for name, g := range hc.groups {
		if !g.dirty {
			continue
		}
		b, err := g.pool.MarshalBinary()
		if err != nil {
			return fmt.Errorf("group change record of %s/%s: %w", h.Name, name, err)
		}
		if err := txn.PutGroupPool(h.Name, name, b); err != nil {
			return err
		}
		g.dirty = false
	}
	if !hc.dirty {
		return nil
	}
	b, err := hc.pool.MarshalBinary()
	if err != nil {
		return fmt.Errorf("host change record of %s: %w", h.Name, err)
	}
	hs := hc.state
	hs.Pool = b
	if err := txn.PutHostState(h.Name, hs); err != nil {
		return err
	}
	hc.dirty = false
	return nil
}

// sitemapAgreement is how far the host's sitemap lastmod dates have
// agreed with its pages' changes, as the plan may use it: nothing without
// signals (Config.NoSignals), which sets the record aside, in memory, and
// keeps it as stored.
func (m *Module) sitemapAgreement(hc *hostChange) store.Agreement {
	if m.cfg.NoSignals {
		return store.Agreement{}
	}
	return hc.state.Sitemap
}

// lmTrusted reports whether a host gives modification times the
// estimators may use: a trusted Last-Modified or trusted sitemaps.
func lmTrusted(s *store.HostState) bool { return Trusted(s.LastModified) || Trusted(s.Sitemap) }
