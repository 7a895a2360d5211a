// Package demo runs `freshcrawl demo`: a synthetic or replayed web
// (internal/world) served in this process, crawled by one crawl or by a
// cluster of nodes in this process, and the collection's true freshness
// and age, which the web knows, printed live.
package demo

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/refresh"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/simweb/replay"
	"github.com/freshcrawl/freshcrawl/internal/ui"
	"github.com/freshcrawl/freshcrawl/internal/world"
)

// Config is a demo's settings.
type Config struct {
	World    world.World
	Describe string // what the web is
	Note     string // a word on its pace, after the budget line
	// DataDir keeps the crawl; "" means a temporary directory, removed at
	// the end.
	DataDir string
	// Listen serves the live dashboard there ("" none; a bare :port on
	// loopback); Control serves the web's control API there ("" none).
	Listen, Control string
	Budget          float64       // fetches per second over all hosts
	Delay           time.Duration // least gap between requests to one host
	Every           time.Duration // interval of the live lines
	Warmup          time.Duration // the summary averages the lines after it
	Policy          refresh.Name
	Objective       refresh.Objective
	NoSignals       bool // crawler.Config.NoSignals
	Logger          *slog.Logger
	// Nodes > 1 crawls with a cluster of that many nodes in this process
	// (internal/cluster/node), over Partitions partitions, through an
	// embedded NATS server.
	Nodes, Partitions int
	Stdout            io.Writer
}

// demo tracks the collection a crawl holds, copy by copy, so simweb can
// tell how fresh it is.
type demo struct {
	cfg   Config
	web   world.World
	start time.Duration // simulated time when the crawl started

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

// dashboard serves the crawl's view on cfg.Listen, simweb's true
// freshness of the held pages beside the crawler's expectation, and
// returns its URL and what stops it (before the crawl closes). A cluster
// has none: its crawls are many.
func (d *demo) dashboard(ctx context.Context, c crawl) (string, func(), error) {
	one, ok := c.(*crawler.Crawler)
	if d.cfg.Listen == "" || !ok {
		return "", func() {}, nil
	}
	srv := ui.New(ui.Config{Crawl: one, Dir: d.cfg.DataDir, Policy: string(d.cfg.Policy), Objective: string(d.cfg.Objective),
		Truth: func() float64 { return d.quality().Freshness }})
	addr := d.cfg.Listen
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	at, stop, err := srv.Listen(ctx, addr)
	if err != nil {
		return "", nil, fmt.Errorf("-listen: %w", err)
	}
	d.mu.Lock()
	d.view = srv
	d.mu.Unlock()
	return fmt.Sprintf("http://%s/", at), stop, nil
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

// Run serves the world, crawls it until ctx ends, and prints what the
// demo is, a live line every cfg.Every and a summary.
func Run(ctx context.Context, cfg Config) error {
	d := &demo{cfg: cfg, web: cfg.World, copies: map[string]uint32{}, rates: map[string]estimated{}, first: map[string]time.Duration{}}
	addr, stopServing, err := d.serve(cfg.Control)
	if err != nil {
		return err
	}
	defer stopServing()
	if d.cfg.DataDir == "" {
		dir, err := os.MkdirTemp("", "freshcrawl-demo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		d.cfg.DataDir = dir
	}
	d.start = d.web.Clock().Now()
	// The demo audits its own crawl: no two requests to a host closer than
	// -delay, one at a time, Crawl-delay and robots.txt obeyed.
	d.web.Audit().Reset(simweb.AuditConfig{MinDelay: cfg.Delay, MaxInFlight: 1})
	pages := d.web.LivePages(d.start)
	c, err := d.newCrawl(addr, d.web.Capacity(d.start))
	if err != nil {
		return err
	}
	view, stopView, err := d.dashboard(ctx, c)
	if err != nil {
		c.Close()
		return err
	}
	d.header(addr, pages, view)
	live, runErr := d.watch(ctx, c, pages)
	stopView()
	if cerr := c.Close(); runErr == nil {
		runErr = cerr
	}
	if runErr != nil {
		return runErr
	}
	d.summary(c.Stats(), live)
	return nil
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

// crawlConfig is the crawl of the web at addr: every host a seed, a
// collection of capacity pages (0: no limit), and the web's clock.
func (d *demo) crawlConfig(addr net.Addr, capacity int) (crawler.Config, error) {
	rule, err := fetch.ParseResolve("*." + simweb.Zone + "=" + addr.String())
	if err != nil {
		return crawler.Config{}, err
	}
	return crawler.Config{
		Seeds: d.web.Seeds(), DataDir: d.cfg.DataDir, Scope: crawler.ScopeAny, Budget: d.cfg.Budget, Delay: d.cfg.Delay,
		MaxPages: capacity,
		Workers:  64,
		Fetch:    fetch.Config{AllowPrivate: true, Resolve: []fetch.ResolveRule{rule}},
		Logger:   d.cfg.Logger,
		OnFetch:  d.observe,
		Policy:   d.cfg.Policy, Objective: d.cfg.Objective, NoSignals: d.cfg.NoSignals,
		// Last-Modified and Date come from simweb's simulated clock.
		TimeScale: d.web.Speed(),
	}, nil
}

// header prints what the demo runs, and the live lines' column heads.
func (d *demo) header(addr net.Addr, pages int, view string) {
	speed := d.web.Speed()
	cycle := time.Duration(float64(pages) / d.cfg.Budget * float64(time.Second))
	w := d.cfg.Stdout
	fmt.Fprintf(w, "demo: %s (%d that robots.txt allows) on %s, simulated time ×%g\n", d.cfg.Describe, pages, addr, speed)
	fmt.Fprintf(w, "demo: budget %g fetches/s: each page once every %v wall = %s simulated%s\n",
		d.cfg.Budget, cycle.Round(time.Second), simDuration(time.Duration(float64(cycle)*speed)), d.cfg.Note)
	fmt.Fprintf(w, "demo: refresh policy %s", d.cfg.Policy)
	if d.cfg.Policy == refresh.Optimal {
		fmt.Fprintf(w, " (%s)", d.cfg.Objective)
	}
	fmt.Fprintf(w, "; crawl data in %s\n", d.cfg.DataDir)
	if d.cfg.Nodes > 1 {
		fmt.Fprintf(w, "demo: a cluster of %d nodes in this process, %d partitions by site, exchange mode, over an embedded NATS server\n", d.cfg.Nodes, d.cfg.Partitions)
	}
	if view != "" {
		fmt.Fprintf(w, "demo: live dashboard on %s (Prometheus metrics on %smetrics)\n", view, view)
	}
	fmt.Fprintf(w, "%7s %9s %13s %9s %7s %7s %11s %15s\n", "wall", "simulated", "pages held", "fetch/s", "fresh", "held", "age(held)", "rate within 2×")
}

// watch runs the crawler until ctx ends or it fails, printing a live line
// every o.every and at the end, and returns the lines and the crawler's
// error.
func (d *demo) watch(ctx context.Context, c crawl, pages int) (*liveLines, error) {
	done := make(chan error, 1)
	live := &liveLines{d: d, c: c, pages: pages, warmup: d.cfg.Warmup, start: time.Now()}
	live.last = live.start
	go func() { done <- c.Run(ctx) }()
	tick := time.NewTicker(d.cfg.Every)
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
	c       crawl
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
	fmt.Fprintf(l.d.cfg.Stdout, "%7s %9s %6d/%-6d %9.1f %7.3f %7.3f %11s %15s\n",
		now.Sub(l.start).Round(time.Second), simDuration(l.d.web.Clock().Now()), q.Pages, l.pages, rate,
		webFresh, q.Freshness, simDuration(q.MeanAge), est)
}

// summary prints the crawl's counts and the mean of the live lines after
// the warm-up.
func (d *demo) summary(st crawler.Stats, live *liveLines) {
	w := d.cfg.Stdout
	fmt.Fprintf(w, "demo: %d requests, %d pages fetched (%d changed, %d not modified), %d failures, %d URLs seen\n",
		st.Requests, st.Pages, st.Changed, st.NotModified, st.Failures, st.Seen)
	if live.n > 0 {
		n := float64(live.n)
		used := float64(live.lastReq-live.winReq) / (d.cfg.Budget * live.last.Sub(live.winStart).Seconds())
		fmt.Fprintf(w, "demo: mean of %d lines after %v: fresh %.4f held %.4f age(held) %s budget used %.3f\n",
			live.n, d.cfg.Warmup, live.fresh/n, live.held/n, simDuration(time.Duration(live.age/n*float64(time.Second))), used)
	}
	if s, ok := d.web.(*replay.Server); ok {
		d.mu.Lock()
		dv := s.Discovery(d.start, s.Clock().Now(), d.first)
		d.mu.Unlock()
		fmt.Fprintf(w, "demo: discovery: %d pages created during the crawl, %d fetched, median lag %.2f days, %d never fetched\n",
			dv.New, len(dv.Lags), dv.Median.Hours()/24, dv.Censored)
	}
	a := d.web.Audit().Report()
	fmt.Fprintf(w, "demo: politeness audit: %d requests, %d violations (gap under %v %d, more than one at a time %d, Crawl-delay %d, disallowed %d)\n",
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
