package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os/signal"
	"syscall"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
	"github.com/freshcrawl/freshcrawl/internal/demo"
	"github.com/freshcrawl/freshcrawl/internal/refresh"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/simweb/replay"
	"github.com/freshcrawl/freshcrawl/internal/world"
)

// demoOptions are the demo's settings.
type demoOptions struct {
	web              simweb.Config
	dataDir, control string
	listen           string
	budget           float64
	delay, every     time.Duration
	runFor, warmup   time.Duration
	logLevel         slog.Level
	logFormat        string
	policy           refresh.Name
	objective        refresh.Objective
	signals          bool
	hist             replay.Options
	nodes, parts     int
}

// demoFlags defines the demo's flags on a new FlagSet bound to o.
func demoFlags(o *demoOptions) *flag.FlagSet {
	fs := newFlagSet("demo")
	fs.IntVar(&o.web.Hosts, "hosts", o.web.Hosts, "hosts of the synthetic web")
	fs.IntVar(&o.web.PagesPerHost, "pages", o.web.PagesPerHost, "pages per host")
	fs.Uint64Var(&o.web.Seed, "seed", o.web.Seed, "simweb seed: the same seed gives the same web")
	fs.Float64Var(&o.web.Speed, "speed", o.web.Speed, "simulated seconds per wall second")
	fs.Float64Var(&o.budget, "budget", 100, "fetches per second over all hosts")
	fs.DurationVar(&o.delay, "delay", 200*time.Millisecond, "least gap between requests to one host")
	fs.DurationVar(&o.runFor, "for", 0, "stop after this long (0: until interrupted)")
	fs.DurationVar(&o.every, "progress", 3*time.Second, "interval of the live line")
	fs.StringVar(&o.dataDir, "data", "", "keep the crawl (state and WARC files) in this directory (default: a temporary one, removed at exit)")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:0", "serve the live dashboard, /metrics and /api/status on `ADDR` (port 0: any free one; empty: none)")
	fs.StringVar(&o.control, "control", "", "also serve simweb's control API (truth, audit) on this address, e.g. 127.0.0.1:8081")
	fs.TextVar(&o.logLevel, "log-level", slog.LevelError, "log `level` of the crawl, as crawl's: debug, info, warn (every failed fetch) or error")
	fs.StringVar(&o.logFormat, "log-format", "text", "log `format`: text (key=value) or json (an object a line)")
	fs.StringVar((*string)(&o.policy), "policy", string(refresh.Optimal), "refresh policy: optimal, uniform, proportional, nutch, stormcrawler, roundrobin, lambdacrawl or binary-poisson (see freshcrawl crawl -h)")
	fs.StringVar((*string)(&o.objective), "objective", string(refresh.Freshness), "what -policy optimal optimises: freshness, age, harmonic, embarrassment or cost")
	fs.BoolVar(&o.signals, "signals", true, "act on the lastmod dates of sitemaps that have proven honest (see freshcrawl crawl -h)")
	fs.Float64Var(&o.web.Sitemaps.None, "sitemap-none", o.web.Sitemaps.None, "simweb: share of sites without a sitemap")
	fs.Float64Var(&o.web.Sitemaps.Wrong, "sitemap-wrong", o.web.Sitemaps.Wrong, "simweb: share of sites whose sitemap lastmod dates are wrong (the rest are honest)")
	fs.Float64Var(&o.web.Sitemaps.Text, "sitemap-text", o.web.Sitemaps.Text, "simweb: share of the sitemaps that are text files, with no lastmod dates")
	fs.DurationVar(&o.warmup, "warmup", 0, "with -for: the summary at the end averages the live lines after this much wall time")
	fs.IntVar(&o.nodes, "nodes", 1, "crawl with a cluster of this many nodes in this process, over an embedded NATS server (1: one crawl; a cluster has no dashboard)")
	fs.IntVar(&o.parts, "partitions", cluster.DefaultPartitions, "with -nodes: partitions of the web, by site")
	historyFlags(fs, &o.hist)
	return fs
}

// check reports the first setting out of its range.
func (o *demoOptions) check() error {
	return cmp.Or(
		notPositive("budget", o.budget), notPositive("progress", o.every),
		negative("delay", o.delay), negative("for", o.runFor), negative("warmup", o.warmup),
		notPositive("nodes", o.nodes), notPositive("partitions", o.parts),
		notOneOf("policy", o.policy, refresh.Names), notOneOf("objective", o.objective, refresh.Objectives),
		notOneOf("log-format", o.logFormat, logFormats))
}

func runDemo(args []string, stdout, stderr io.Writer) int {
	o := demoOptions{web: simweb.DefaultConfig()}
	o.web.Speed = 3600
	fs := demoFlags(&o)
	if code, ok := parseArgs("demo", fs, args, stdout, stderr); !ok {
		return code
	}
	if err := o.check(); err != nil {
		fmt.Fprintf(stderr, "freshcrawl demo: %v\n", err)
		return 2
	}
	cfg := demo.Config{
		DataDir: o.dataDir, Listen: o.listen, Control: o.control, Budget: o.budget, Delay: o.delay,
		Every: o.every, Warmup: o.warmup, Policy: o.policy, Objective: o.objective, NoSignals: !o.signals,
		Logger: newLogger(stderr, o.logFormat, o.logLevel), Nodes: o.nodes, Partitions: o.parts, Stdout: stdout,
	}
	var err error
	if o.hist.File != "" || o.hist.Bursty {
		o.hist.Speed, o.hist.Seed = replaySpeed(fs, o.web.Speed), o.web.Seed
		var s *replay.Server
		if s, err = replay.Open(o.hist); err == nil {
			cfg.World, cfg.Describe = s, fmt.Sprintf("replay of %d pages on %d hosts", len(s.History().Pages), s.NumSites())
		}
	} else {
		var web *simweb.Web
		web, err = simweb.New(o.web, nil)
		cfg.World, cfg.Describe = world.PoissonWorld{Web: web}, fmt.Sprintf("simweb of %d hosts × %d pages", o.web.Hosts, o.web.PagesPerHost)
		cfg.Note = ", while a fifth of the pages change more than once a day"
	}
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl demo: %v\n", err)
		return 2
	}
	// SIGPIPE too (a reader of the output gone, as with | head): the
	// write fails instead of killing the process, and the demo stops as
	// on Ctrl-C, its temporary directory removed.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM, syscall.SIGPIPE)
	defer stop()
	if o.runFor > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.runFor)
		defer cancel()
	}
	if err := demo.Run(ctx, cfg); err != nil {
		fmt.Fprintf(stderr, "freshcrawl demo: %v\n", err)
		return 1
	}
	return 0
}
