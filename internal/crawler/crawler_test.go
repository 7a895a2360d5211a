package crawler

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

// testWeb serves a simweb on loopback and returns it with its address.
func testWeb(t *testing.T, cfg simweb.Config, speed float64) (*simweb.Web, string) {
	t.Helper()
	web, err := simweb.New(cfg, simweb.NewWallClock(speed))
	if err != nil {
		t.Fatal(err)
	}
	return web, serve(t, web)
}

// serve serves web on a loopback port until the test ends.
func serve(t testing.TB, web *simweb.Web) string {
	srv := httptest.NewServer(web)
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

func seedsOf(web *simweb.Web) []string {
	var seeds []string
	for _, h := range web.Hosts() {
		seeds = append(seeds, "http://"+h.Name+"/")
	}
	return seeds
}

func testConfig(t testing.TB, dir, addr string) Config {
	rule, err := fetch.ParseResolve("*.test=" + addr)
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
		Fetch:   fetch.Config{AllowPrivate: true, Resolve: []fetch.ResolveRule{rule}, Timeout: 5 * time.Second},
		Logger:  slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})),
		NoSync:  true,
	}
}

func TestCrawlSmallWeb(t *testing.T) {
	sc := simweb.DefaultConfig()
	sc.Hosts, sc.PagesPerHost = 5, 40
	web, addr := testWeb(t, sc, 1)
	web.Audit().Reset(simweb.AuditConfig{MinDelay: 20 * time.Millisecond, MaxInFlight: 1})
	cfg := testConfig(t, t.TempDir(), addr)
	cfg.Seeds = seedsOf(web)
	cfg.Delay = 25 * time.Millisecond
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
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
}
