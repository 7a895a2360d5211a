// Package ui is the operator's view of a running crawl, served by crawl
// -listen and the demo: /metrics in Prometheus's text format, /api/status
// (what freshcrawl status -json prints, read live, with the crawl's
// running figures), and / , a dashboard whose assets are embedded in the
// binary. It only reads the crawl: the crawler's counters, its refresh
// module's expectations and its hosts, and for /api/status a scan of its
// store that runs at most every so often (statusCache).
package ui

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

//go:embed assets
var assets embed.FS

// Config describes the crawl a Server shows.
type Config struct {
	Crawl *crawler.Crawler
	// Dir is the crawl's data directory; Policy and Objective its refresh
	// policy and objective, as named on the command line.
	Dir, Policy, Objective string
	// Truth, if set, returns the collection's true freshness (the demo's
	// simweb knows it), drawn beside the crawler's expectation.
	Truth func() float64
	// Every is how often the live figures are sampled for the charts
	// (default 1 s), Keep how many samples are kept (default 900), Top
	// how many hosts the hosts table and the per-host metrics show
	// (default 10).
	Every time.Duration
	Keep  int
	Top   int
	// Now is the wall clock; time.Now if nil.
	Now func() time.Time
}

// Server serves one crawl's view. Create it with New, feed it the
// crawler's events (Observe), and run its sampler (Run).
type Server struct {
	cfg     Config
	reg     *prometheus.Registry
	fetches *fetchMetrics
	status  statusCache

	mu      sync.Mutex
	series  []Sample
	errors  []ErrorRow // newest last, at most keepErrors
	lastReq int64
	lastAt  time.Time
}

// keepErrors is how many recent failures /api/status lists.
const keepErrors = 50

// New returns the server of cfg's crawl.
func New(cfg Config) *Server {
	if cfg.Every <= 0 {
		cfg.Every = time.Second
	}
	if cfg.Keep <= 0 {
		cfg.Keep = 900
	}
	if cfg.Top <= 0 {
		cfg.Top = 10
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{cfg: cfg, reg: prometheus.NewRegistry(), fetches: newFetchMetrics()}
	s.status.every = 10 * time.Second
	s.reg.MustRegister(s.fetches, collector{s}, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return s
}

// Observe takes one of the crawler's events (its OnFetch hook).
func (s *Server) Observe(e crawler.Event) {
	s.fetches.observe(e)
	if e.Status != 0 && e.Status < 400 {
		return
	}
	reason := e.Err
	if reason == "" {
		reason = http.StatusText(e.Status)
	}
	s.mu.Lock()
	if len(s.errors) == keepErrors {
		copy(s.errors, s.errors[1:])
		s.errors = s.errors[:keepErrors-1]
	}
	s.errors = append(s.errors, ErrorRow{At: e.Time, URL: e.URL, Status: e.Status, Reason: reason})
	s.mu.Unlock()
}

// Handler serves /metrics, /api/status and the dashboard.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("GET /api/status", s.serveStatus)
	static, _ := fs.Sub(assets, "assets")
	mux.Handle("GET /", http.FileServerFS(static))
	return mux
}

func (s *Server) serveStatus(w http.ResponseWriter, r *http.Request) {
	doc := s.Doc()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	enc.Encode(doc)
}

// Listen serves the view on addr, and samples the live figures, until
// the stop it returns is called or ctx ends; call stop before closing the
// crawl: it waits for the requests being served and the store read
// running, and no more start.
func (s *Server) Listen(ctx context.Context, addr string) (net.Addr, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			ln.Close()
		}
	}()
	go func() {
		defer wg.Done()
		s.Run(ctx)
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			sctx, done := context.WithTimeout(context.Background(), 5*time.Second)
			defer done()
			if srv.Shutdown(sctx) != nil {
				srv.Close()
			}
			wg.Wait()
			s.status.close()
		})
	}
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ln.Addr(), stop, nil
}

// Run samples the live figures every cfg.Every until ctx ends.
func (s *Server) Run(ctx context.Context) {
	s.Sample()
	tick := time.NewTicker(s.cfg.Every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			s.Sample()
		}
	}
}
