package history

import (
	"time"

	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

// Evaluate computes the freshness and mean age at t (unix seconds) of a
// collection of copies, whose URL fields are page keys, by the rules
// simweb.Web.Evaluate follows (dissertation §5.2): a copy is fresh if its
// version is the live one; otherwise its age is the time since the live
// page first differed from it, that is since the event after the copy's
// version (the next version, or the deletion, whichever came first). A
// copy of a deleted page is stale since the deletion. Keys the history
// does not have are counted as Unknown.
func (h *History) Evaluate(t int64, copies []simweb.Copy) simweb.Quality {
	return Evaluate(t, copies, h.Lookup)
}

// Evaluate is History.Evaluate with the pages found by lookup, which
// returns nil for a URL it does not know.
func Evaluate(t int64, copies []simweb.Copy, lookup func(url string) *Page) simweb.Quality {
	var q simweb.Quality
	var ageSum float64
	for _, c := range copies {
		p := lookup(c.URL)
		if p == nil {
			q.Unknown++
			continue
		}
		q.Pages++
		age, fresh := p.CopyAge(c.Version, t)
		if fresh {
			q.Fresh++
		}
		ageSum += float64(age) * 1e9
	}
	if q.Pages > 0 {
		q.Freshness = float64(q.Fresh) / float64(q.Pages)
		q.MeanAge = time.Duration(ageSum / float64(q.Pages))
	}
	return q
}

// CopyAge returns how long, in seconds, a copy of version v has been stale
// at t, and whether it is fresh (then the age is 0).
func (p *Page) CopyAge(v uint32, t int64) (age int64, fresh bool) {
	if stale := p.StaleSince(v); stale <= t {
		return t - stale, false
	}
	return 0, true
}
