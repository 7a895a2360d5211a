package datadir

import (
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/refresh"
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
	// Visits is the visits recorded, failed ones and the sitemap reads
	// that found the page unchanged (store.StatusUnchanged) included.
	Visits int
	// Stored is the change rate the crawler stored with the page, in
	// changes per second (0 if none).
	Stored float64
	// Auto is the crawler's own estimator for the page: the bias-reduced
	// Last-Modified estimator where the host's modification times are
	// trusted (Last-Modified or sitemap lastmod), else the prior-seeded
	// MLE with the prior the crawler gives the host's pages.
	Auto change.Auto
}

// hostPools is what ReadHistories keeps of a host: its state, pool and
// the pools of its URL-pattern groups.
type hostPools struct {
	state  store.HostState
	pool   change.Stats
	groups map[string]*change.Stats
}

// ReadHistories calls fn with the history of every page held in the crawl
// in dir, which must not be running. decay is the estimators' forgetting
// time constant (zero: none). The History passed to fn is reused by the
// next call. The prior of a host with too little history of its own is
// paper 001's on the real web's clock. Errors are as Open's.
func ReadHistories(dir string, decay time.Duration, fn func(*History) error) error {
	s, err := Open(dir)
	if err != nil {
		return err
	}
	defer s.Close()
	hosts, err := readPools(s)
	if err != nil {
		return err
	}
	base := change.Paper001Prior()
	h := &History{}
	return s.ForEachPage(func(p store.Page) error {
		if !p.Held || p.Kind != store.KindPage {
			return nil
		}
		visits, err := s.Visits(p.URL)
		if err != nil {
			return err
		}
		*h = History{URL: p.URL, Visits: len(visits), Stored: p.Rate, Auto: change.Auto{Prior: base}}
		h.Stats.Decay = decay.Seconds()
		if hp := hosts[urlx.Host(p.URL)]; hp != nil {
			h.Auto = refresh.Estimator(&hp.state, &hp.pool, hp.groups[refresh.GroupOf(p.URL)], base)
		}
		refresh.Replay(&h.Stats, visits)
		return fn(h)
	})
}

// readPools reads every host's state and pools; a record that does not
// decode leaves its host (or group) with the defaults, as in the crawler.
func readPools(s *store.Store) (map[string]*hostPools, error) {
	hosts := map[string]*hostPools{}
	err := s.ForEachHostState(func(host string, hs store.HostState, err error) error {
		hp := &hostPools{state: hs}
		if err != nil || hp.pool.UnmarshalBinary(hs.Pool) != nil {
			return nil
		}
		hosts[host] = hp
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = s.ForEachGroupPool(func(host, group string, pool []byte) error {
		hp := hosts[host]
		var g change.Stats
		if hp == nil || g.UnmarshalBinary(pool) != nil {
			return nil
		}
		if hp.groups == nil {
			hp.groups = map[string]*change.Stats{}
		}
		hp.groups[group] = &g
		return nil
	})
	return hosts, err
}
