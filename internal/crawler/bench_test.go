package crawler

import (
	"bytes"
	"context"
	"crypto/sha1"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"golang.org/x/net/html"

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
	addr := serveTCP(b, web)
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
		if _, err := c.enqueue(txn, found, enq, ""); err != nil {
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
	c.sched = newScheduler(time.Now)
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

// BenchmarkLibraryFloor measures, per page of the throughput web, the work
// a crawler built on the libraries the crawl engine must use cannot avoid:
// undoing gzip where the site sent it (half the sites do), one pass of the
// golang.org/x/net/html tokenizer, the SHA-1 payload and block digests
// WARC asks for, and gzip at level 1 of the response records not already
// compressed. "serve" is simweb's own handler for the same pages, without
// the network. Each op is one page, the pages taken in turn; the "floor"
// case does all of the crawler's stages and reports the most pages a
// second the machine's cores could carry if the crawler did nothing else
// and simweb nothing but its handler. bench/crawl-throughput.sh runs it
// beside the real crawl and prints the ratio.
func BenchmarkLibraryFloor(b *testing.B) {
	sc := simweb.DefaultConfig()
	sc.Hosts, sc.PagesPerHost = 1000, 100
	sc.Robots.CrawlDelay = 0
	clock := &simweb.ManualClock{}
	web, err := simweb.New(sc, clock)
	if err != nil {
		b.Fatal(err)
	}
	var urls []string
	i := 0
	web.Snapshot(clock.Now(), func(u string, _ simweb.Version) {
		if i%50 == 0 { // 2,000 pages spread over all hosts
			urls = append(urls, u)
		}
		i++
	})
	type page struct {
		req    *http.Request
		header []byte // the HTTP header block, as WARC stores it
		raw    []byte // as sent
		gzip   bool
		body   []byte // decoded
	}
	pages := make([]page, len(urls))
	for k, u := range urls {
		r := httptest.NewRequest(http.MethodGet, u, nil)
		r.Header.Set("Accept-Encoding", "gzip, deflate")
		rec := httptest.NewRecorder()
		web.ServeHTTP(rec, r)
		res := rec.Result()
		raw := rec.Body.Bytes()
		var hdr bytes.Buffer
		fmt.Fprintf(&hdr, "HTTP/1.1 %d %s\r\n", res.StatusCode, http.StatusText(res.StatusCode))
		res.Header.Write(&hdr)
		hdr.WriteString("\r\n")
		p := page{req: r, header: hdr.Bytes(), raw: raw, body: raw}
		if res.Header.Get("Content-Encoding") == "gzip" {
			p.gzip = true
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				b.Fatal(err)
			}
			if p.body, err = io.ReadAll(zr); err != nil {
				b.Fatal(err)
			}
		}
		pages[k] = p
	}
	zr, _ := gzip.NewReader(bytes.NewReader(pages[0].raw))
	for _, p := range pages {
		if p.gzip {
			zr, _ = gzip.NewReader(bytes.NewReader(p.raw))
			break
		}
	}
	zw, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
	var buf bytes.Buffer
	stages := map[string]func(p *page){
		"gunzip": func(p *page) {
			if !p.gzip {
				return
			}
			zr.Reset(bytes.NewReader(p.raw))
			buf.Reset()
			if _, err := buf.ReadFrom(zr); err != nil {
				b.Fatal(err)
			}
		},
		"tokenize": func(p *page) {
			z := html.NewTokenizer(bytes.NewReader(p.body))
			for z.Next() != html.ErrorToken {
			}
		},
		"digest": func(p *page) {
			sha1.Sum(p.raw)
			d := sha1.New()
			d.Write(p.header)
			d.Write(p.raw)
			d.Sum(nil)
		},
		"warc-gzip": func(p *page) {
			if p.gzip {
				return
			}
			zw.Reset(io.Discard)
			zw.Write(p.header)
			zw.Write(p.raw)
			zw.Close()
		},
	}
	order := []string{"gunzip", "tokenize", "digest", "warc-gzip"}
	run := func(name string, fn func(p *page)) float64 {
		var perPage float64
		b.Run(name, func(b *testing.B) {
			n := 0
			for b.Loop() {
				fn(&pages[n%len(pages)])
				n++
			}
			perPage = float64(b.Elapsed().Nanoseconds()) / float64(n)
		})
		return perPage
	}
	// The exchange itself: a net/http client and server on loopback, many
	// connections at once as in a crawl, the server writing the stored
	// answer. Its cost is CPU time (user and system, both ends), not wall
	// time, since the two ends and the kernel share the cores.
	var exchange float64
	b.Run("http", func(b *testing.B) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			k, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
			p := &pages[k%len(pages)]
			if p.gzip {
				w.Header().Set("Content-Encoding", "gzip")
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Content-Length", strconv.Itoa(len(p.raw)))
			w.Write(p.raw)
		}))
		defer srv.Close()
		tr := &http.Transport{MaxConnsPerHost: 256, MaxIdleConnsPerHost: 256, DisableCompression: true}
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr}
		const conns = 256
		next := make(chan int)
		done := make(chan struct{})
		for range conns {
			go func() {
				defer func() { done <- struct{}{} }()
				for k := range next {
					resp, err := client.Get(srv.URL + "/" + strconv.Itoa(k))
					if err != nil {
						b.Error(err)
						continue
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
		}
		cpu0 := cpuTime()
		n := 0
		for b.Loop() {
			next <- n
			n++
		}
		close(next)
		for range conns {
			<-done
		}
		exchange = float64((cpuTime() - cpu0).Nanoseconds()) / float64(n)
		b.ReportMetric(exchange/1e3, "cpu-µs/req")
	})
	rw := httptest.NewRecorder()
	serve := run("serve", func(p *page) {
		rw.Body.Reset()
		clear(rw.Header())
		web.ServeHTTP(rw, p.req)
	})
	for _, name := range order {
		run(name, stages[name])
	}
	b.Run("floor", func(b *testing.B) {
		n := 0
		for b.Loop() {
			p := &pages[n%len(pages)]
			for _, name := range order {
				stages[name](p)
			}
			n++
		}
		perPage := float64(b.Elapsed().Nanoseconds()) / float64(n)
		b.ReportMetric(perPage/1e3, "µs/page")
		b.ReportMetric((perPage+serve+exchange)/1e3, "with-web-µs/page")
		b.ReportMetric(float64(runtime.GOMAXPROCS(0))*1e9/(perPage+serve+exchange), "ceiling-pages/s")
	})
}

// cpuTime is the CPU time, user and system, the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
