package datadir

import (
	"time"

	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// Activity is what a crawl has done, as its page rows and their visits
// record it, for the plots of freshcrawl report (internal/report). Times
// are on the crawler's clock; rates and intervals too, so a crawl of a
// simulated web shows them in wall time, not the web's.
type Activity struct {
	// Held is the estimates of the pages held (sitemaps apart).
	Held []HeldPage
	// Fetches is the time of every visit recorded, sitemaps included, in
	// no particular order; Changes of those that found the content
	// changed. A visit is 24 bytes here, so a crawl of 10^7 visits takes
	// a few hundred MB to read.
	Fetches, Changes []time.Time
	// FirstFetched is when each URL with a row was first fetched (its
	// FirstSeen), FirstHeld when each was first answered with content
	// (its first 2xx visit), sitemaps apart.
	FirstFetched, FirstHeld []time.Time
	// HostFetches is the fetches of each host's rows, sitemaps included
	// (robots.txt requests have no rows).
	HostFetches map[string]int64
	// Seen is the URLs ever seen, fetched or not.
	Seen uint64
}

// HeldPage is one held page's estimates: Rate, its estimated change rate
// in changes per second, and Interval, the revisit interval the refresh
// policy last chose, in seconds; each zero if none.
type HeldPage struct{ Rate, Interval float64 }

// ReadActivity reads the activity of the crawl in dir, which must not be
// running. It reads every page row and every visit. Errors are as Open's.
func ReadActivity(dir string) (*Activity, error) {
	s, err := Open(dir)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	a := &Activity{HostFetches: map[string]int64{}, Seen: s.SeenCount()}
	err = s.ForEachPage(func(p store.Page) error {
		visits, err := s.Visits(p.URL)
		if err != nil {
			return err
		}
		a.add(&p, visits)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// add adds a page row and its visits.
func (a *Activity) add(p *store.Page, visits []store.Visit) {
	a.HostFetches[urlx.Host(p.URL)] += int64(p.Fetches)
	for _, v := range visits {
		if v.Status == store.StatusUnchanged {
			continue // a sitemap read, no fetch
		}
		a.Fetches = append(a.Fetches, v.Time)
		if v.Changed {
			a.Changes = append(a.Changes, v.Time)
		}
	}
	if p.Kind != store.KindPage {
		return
	}
	if p.Held {
		a.Held = append(a.Held, HeldPage{Rate: p.Rate, Interval: p.Interval})
	}
	if !p.FirstSeen.IsZero() {
		a.FirstFetched = append(a.FirstFetched, p.FirstSeen)
	}
	for _, v := range visits {
		if v.Status >= 200 && v.Status < 300 {
			a.FirstHeld = append(a.FirstHeld, v.Time)
			break
		}
	}
}
