// Package world puts the webs freshcrawl's demo and simweb commands serve
// behind one interface: simweb's synthetic Poisson web and the histories
// internal/simweb/replay serves.
package world

import (
	"net/http"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/simweb/replay"
)

var _ World = (*replay.Server)(nil)

// World is what freshcrawl's demo and simweb commands need of the web they
// serve: simweb's Poisson web (PoissonWorld), or a history replayed by
// internal/simweb/replay.
type World interface {
	http.Handler
	ControlHandler() http.Handler
	Clock() simweb.Clock
	Speed() float64
	Seeds() []string
	Evaluate(t time.Duration, copies []simweb.Copy) simweb.Quality
	Truth(url string, t time.Duration) (simweb.PageTruth, error)
	LivePages(t time.Duration) int // pages live at t that robots.txt allows
	Capacity(t time.Duration) int  // the collection's size for a crawl from t (0: no limit)
	Audit() *simweb.Audit          // the politeness audit of the requests served
}

// PoissonWorld is simweb's web as a World.
type PoissonWorld struct{ *simweb.Web }

func (w PoissonWorld) Speed() float64 { return w.Config().Speed }

func (w PoissonWorld) Seeds() []string {
	var seeds []string
	for _, h := range w.Hosts() {
		seeds = append(seeds, "http://"+h.Name+"/")
	}
	return seeds
}

// Capacity is the pages live at t: simweb's URL slots stay as many as
// pages are born and die.
func (w PoissonWorld) Capacity(t time.Duration) int { return w.LivePages(t) }

func (w PoissonWorld) LivePages(t time.Duration) int {
	n := 0
	w.Snapshot(t, func(u string, _ simweb.Version) {
		if w.Allowed(u, fetch.DefaultUserAgent) {
			n++
		}
	})
	return n
}
