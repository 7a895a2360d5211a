package replay

import (
	"slices"
	"time"
)

// Discovery is how soon a crawl fetched the pages created while it ran,
// in simulated time.
type Discovery struct {
	New      int             // pages first created after the crawl started, up to now
	Lags     []time.Duration // first fetch − creation of those fetched, in order
	Censored int             // those never fetched: their lag is at least now − creation, unknown
	Median   time.Duration   // the median of Lags (0 if none)
}

// Discovery measures the discovery lag of the pages first created after
// clock time start and by clock time now; first holds the clock time of
// each URL's first fetch.
func (s *Server) Discovery(start, now time.Duration, first map[string]time.Duration) Discovery {
	from, to := s.Instant(start), s.Instant(now)
	var d Discovery
	for i := range s.h.Pages {
		created := s.h.Pages[i].Created()
		if created <= from || created > to {
			continue
		}
		d.New++
		at, ok := first[s.URL(i)]
		if !ok {
			d.Censored++
			continue
		}
		d.Lags = append(d.Lags, max(0, at-time.Duration(created-s.from)*time.Second))
	}
	slices.Sort(d.Lags)
	if n := len(d.Lags); n > 0 {
		d.Median = (d.Lags[(n-1)/2] + d.Lags[n/2]) / 2
	}
	return d
}
