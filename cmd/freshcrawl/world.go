package main

import (
	"flag"
	"net/http"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/simweb/replay"
)

// world is what demo and simweb need of the web they serve: simweb's
// Poisson web, or a history replayed by internal/simweb/replay.
type world interface {
	http.Handler
	ControlHandler() http.Handler
	Clock() simweb.Clock
	Speed() float64
	Seeds() []string
	Evaluate(t time.Duration, copies []simweb.Copy) simweb.Quality
	Truth(url string, t time.Duration) (simweb.PageTruth, error)
	LivePages(t time.Duration) int // pages live at t that robots.txt allows
	Capacity(t time.Duration) int  // pages a crawl from t may hold at once: the collection's size
}

// poissonWorld is simweb's web as a world.
type poissonWorld struct{ *simweb.Web }

func (w poissonWorld) Speed() float64 { return w.Config().Speed }

func (w poissonWorld) Seeds() []string {
	var seeds []string
	for _, h := range w.Hosts() {
		seeds = append(seeds, "http://"+h.Name+"/")
	}
	return seeds
}

// Capacity is the pages live at t: simweb's URL slots stay as many as
// pages are born and die.
func (w poissonWorld) Capacity(t time.Duration) int { return w.LivePages(t) }

func (w poissonWorld) LivePages(t time.Duration) int {
	n := 0
	w.Snapshot(t, func(u string, _ simweb.Version) {
		if w.Allowed(u, fetch.DefaultUserAgent) {
			n++
		}
	})
	return n
}

// historyFlags binds the flags that choose a replayed or generated
// history (internal/simweb/replay) to o.
func historyFlags(fs *flag.FlagSet, o *replay.Options) {
	fs.StringVar(&o.File, "replay", "", "serve this change-history file (the format of the data README) instead of the Poisson web")
	fs.BoolVar(&o.Bursty, "bursty", false, "serve a generated bursty history instead of the Poisson web (its parameters: -bursty-config)")
	fs.StringVar(&o.BurstySpec, "bursty-config", "", "with -bursty: name=value items that change the defaults, e.g. sites=8,sweeps=4 (see -h)")
	fs.IntVar(&o.Group, "group", 100, "with -replay or -bursty: pages per host, in key order")
	fs.StringVar(&o.From, "from", "", "with -replay or -bursty: start at this date (YYYY-MM-DD or RFC 3339; default: the first event)")
	fs.StringVar(&o.To, "to", "", "with -replay or -bursty: freeze the world at this date (default: never)")
	fs.StringVar(&o.Drop, "drop", "/pep-0000/", "with -replay: comma-separated keys left out (the data README: /pep-0000/'s state after 2009 is unknown)")
}

// replaySpeed is -speed, or a history day per second if it is not set.
func replaySpeed(fs *flag.FlagSet, speed float64) float64 {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "speed" })
	if set {
		return speed
	}
	return 86400
}
