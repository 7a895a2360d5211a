package crawler

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

// BenchmarkCrawlThroughput crawls a simweb of 1,000 hosts × 100 pages with
// no delay and one connection per host, as the throughput acceptance test
// does, and reports pages fetched, parsed and stored per second. The web is
// served in the same process, so the figure is a lower bound on what the
// crawler does alone; bench/crawl-throughput.sh measures the two processes
// apart.
func BenchmarkCrawlThroughput(b *testing.B) {
	sc := simweb.DefaultConfig()
	sc.Hosts, sc.PagesPerHost = 1000, 100
	sc.Robots.CrawlDelay = 0
	web, err := simweb.New(sc, simweb.NewWallClock(1))
	if err != nil {
		b.Fatal(err)
	}
	addr := serve(b, web)
	for b.Loop() {
		cfg := testConfig(b, b.TempDir(), addr)
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
		cfg.Seeds = seedsOf(web)
		cfg.Delay = -1
		cfg.Workers = 1000
		cfg.NoSync = false
		c, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		start := time.Now()
		done := make(chan error, 1)
		go func() { done <- c.Run(ctx) }()
		target := int64(sc.Hosts*sc.PagesPerHost) * 9 / 10
		for c.Stats().Held < target && time.Since(start) < 2*time.Minute {
			time.Sleep(50 * time.Millisecond)
		}
		el := time.Since(start)
		st := c.Stats()
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		c.Close()
		b.ReportMetric(float64(st.Pages)/el.Seconds(), "pages/s")
		b.ReportMetric(float64(st.Requests)/el.Seconds(), "requests/s")
	}
}
