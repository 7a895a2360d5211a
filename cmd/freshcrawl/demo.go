package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/refresh"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/simweb/replay"
	"github.com/freshcrawl/freshcrawl/internal/ui"
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
	hist             replay.Options
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
	fs.StringVar((*string)(&o.policy), "policy", string(refresh.Optimal), "refresh policy: optimal, uniform, proportional, nutch, stormcrawler or roundrobin (see freshcrawl crawl -h)")
	fs.StringVar((*string)(&o.objective), "objective", string(refresh.Freshness), "what -policy optimal optimises: freshness, age, embarrassment or cost")
	fs.DurationVar(&o.warmup, "warmup", 0, "with -for: the summary at the end averages the live lines after this much wall time")
	historyFlags(fs, &o.hist)
	return fs
}

// check reports the first setting out of its range.
func (o *demoOptions) check() error {
	return cmp.Or(
		notPositive("budget", o.budget), notPositive("progress", o.every),
		negative("delay", o.delay), negative("for", o.runFor), negative("warmup", o.warmup),
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
	d := &demo{copies: map[string]uint32{}, rates: map[string]estimated{}, first: map[string]time.Duration{}, stdout: stdout, stderr: stderr}
	var err error
	if o.hist.File != "" || o.hist.Bursty {
		o.hist.Speed, o.hist.Seed = replaySpeed(fs, o.web.Speed), o.web.Seed
		var s *replay.Server
		if s, err = replay.Open(o.hist); err == nil {
			d.web, d.describe = s, fmt.Sprintf("replay of %d pages on %d hosts", len(s.History().Pages), s.NumSites())
		}
	} else {
		var web *simweb.Web
		web, err = simweb.New(o.web, nil)
		d.web, d.describe = world.PoissonWorld{Web: web}, fmt.Sprintf("simweb of %d hosts × %d pages", o.web.Hosts, o.web.PagesPerHost)
		d.note = ", while a fifth of the pages change more than once a day"
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
	return d.run(ctx, o)
}

// demo tracks the collection a crawl holds, copy by copy, so simweb can
// tell how fresh it is.
type demo struct {
	web            world.World
	describe, note string // what the web is, and a word on its pace
	stdout, stderr io.Writer
	start          time.Duration // simulated time when the crawl started

	view *ui.Server // the dashboard's, if served

	mu     sync.Mutex
	copies map[string]uint32        // URL → version held
	rates  map[string]estimated     // URL → the crawler's change-rate estimate
	first  map[string]time.Duration // URL → simulated time of its first fetch
}

// estimated is the crawler's latest change-rate estimate of a page.
type estimated struct {
	rate    float64 // changes per wall-clock second
	fetches uint32
}

// rateCheckFetches is the fetches a page needs before the demo compares
// its estimated change rate with the truth: ten revisits.
const rateCheckFetches = 11

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
		if _, ok := d.first[e.URL]; !ok {
			d.first[e.URL] = d.web.Clock().Now()
		}
	}
	// A 304 or a failed revisit keeps the copy held before.
	if d.view != nil {
		d.view.Observe(e)
	}
}

// dashboard serves the crawl's view on -listen, simweb's true freshness
// of the held pages beside the crawler's expectation, and returns its URL
// and what stops it (before the crawl closes).
func (d *demo) dashboard(ctx context.Context, o demoOptions, c *crawler.Crawler, dataDir string) (string, func(), error) {
	if o.listen == "" {
		return "", func() {}, nil
	}
	srv := ui.New(ui.Config{Crawl: c, Dir: dataDir, Policy: string(o.policy), Objective: string(o.objective),
		Truth: func() float64 { return d.quality().Freshness }})
	addr, stop, err := serveUI(ctx, srv, o.listen)
	if err != nil {
		return "", nil, fmt.Errorf("-listen: %w", err)
	}
	d.view = srv
	return fmt.Sprintf("http://%s/", addr), stop, nil
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
	speed := d.web.Speed()
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

// run serves the web, crawls it until ctx ends, and prints what the demo
// is, a live line every o.every and a summary.
func (d *demo) run(ctx context.Context, o demoOptions) int {
	fail := func(err error) int {
		fmt.Fprintf(d.stderr, "freshcrawl demo: %v\n", err)
		return 1
	}
	addr, stopServing, err := d.serve(o.control)
	if err != nil {
		return fail(err)
	}
	defer stopServing()
	dataDir := o.dataDir
	if dataDir == "" {
		dir, err := os.MkdirTemp("", "freshcrawl-demo-")
		if err != nil {
			return fail(err)
		}
		defer os.RemoveAll(dir)
		dataDir = dir
	}
	d.start = d.web.Clock().Now()
	// The demo audits its own crawl: no two requests to a host closer than
	// -delay, one at a time, Crawl-delay and robots.txt obeyed.
	d.web.Audit().Reset(simweb.AuditConfig{MinDelay: o.delay, MaxInFlight: 1})
	pages := d.web.LivePages(d.start)
	c, err := d.newCrawler(o, dataDir, addr, d.web.Capacity(d.start))
	if err != nil {
		return fail(err)
	}
	view, stopView, err := d.dashboard(ctx, o, c, dataDir)
	if err != nil {
		c.Close()
		return fail(err)
	}
	d.header(o, dataDir, addr, pages, view)
	live, runErr := d.watch(ctx, c, o, pages)
	stopView()
	if cerr := c.Close(); runErr == nil {
		runErr = cerr
	}
	if runErr != nil {
		return fail(runErr)
	}
	d.summary(c.Stats(), live, o)
	return 0
}

// serve starts serving the web on a loopback port, and its control API on
// control if that is set. It returns the web's address and the function
// that stops both.
func (d *demo) serve(control string) (net.Addr, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	srv := &http.Server{Handler: d.web, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	if control == "" {
		return ln.Addr(), func() { srv.Close() }, nil
	}
	cln, err := net.Listen("tcp", control)
	if err != nil {
		srv.Close()
		return nil, nil, fmt.Errorf("-control: %w", err)
	}
	csrv := &http.Server{Handler: d.web.ControlHandler(), ReadHeaderTimeout: 10 * time.Second}
	go csrv.Serve(cln)
	return ln.Addr(), func() { csrv.Close(); srv.Close() }, nil
}

// newCrawler makes the crawler of the web at addr: every host a seed, a
// collection of capacity pages (0: no limit), and the web's clock.
func (d *demo) newCrawler(o demoOptions, dataDir string, addr net.Addr, capacity int) (*crawler.Crawler, error) {
	rule, err := fetch.ParseResolve("*." + simweb.Zone + "=" + addr.String())
	if err != nil {
		return nil, err
	}
	seeds := d.web.Seeds()
	return crawler.New(crawler.Config{
		Seeds: seeds, DataDir: dataDir, Scope: crawler.ScopeAny, Budget: o.budget, Delay: o.delay,
		MaxPages: capacity,
		Workers:  64,
		Fetch:    fetch.Config{AllowPrivate: true, Resolve: []fetch.ResolveRule{rule}},
		Logger:   newLogger(d.stderr, o.logFormat, o.logLevel),
		OnFetch:  d.observe,
		Policy:   o.policy, Objective: o.objective,
		// Last-Modified and Date come from simweb's simulated clock.
		TimeScale: d.web.Speed(),
	})
}

// header prints what the demo runs, and the live lines' column heads.
func (d *demo) header(o demoOptions, dataDir string, addr net.Addr, pages int, view string) {
	speed := d.web.Speed()
	cycle := time.Duration(float64(pages) / o.budget * float64(time.Second))
	fmt.Fprintf(d.stdout, "demo: %s (%d that robots.txt allows) on %s, simulated time ×%g\n", d.describe, pages, addr, speed)
	fmt.Fprintf(d.stdout, "demo: budget %g fetches/s: each page once every %v wall = %s simulated%s\n",
		o.budget, cycle.Round(time.Second), simDuration(time.Duration(float64(cycle)*speed)), d.note)
	fmt.Fprintf(d.stdout, "demo: refresh policy %s", o.policy)
	if o.policy == refresh.Optimal {
		fmt.Fprintf(d.stdout, " (%s)", o.objective)
	}
	fmt.Fprintf(d.stdout, "; crawl data in %s\n", dataDir)
	if view != "" {
		fmt.Fprintf(d.stdout, "demo: live dashboard on %s (Prometheus metrics on %smetrics)\n", view, view)
	}
	fmt.Fprintf(d.stdout, "%7s %9s %13s %9s %7s %7s %11s %15s\n", "wall", "simulated", "pages held", "fetch/s", "fresh", "held", "age(held)", "rate within 2×")
}

// watch runs the crawler until ctx ends or it fails, printing a live line
// every o.every and at the end, and returns the lines and the crawler's
// error.
func (d *demo) watch(ctx context.Context, c *crawler.Crawler, o demoOptions, pages int) (*liveLines, error) {
	done := make(chan error, 1)
	live := &liveLines{d: d, c: c, pages: pages, warmup: o.warmup, start: time.Now()}
	live.last = live.start
	go func() { done <- c.Run(ctx) }()
	tick := time.NewTicker(o.every)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			live.print()
		case err := <-done:
			live.print()
			return live, err
		}
	}
}

// liveLines prints the live lines and sums those after the warm-up.
type liveLines struct {
	d       *demo
	c       *crawler.Crawler
	pages   int
	warmup  time.Duration
	start   time.Time
	last    time.Time // of the previous line
	lastReq int64     // requests by then

	winStart         time.Time // the averaged window: its start, and the requests by then
	winReq           int64
	n                int // lines summed
	fresh, held, age float64
}

// print prints one live line: wall and simulated time, pages held, the
// fetch rate since the previous line, the collection's true freshness and
// age, and how well the change rates are estimated.
func (l *liveLines) print() {
	now := time.Now()
	st := l.c.Stats()
	q := l.d.quality()
	rate := float64(st.Requests-l.lastReq) / now.Sub(l.last).Seconds()
	if now.Sub(l.start) >= l.warmup && l.n == 0 {
		l.winStart, l.winReq = l.last, l.lastReq
	}
	l.lastReq, l.last = st.Requests, now
	l.pages = l.d.web.LivePages(l.d.web.Clock().Now())
	webFresh := float64(q.Fresh) / float64(l.pages)
	est := "-"
	if n, within := l.d.rateAccuracy(); n > 0 {
		est = fmt.Sprintf("%.2f of %d", within, n)
	}
	if now.Sub(l.start) >= l.warmup {
		l.n++
		l.fresh += webFresh
		l.held += q.Freshness
		l.age += q.MeanAge.Seconds()
	}
	fmt.Fprintf(l.d.stdout, "%7s %9s %6d/%-6d %9.1f %7.3f %7.3f %11s %15s\n",
		now.Sub(l.start).Round(time.Second), simDuration(l.d.web.Clock().Now()), q.Pages, l.pages, rate,
		webFresh, q.Freshness, simDuration(q.MeanAge), est)
}

// summary prints the crawl's counts and the mean of the live lines after
// the warm-up.
func (d *demo) summary(st crawler.Stats, live *liveLines, o demoOptions) {
	fmt.Fprintf(d.stdout, "demo: %d requests, %d pages fetched (%d changed, %d not modified), %d failures, %d URLs seen\n",
		st.Requests, st.Pages, st.Changed, st.NotModified, st.Failures, st.Seen)
	if live.n > 0 {
		n := float64(live.n)
		used := float64(live.lastReq-live.winReq) / (o.budget * live.last.Sub(live.winStart).Seconds())
		fmt.Fprintf(d.stdout, "demo: mean of %d lines after %v: fresh %.4f held %.4f age(held) %s budget used %.3f\n",
			live.n, o.warmup, live.fresh/n, live.held/n, simDuration(time.Duration(live.age/n*float64(time.Second))), used)
	}
	if s, ok := d.web.(*replay.Server); ok {
		d.mu.Lock()
		dv := s.Discovery(d.start, s.Clock().Now(), d.first)
		d.mu.Unlock()
		fmt.Fprintf(d.stdout, "demo: discovery: %d pages created during the crawl, %d fetched, median lag %.2f days, %d never fetched\n",
			dv.New, len(dv.Lags), dv.Median.Hours()/24, dv.Censored)
	}
	a := d.web.Audit().Report()
	fmt.Fprintf(d.stdout, "demo: politeness audit: %d requests, %d violations (gap under %v %d, more than one at a time %d, Crawl-delay %d, disallowed %d)\n",
		a.Requests, a.Violations(), a.MinDelay, a.DelayViolations, a.ConcurrencyViolations, a.CrawlDelayViolations, a.DisallowedRequests)
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
