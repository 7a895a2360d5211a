package main

import (
	"flag"

	"github.com/freshcrawl/freshcrawl/internal/simweb/replay"
)

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
