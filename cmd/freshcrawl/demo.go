package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/refresh"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

func runDemo(args []string, stdout, stderr io.Writer) int {
	sc := simweb.DefaultConfig()
	sc.Speed = 3600
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: freshcrawl demo [flags]

Start a synthetic web (simweb) in this process and crawl it, with a fetch
budget below what keeping every page fresh would need, printing a live line:
pages held, fetches per second, and the collection's true freshness and age,
which simweb knows because it knows which version of every page is live.

  fresh   share of the pages robots.txt lets the crawler fetch whose held
          copy is the live version (pages not yet held count as not fresh, so
          this rises as the crawl fills the collection, then settles where
          the budget holds it)
  held    the same share among the pages held
  age     mean age of the held copies, in simulated time (dissertation §5.2:
          how long a copy has been out of date; 0 if fresh)
  rate within 2×
          of the pages fetched at least three times, the share whose
          estimated change rate (dissertation ch. 6, paper 001) is within a
          factor of 2 of simweb's true rate, and how many there are

Simulated time runs -speed times faster than wall time; politeness (the
per-host delay, robots.txt Crawl-delay) is in wall time. Stop with Ctrl-C.

Flags:
`)
		fs.PrintDefaults()
	}
	fs.IntVar(&sc.Hosts, "hosts", sc.Hosts, "hosts of the synthetic web")
	fs.IntVar(&sc.PagesPerHost, "pages", sc.PagesPerHost, "pages per host")
	fs.Uint64Var(&sc.Seed, "seed", sc.Seed, "simweb seed: the same seed gives the same web")
	fs.Float64Var(&sc.Speed, "speed", sc.Speed, "simulated seconds per wall second")
	budget := fs.Float64("budget", 100, "fetches per second over all hosts")
	delay := fs.Duration("delay", 200*time.Millisecond, "least gap between requests to one host")
	runFor := fs.Duration("for", 0, "stop after this long (0: until interrupted)")
	every := fs.Duration("progress", 3*time.Second, "interval of the live line")
	dataDir := fs.String("data", "", "keep the crawl (state and WARC files) in this directory (default: a temporary one, removed at exit)")
	control := fs.String("control", "", "also serve simweb's control API (truth, audit) on this address, e.g. 127.0.0.1:8081")
	verbose := fs.Bool("v", false, "log every failed fetch")
	pol := fs.String("policy", string(refresh.Optimal), "refresh policy: optimal, uniform, proportional, nutch or stormcrawler (see freshcrawl crawl -h)")
	objective := fs.String("objective", string(refresh.Freshness), "what -policy optimal optimises: freshness, age, embarrassment or cost")
	warmup := fs.Duration("warmup", 0, "with -for: the summary at the end averages the live lines after this much wall time")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "freshcrawl demo: unexpected arguments: %v\n", fs.Args())
		return 2
	}
	if *budget <= 0 || *every <= 0 || *delay < 0 || *runFor < 0 || *warmup < 0 {
		fmt.Fprintln(stderr, "freshcrawl demo: -budget and -progress must be positive, -delay, -for and -warmup not negative")
		return 2
	}
	if !slices.Contains(refresh.Names, refresh.Name(*pol)) {
		fmt.Fprintf(stderr, "freshcrawl demo: -policy %q: want one of %v\n", *pol, refresh.Names)
		return 2
	}
	if !slices.Contains(refresh.Objectives, refresh.Objective(*objective)) {
		fmt.Fprintf(stderr, "freshcrawl demo: -objective %q: want one of %v\n", *objective, refresh.Objectives)
		return 2
	}
	web, err := simweb.New(sc, nil)
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl demo: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if *runFor > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *runFor)
		defer cancel()
	}
	d := &demo{web: web, copies: map[string]uint32{}, rates: map[string]estimated{}, stdout: stdout, stderr: stderr}
	return d.run(ctx, demoOptions{dataDir: *dataDir, control: *control, budget: *budget, delay: *delay, every: *every,
		verbose: *verbose, policy: refresh.Name(*pol), objective: refresh.Objective(*objective), warmup: *warmup})
}

// demoOptions are the demo's settings.
type demoOptions struct {
	dataDir, control string
	budget           float64
	delay, every     time.Duration
	verbose          bool
	policy           refresh.Name
	objective        refresh.Objective
	warmup           time.Duration
}

// demo tracks the collection a crawl holds, copy by copy, so simweb can
// tell how fresh it is.
type demo struct {
	web            *simweb.Web
	stdout, stderr io.Writer

	mu     sync.Mutex
	copies map[string]uint32    // URL → version held
	rates  map[string]estimated // URL → the crawler's change-rate estimate
}

// estimated is the crawler's latest change-rate estimate of a page.
type estimated struct {
	rate    float64 // changes per wall-clock second
	fetches uint32
}

// rateCheckFetches is the fetches a page needs before the demo compares
// its estimated change rate with the truth: two intervals observed.
const rateCheckFetches = 3

// observe is the crawler's OnFetch hook: it records which version of a
// page the collection now holds.
func (d *demo) observe(e crawler.Event) {
	if e.Sitemap {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if e.Rate > 0 {
		d.rates[e.URL] = estimated{rate: e.Rate, fetches: e.Fetches}
	}
	switch {
	case !e.Held:
		delete(d.copies, e.URL)
		delete(d.rates, e.URL)
	case e.Body != nil:
		if v, ok := simweb.VersionOf(e.Body); ok {
			d.copies[e.URL] = v
		}
	}
	// A 304 or a failed revisit keeps the copy held before.
}

func (d *demo) quality() simweb.Quality {
	d.mu.Lock()
	copies := make([]simweb.Copy, 0, len(d.copies))
	for u, v := range d.copies {
		copies = append(copies, simweb.Copy{URL: u, Version: v})
	}
	d.mu.Unlock()
	return d.web.Evaluate(d.web.Clock().Now(), copies)
}

// rateAccuracy compares the crawler's change-rate estimates with simweb's
// true rates, over the pages fetched at least rateCheckFetches times: it
// returns how many there are and the share estimated within a factor of 2.
func (d *demo) rateAccuracy() (n int, within2 float64) {
	now := d.web.Clock().Now()
	speed := d.web.Config().Speed
	d.mu.Lock()
	defer d.mu.Unlock()
	good := 0
	for u, e := range d.rates {
		if e.fetches < rateCheckFetches {
			continue
		}
		truth, err := d.web.Truth(u, now)
		if err != nil || truth.Rate <= 0 {
			continue
		}
		// simweb's rate is per simulated day; the crawler's per wall second.
		ratio := e.rate / (truth.Rate / 86400 * speed)
		n++
		if ratio >= 0.5 && ratio <= 2 {
			good++
		}
	}
	if n == 0 {
		return 0, math.NaN()
	}
	return n, float64(good) / float64(n)
}

func (d *demo) run(ctx context.Context, o demoOptions) int {
	dataDir, control, budget, delay, every, verbose := o.dataDir, o.control, o.budget, o.delay, o.every, o.verbose
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(d.stderr, "freshcrawl demo: %v\n", err)
		return 1
	}
	srv := &http.Server{Handler: d.web, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	if control != "" {
		cln, err := net.Listen("tcp", control)
		if err != nil {
			fmt.Fprintf(d.stderr, "freshcrawl demo: -control: %v\n", err)
			return 1
		}
		csrv := &http.Server{Handler: d.web.ControlHandler(), ReadHeaderTimeout: 10 * time.Second}
		go csrv.Serve(cln)
		defer csrv.Close()
	}
	if dataDir == "" {
		dir, err := os.MkdirTemp("", "freshcrawl-demo-")
		if err != nil {
			fmt.Fprintf(d.stderr, "freshcrawl demo: %v\n", err)
			return 1
		}
		defer os.RemoveAll(dir)
		dataDir = dir
	}
	rule, err := fetch.ParseResolve("*." + simweb.Zone + "=" + ln.Addr().String())
	if err != nil {
		fmt.Fprintf(d.stderr, "freshcrawl demo: %v\n", err)
		return 1
	}
	var seeds []string
	for _, h := range d.web.Hosts() {
		seeds = append(seeds, "http://"+h.Name+"/")
	}
	pages := 0 // the pages the crawler may hold: robots.txt allows them
	d.web.Snapshot(d.web.Clock().Now(), func(u string, _ simweb.Version) {
		if d.web.Allowed(u, fetch.DefaultUserAgent) {
			pages++
		}
	})
	level := slog.LevelError
	if verbose {
		level = slog.LevelWarn
	}
	c, err := crawler.New(crawler.Config{
		Seeds: seeds, DataDir: dataDir, Scope: crawler.ScopeAny, Budget: budget, Delay: delay,
		MaxPages: pages,
		Workers:  64,
		Fetch:    fetch.Config{AllowPrivate: true, Resolve: []fetch.ResolveRule{rule}},
		Logger:   slog.New(slog.NewTextHandler(d.stderr, &slog.HandlerOptions{Level: level})),
		OnFetch:  d.observe,
		Policy:   o.policy, Objective: o.objective,
		// Last-Modified and Date come from simweb's simulated clock.
		TimeScale: d.web.Config().Speed,
	})
	if err != nil {
		fmt.Fprintf(d.stderr, "freshcrawl demo: %v\n", err)
		return 1
	}
	cfg := d.web.Config()
	cycle := time.Duration(float64(pages) / budget * float64(time.Second))
	fmt.Fprintf(d.stdout, "demo: simweb of %d hosts × %d pages (%d that robots.txt allows) on %s, simulated time ×%g\n",
		cfg.Hosts, cfg.PagesPerHost, pages, ln.Addr(), cfg.Speed)
	fmt.Fprintf(d.stdout, "demo: budget %g fetches/s: each page once every %v wall = %s simulated, while a fifth of the pages change more than once a day\n",
		budget, cycle.Round(time.Second), simDuration(time.Duration(float64(cycle)*cfg.Speed)))
	fmt.Fprintf(d.stdout, "demo: refresh policy %s", o.policy)
	if o.policy == refresh.Optimal {
		fmt.Fprintf(d.stdout, " (%s)", o.objective)
	}
	fmt.Fprintf(d.stdout, "; crawl data in %s\n", dataDir)
	fmt.Fprintf(d.stdout, "%7s %9s %13s %9s %7s %7s %11s %15s\n", "wall", "simulated", "held", "fetch/s", "fresh", "held", "age(held)", "rate within 2×")

	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- c.Run(ctx) }()
	tick := time.NewTicker(every)
	defer tick.Stop()
	var lastReq int64
	last := start
	var sum struct {
		n                int
		fresh, held, age float64
	}
	line := func() {
		now := time.Now()
		st := c.Stats()
		q := d.quality()
		rate := float64(st.Requests-lastReq) / now.Sub(last).Seconds()
		lastReq, last = st.Requests, now
		webFresh := float64(q.Fresh) / float64(pages)
		est := "-"
		if n, within := d.rateAccuracy(); n > 0 {
			est = fmt.Sprintf("%.2f of %d", within, n)
		}
		if now.Sub(start) >= o.warmup {
			sum.n++
			sum.fresh += webFresh
			sum.held += q.Freshness
			sum.age += q.MeanAge.Seconds()
		}
		fmt.Fprintf(d.stdout, "%7s %9s %6d/%-6d %9.1f %7.3f %7.3f %11s %15s\n",
			now.Sub(start).Round(time.Second), simDuration(d.web.Clock().Now()), q.Pages, pages, rate,
			webFresh, q.Freshness, simDuration(q.MeanAge), est)
	}
	var runErr error
loop:
	for {
		select {
		case <-tick.C:
			line()
		case runErr = <-done:
			break loop
		}
	}
	line()
	if cerr := c.Close(); runErr == nil {
		runErr = cerr
	}
	if runErr != nil {
		fmt.Fprintf(d.stderr, "freshcrawl demo: %v\n", runErr)
		return 1
	}
	st := c.Stats()
	fmt.Fprintf(d.stdout, "demo: %d requests, %d pages fetched (%d changed, %d not modified), %d failures, %d URLs seen\n",
		st.Requests, st.Pages, st.Changed, st.NotModified, st.Failures, st.Seen)
	if sum.n > 0 {
		n := float64(sum.n)
		fmt.Fprintf(d.stdout, "demo: mean of %d lines after %v: fresh %.4f held %.4f age(held) %s\n",
			sum.n, o.warmup, sum.fresh/n, sum.held/n, simDuration(time.Duration(sum.age/n*float64(time.Second))))
	}
	return 0
}

// simDuration prints a simulated duration in days and hours.
func simDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	h := int64(d / time.Hour)
	m := int64(d/time.Minute) % 60
	if h >= 24 {
		return fmt.Sprintf("%dd%02dh", h/24, h%24)
	}
	return fmt.Sprintf("%dh%02dm", h, m)
}
