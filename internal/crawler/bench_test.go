package crawler

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
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

// TestBigFrontier measures the frontier at scale, through the crawler's own
// paths: FRESHCRAWL_BIG=1 discovers FRESHCRAWL_BIG_N URLs (default 10^7)
// on 10^5 hosts in synced transactions of 1,000 links, as commits of
// fetched pages do, with the in-memory host table kept as release keeps
// it; then rebuilds the schedule from disk as a restart does and takes
// 10^6 URLs off the queues as workers and commits do. It prints the rates
// and the peak RSS. A measurement, skipped by default.
func TestBigFrontier(t *testing.T) {
	if os.Getenv("FRESHCRAWL_BIG") != "1" {
		t.Skip("set FRESHCRAWL_BIG=1 to run the 10^7-URL measurement")
	}
	total := 10_000_000
	if v := os.Getenv("FRESHCRAWL_BIG_N"); v != "" {
		var err error
		if total, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	const hosts = 100_000
	cfg := Config{DataDir: t.TempDir(), Scope: ScopeAny, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxURLsPerHost: -1}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	found := make([]discovered, 1000)
	start := time.Now()
	for n := 0; n < total; n += len(found) {
		for i := range found {
			k := n + i
			// Links of one page mostly share a host, as on the web.
			found[i] = discovered{url: fmt.Sprintf("http://h%d.example/d%d/p%d.html", (n/len(found)*7+i/100)%hosts, k%97, k)}
		}
		txn := c.store.Begin()
		enq := map[string]int{}
		if err := c.enqueue(txn, found, enq, ""); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(); err != nil {
			t.Fatal(err)
		}
		c.sched.mu.Lock()
		for name, k := range enq {
			h := c.sched.get(name, c.cfg.Delay)
			h.queued += k
			c.sched.update(h)
		}
		c.sched.mu.Unlock()
		if (n/len(found))%1000 == 999 {
			t.Logf("%d URLs, %.0f/s, VmHWM %s", n+len(found), float64(n+len(found))/time.Since(start).Seconds(), procStatus("VmHWM"))
		}
	}
	insert := time.Since(start)
	if got := c.store.SeenCount(); got != uint64(total) {
		t.Fatalf("seen %d URLs, want %d", got, total)
	}
	// A restart: the schedule is rebuilt from the store.
	before := len(c.sched.hosts)
	rs := time.Now()
	c.sched = newScheduler()
	if err := c.rebuild(); err != nil {
		t.Fatal(err)
	}
	rebuild := time.Since(rs)
	if len(c.sched.hosts) != before {
		t.Fatalf("rebuilt %d hosts, want %d", len(c.sched.hosts), before)
	}
	// Take 10^6 URLs off the queues, host by host, 50 per transaction.
	ds := time.Now()
	taken := 0
	names := make([]string, 0, before)
	for name := range c.sched.hosts {
		names = append(names, name)
	}
	for i := 0; taken < min(1_000_000, total); i++ {
		name := names[i%len(names)]
		items, err := c.store.Peek(name, 0, 50)
		if err != nil {
			t.Fatal(err)
		}
		txn := c.store.Begin()
		for _, it := range items {
			if err := txn.Done(name, it.Seq); err != nil {
				t.Fatal(err)
			}
		}
		if err := txn.Commit(); err != nil {
			t.Fatal(err)
		}
		taken += len(items)
	}
	drain := time.Since(ds)
	fmt.Printf("crawler-frontier: %d URLs discovered on %d hosts in %.1f s: %.0f inserts/s (synced txns of 1000); schedule rebuilt in %.1f s; 10^6 taken off in %.1f s (%.0f/s); VmHWM %s\n",
		total, before, insert.Seconds(), float64(total)/insert.Seconds(), rebuild.Seconds(), drain.Seconds(), float64(taken)/drain.Seconds(), procStatus("VmHWM"))
}

// procStatus returns a field of /proc/self/status, such as "VmHWM".
func procStatus(field string) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
