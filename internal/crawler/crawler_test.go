package crawler

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/memnet"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/warc"
)

// The crawler's tests run inside testing/synctest bubbles: the crawler and
// the simweb it crawls talk over memnet, so time moves only when every
// goroutine waits (on a delay, a back-off, a timer, the other end), and a
// crawl's outcome does not depend on the machine's speed or load. The
// crash tests, whose crawls run in child processes, and the benchmarks,
// which measure wall time, use loopback TCP.

// bubble runs f in a synctest bubble, then empties the process's
// sync.Pools. Pebble pools the tasks of its sstable writers, each with a
// channel; a channel made in a bubble is the bubble's, and a flush in a
// later bubble (or outside any) that reused the task would be a fatal
// error. Two collections drop every pooled object (the first moves them
// to the pools' victim caches, the second frees those), and the bubble's
// goroutines have all ended by then, so none is held. Bubbles therefore
// never run in parallel in this package.
func bubble(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	synctest.Test(t, f)
	runtime.GC()
	runtime.GC()
}

// endpoint is where a test's web is served: an address for the crawler's
// resolve rule, and the dial that reaches it (nil: TCP).
type endpoint struct {
	addr string
	dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// testWeb serves a simweb whose clock runs speed times as fast as the
// test's and returns it with its endpoint.
func testWeb(t *testing.T, cfg simweb.Config, speed float64) (*simweb.Web, endpoint) {
	t.Helper()
	web, err := simweb.New(cfg, simweb.NewWallClock(speed))
	if err != nil {
		t.Fatal(err)
	}
	return web, serve(t, web)
}

// serve serves h over memnet until the test ends.
func serve(t testing.TB, h http.Handler) endpoint {
	l, err := memnet.Listen("127.0.0.1:80")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return endpoint{addr: l.Addr().String(), dial: l.Dial}
}

// serveTCP serves h on a loopback port until the test ends, for crawls
// outside a bubble.
func serveTCP(t testing.TB, h http.Handler) endpoint {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return endpoint{addr: srv.Listener.Addr().String()}
}

func seedsOf(web *simweb.Web) []string {
	var seeds []string
	for _, h := range web.Hosts() {
		seeds = append(seeds, "http://"+h.Name+"/")
	}
	return seeds
}

func testConfig(t testing.TB, dir string, at endpoint) Config {
	rule, err := fetch.ParseResolve("*.test=" + at.addr)
	if err != nil {
		t.Fatal(err)
	}
	level := slog.LevelWarn
	if testing.Verbose() {
		level = slog.LevelInfo
	}
	return Config{
		DataDir: dir,
		Scope:   ScopeAny,
		Fetch: fetch.Config{AllowPrivate: true, Resolve: []fetch.ResolveRule{rule}, Timeout: 5 * time.Second,
			Dial: at.dial},
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})),
		NoSync: true,
	}
}

// newCrawler makes a crawler of cfg, failing the test if it cannot.
func newCrawler(t testing.TB, cfg Config) *Crawler {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runFor runs c until d has passed on the test's clock, failing the test
// if Run fails; c stays open.
func runFor(t testing.TB, c *Crawler, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestCrawlSmallWeb(t *testing.T) {
	bubble(t, func(t *testing.T) {
		sc := simweb.DefaultConfig()
		sc.Hosts, sc.PagesPerHost = 5, 40
		web, addr := testWeb(t, sc, 1)
		web.Audit().Reset(simweb.AuditConfig{MinDelay: 20 * time.Millisecond, MaxInFlight: 1})
		cfg := testConfig(t, t.TempDir(), addr)
		cfg.Seeds = seedsOf(web)
		cfg.Delay = 25 * time.Millisecond
		c := newCrawler(t, cfg)
		runFor(t, c, 8*time.Second)
		st := c.Stats()
		t.Logf("stats: %+v", st)
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		rep := web.Audit().Report()
		t.Logf("audit: %+v", rep)
		if v := rep.Violations(); v != 0 {
			t.Errorf("audit: %d violations: %+v", v, rep)
		}
		if st.Held < 100 {
			t.Errorf("held %d pages, want most of 200", st.Held)
		}
	})
}

// failingArchive is a WARC writer whose Sync fails from the n-th call on.
type failingArchive struct {
	Archive
	n, calls int
}

var errDiskFull = errors.New("no space left on device")

func (a *failingArchive) Sync() error {
	if a.calls++; a.calls >= a.n {
		return errDiskFull
	}
	return a.Archive.Sync()
}

// A crawl whose WARC records cannot be made durable stops: Run returns
// the error, and no state points to records that may be lost. The
// archive here fails at its tenth sync; the store then holds exactly the
// outcomes of the nine batches before.
func TestArchiveFailureStops(t *testing.T) {
	bubble(t, func(t *testing.T) {
		sc := simweb.DefaultConfig()
		sc.Hosts, sc.PagesPerHost = 3, 40
		web, addr := testWeb(t, sc, 1)
		dir := t.TempDir()
		w, err := warc.NewWriter(warc.WriterConfig{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		cfg := testConfig(t, dir, addr)
		cfg.Seeds = seedsOf(web)
		cfg.Delay = 10 * time.Millisecond
		cfg.NoSync = false
		cfg.Archive = &failingArchive{Archive: w, n: 10}
		var committed int
		cfg.OnFetch = func(Event) { committed++ }
		c, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Run(ctx); !errors.Is(err, errDiskFull) {
			t.Fatalf("Run returned %v, want the archive's error", err)
		}
		if ctx.Err() != nil {
			t.Error("the crawl ran until its context ended")
		}
		rows := 0
		if err := c.store.ForEachPage(func(store.Page) error { rows++; return nil }); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil && !errors.Is(err, errDiskFull) {
			t.Fatal(err)
		}
		if rows != committed || rows == 0 {
			t.Errorf("%d page rows after %d outcomes committed before the failing sync", rows, committed)
		}
	})
}

// TestScopeKept checks that a crawl keeps its scope: reopened without one
// it has the scope it had, reopened with one it takes that one and keeps
// it in turn, and a new crawl without one has ScopeSite.
func TestScopeKept(t *testing.T) {
	dir := t.TempDir()
	for _, step := range []struct{ give, want Scope }{
		{"", ScopeSite}, {ScopeAny, ScopeAny}, {"", ScopeAny}, {ScopeHost, ScopeHost}, {"", ScopeHost},
	} {
		cfg := testConfig(t, dir, endpoint{addr: "127.0.0.1:9"})
		cfg.Seeds = []string{"http://a.test/"}
		cfg.Scope = step.give
		c := newCrawler(t, cfg)
		if got := c.Stats().Scope; got != step.want {
			t.Errorf("opened with scope %q: %q, want %q", step.give, got, step.want)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
