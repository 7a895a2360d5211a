package crawler

import (
	"net/http"
	"strings"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// History is a held page's visit history as the change-rate estimators see
// it, rebuilt from the visits a crawl recorded, for analysis offline
// (freshcrawl estimate).
type History struct {
	URL string
	// Stats holds every comparison of the page's visits, with the
	// forgetting ReadHistories was asked for.
	Stats change.Stats
	// Visits is the visits recorded, failed ones included.
	Visits int
	// Stored is the change rate the crawler stored with the page, in
	// changes per second (0 if none).
	Stored float64
	// LMTrusted reports whether the crawler trusts the site's
	// modification times (Last-Modified or sitemap lastmod); Prior is the
	// prior it gives the site's pages.
	LMTrusted bool
	Prior     change.Prior
}

// Auto is the crawler's own estimate for h: the bias-reduced Last-Modified
// estimator where the site's Last-Modified is trusted, else the
// prior-seeded MLE with the site's prior.
func (h *History) Auto() change.Estimate {
	return autoEstimate(&h.Stats, h.LMTrusted, h.Prior)
}

// ReadHistories calls fn with the history of every page held in the crawl
// in dir, which must not be running. decay is the estimators' forgetting
// time constant (zero: none). The History passed to fn is reused by the
// next call. The prior of a site with too little history of its own is
// paper 001's on the real web's clock.
func ReadHistories(dir string, decay time.Duration, fn func(*History) error) error {
	s, err := openReadOnly(dir)
	if err != nil {
		return err
	}
	defer s.Close()
	sites := map[string]*siteChange{}
	err = s.Settings("site/", func(name, v string) error {
		site, err := decodeSite(v)
		if err != nil {
			return nil // A damaged record: the site gets the defaults.
		}
		sites[name[len("site/"):]] = site
		return nil
	})
	if err == nil {
		err = s.Settings("group/", func(name, v string) error {
			host, group, ok := strings.Cut(name[len("group/"):], "/")
			site := sites[host]
			if !ok || site == nil {
				return nil
			}
			g := &groupChange{}
			if g.pool.UnmarshalBinary([]byte(v)) != nil {
				return nil // A damaged record: the group gets the site's prior.
			}
			if site.groups == nil {
				site.groups = map[string]*groupChange{}
			}
			site.groups[group] = g
			return nil
		})
	}
	if err != nil {
		return err
	}
	base := change.Paper001Prior()
	h := &History{}
	return s.ForEachPage(func(p store.Page) error {
		if !p.Held || p.Kind != KindPage {
			return nil
		}
		visits, err := s.Visits(p.URL)
		if err != nil {
			return err
		}
		*h = History{URL: p.URL, Visits: len(visits), Stored: p.Rate, Prior: base}
		h.Stats.Decay = decay.Seconds()
		if site := sites[urlx.Host(p.URL)]; site != nil {
			h.LMTrusted, h.Prior = site.lmTrusted(), site.prior(site.groups[groupOf(p.URL)], base)
		}
		replay(&h.Stats, visits)
		return fn(h)
	})
}

// replay adds to s the comparisons a crawler made over visits, as
// Crawler.observe did: each 200 or 304 answer is compared with the last
// one before it, unless the page was gone (4xx) or moved (3xx) between
// them; failed fetches compare nothing.
func replay(s *change.Stats, visits []store.Visit) {
	var checked time.Time
	for _, v := range visits {
		switch st := v.Status; {
		case st == http.StatusNotModified || st >= 200 && st < 300:
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
