package ui

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/memnet"
	"github.com/freshcrawl/freshcrawl/internal/robots"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/testtool"
)

// liveCrawl is a crawl of a small simweb over an in-memory network, with
// its view.
type liveCrawl struct {
	c     *crawler.Crawler
	srv   *Server
	dir   string
	stop  func()       // ends the crawl and waits for Run to return
	close func() error // closes the crawl (once)
}

// startCrawl starts crawling hosts × pages of simweb and returns once n
// pages are committed (or fails the test after a minute).
func startCrawl(t *testing.T, hosts, pages int, n int64) *liveCrawl {
	t.Helper()
	sc := simweb.DefaultConfig()
	sc.Hosts, sc.PagesPerHost = hosts, pages
	web, err := simweb.New(sc, simweb.NewWallClock(3600))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := memnet.Listen("127.0.0.1:80")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: web}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	rule, err := fetch.ParseResolve("*." + simweb.Zone + "=" + ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	var seeds []string
	for _, h := range web.Hosts() {
		seeds = append(seeds, "http://"+h.Name+"/")
	}
	lc := &liveCrawl{dir: t.TempDir()}
	var view atomic.Pointer[Server]
	c, err := crawler.New(crawler.Config{
		Seeds: seeds, DataDir: lc.dir, Scope: crawler.ScopeAny, Budget: 400, Delay: 5 * time.Millisecond,
		Fetch:  fetch.Config{AllowPrivate: true, Resolve: []fetch.ResolveRule{rule}, Timeout: 5 * time.Second, Dial: ln.Dial},
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		NoSync: true, TimeScale: 3600,
		OnFetch: func(e crawler.Event) {
			if v := view.Load(); v != nil {
				v.Observe(e)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	lc.c = c
	lc.srv = New(Config{Crawl: c, Dir: lc.dir, Policy: "optimal", Objective: "freshness",
		Truth: func() float64 { return 0.5 }})
	view.Store(lc.srv)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	lc.stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("crawl: %v", err)
		}
	}
	var closeOnce sync.Once
	var closeErr error
	lc.close = func() error {
		closeOnce.Do(func() { closeErr = c.Close() })
		return closeErr
	}
	t.Cleanup(func() {
		if ctx.Err() == nil {
			lc.stop()
		}
		lc.close()
	})
	deadline := time.Now().Add(time.Minute)
	for c.Stats().Pages < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d pages committed in a minute", c.Stats().Pages)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return lc
}

func get(t *testing.T, h http.Handler, path string) []byte {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	return rec.Body.Bytes()
}

// metricValues reads the samples of a text exposition: name{labels} →
// value.
func metricValues(t *testing.T, body []byte) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// TestMetrics checks /metrics: promtool check metrics passes on a scrape
// taken while the crawl runs (acceptance 1 of issue 16), and once the
// crawl has stopped every figure equals the crawler's own: requests,
// pages held, the responses by class summing to the fetches committed,
// the rate histogram counting every held page, the expectations the
// refresh module's.
func TestMetrics(t *testing.T) {
	promtool := testtool.Require(t, "promtool")
	lc := startCrawl(t, 8, 60, 150)
	h := lc.srv.Handler()
	body := get(t, h, "/metrics")
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
	t.Logf("promtool check metrics passed on a scrape of %d bytes taken during the crawl", len(body))

	lc.stop()
	st := lc.c.Stats()
	m := metricValues(t, get(t, h, "/metrics"))
	var responses float64
	for _, c := range statusClasses {
		responses += m[`freshcrawl_responses_total{class="`+c+`"}`]
	}
	e := lc.c.Refresh().Expected()
	for name, want := range map[string]float64{
		"freshcrawl_requests_total":                   float64(st.Requests),
		"freshcrawl_pages_held":                       float64(st.Held),
		"freshcrawl_urls_queued":                      float64(st.Queued),
		"freshcrawl_pages_planned":                    float64(e.Planned),
		"freshcrawl_expected_freshness":               e.Freshness,
		"freshcrawl_true_freshness":                   0.5,
		"sum of freshcrawl_responses_total":           float64(st.Pages),
		"freshcrawl_fetch_duration_seconds_count > 0": 1,
	} {
		got := m[name]
		switch name {
		case "sum of freshcrawl_responses_total":
			got = responses
		case "freshcrawl_fetch_duration_seconds_count > 0":
			got = b2f(m["freshcrawl_fetch_duration_seconds_count"] > 0)
		}
		if got != want {
			t.Errorf("%s = %g, want %g", name, got, want)
		}
	}
	// The crawler's own view of politeness: no page request of a host
	// began sooner than its delay (5 ms here) after the host's last answer
	// ended.
	if m["freshcrawl_host_request_gap_seconds_count"] == 0 {
		t.Error("no request gap observed")
	}
	for k, v := range m {
		le, ok := strings.CutPrefix(k, `freshcrawl_host_request_gap_seconds_bucket{le="`)
		if !ok {
			continue
		}
		if b, err := strconv.ParseFloat(strings.TrimSuffix(le, `"}`), 64); err == nil && b < 0.005 && v > 0 {
			t.Errorf("%g gaps under %g s, below the 5 ms delay", v, b)
		}
	}
	byRate := m["freshcrawl_pages_unestimated"]
	for k, v := range m {
		if strings.HasPrefix(k, "freshcrawl_pages_by_change_rate{") {
			byRate += v
		}
	}
	if byRate != float64(st.Held) {
		t.Errorf("pages by change rate and unestimated: %g, want the %d held", byRate, st.Held)
	}
	if st.Held == 0 || e.Freshness <= 0 || e.Freshness > 1 {
		t.Errorf("held %d, expected freshness %g: the crawl should hold pages with an expectation in (0, 1]", st.Held, e.Freshness)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TestAPIStatus checks /api/status against the crawler and its store once
// the crawl has stopped: the status is the one freshcrawl status reads,
// the live figures are the crawler's, the rate buckets count every held
// page, and the series and hosts are filled.
func TestAPIStatus(t *testing.T) {
	lc := startCrawl(t, 8, 60, 150)
	lc.srv.Sample()
	lc.stop()
	lc.srv.Sample()
	var doc Doc
	if err := json.Unmarshal(get(t, lc.srv.Handler(), "/api/status"), &doc); err != nil {
		t.Fatal(err)
	}
	st := lc.c.Stats()
	if doc.Status == nil {
		t.Fatalf("no status: %s", doc.StatusError)
	}
	if doc.Live.Held != st.Held || doc.Live.Requests != st.Requests || doc.Live.Pages != st.Pages {
		t.Errorf("live held %d, requests %d, pages %d; the crawler says %d, %d, %d",
			doc.Live.Held, doc.Live.Requests, doc.Live.Pages, st.Held, st.Requests, st.Pages)
	}
	if doc.Status.Held != st.Held || doc.Status.HeldRows != st.Held {
		t.Errorf("status: %d pages held, %d rows held; the crawler holds %d", doc.Status.Held, doc.Status.HeldRows, st.Held)
	}
	var bucketed int64
	for _, b := range doc.Rates {
		bucketed += b.Pages
		if b.Hi > 0 && !(b.Interval > 0) {
			t.Errorf("bucket [%g, %g)/day: no interval from the optimal plan", b.Lo, b.Hi)
		}
	}
	if bucketed != st.Held {
		t.Errorf("rate buckets hold %d pages, the crawl %d", bucketed, st.Held)
	}
	if len(doc.Series) != 2 || doc.Series[1].Held != st.Held {
		t.Errorf("series %+v: want 2 samples, the last holding %d pages", doc.Series, st.Held)
	}
	if len(doc.Hosts) == 0 || doc.HostStates.All != st.Hosts {
		t.Errorf("hosts table %d rows, host states %+v; the crawl knows %d hosts", len(doc.Hosts), doc.HostStates, st.Hosts)
	}
	if n := doc.Robots.Available + doc.Robots.Unavailable + doc.Robots.Unreachable; n == 0 {
		t.Error("no robots.txt outcome counted")
	}
}

// TestStopBeforeClose checks the order a crawl shuts down in: the view's
// stop returns only once the store read running has ended (one is held
// running here), so that the crawl's store then closes cleanly (with a
// read left open, Pebble's Close reports leaked iterators).
func TestStopBeforeClose(t *testing.T) {
	lc := startCrawl(t, 4, 40, 50)
	addr, stop, err := lc.srv.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	status := func() {
		resp, err := http.Get("http://" + addr.String() + "/api/status")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	status() // the first read, which the request waits for
	// The next request starts a read in the background and returns at
	// once with the last status; that read is held running.
	release := make(chan struct{})
	var readEnded atomic.Bool
	lc.srv.status.mu.Lock()
	lc.srv.status.every, lc.srv.status.took = 0, 0
	lc.srv.status.reading = func() {
		<-release
		time.Sleep(10 * time.Millisecond) // the scan itself
		readEnded.Store(true)
	}
	lc.srv.status.mu.Unlock()
	status()
	for {
		lc.srv.status.mu.Lock()
		running := lc.srv.status.running
		lc.srv.status.mu.Unlock()
		if running {
			break
		}
		time.Sleep(time.Millisecond)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		close(release)
	}()
	stop()
	if !readEnded.Load() {
		t.Fatal("stop returned with a read of the store still running")
	}
	lc.stop()
	if err := lc.close(); err != nil {
		t.Errorf("closing the crawl after the view stopped: %v", err)
	}
}

// TestDashboardAssets checks that the dashboard and its script are served
// from the binary and name the API they read.
func TestDashboardAssets(t *testing.T) {
	s := New(Config{})
	h := s.Handler()
	page := get(t, h, "/")
	for _, want := range []string{`<canvas id="chart-rate"`, `<canvas id="chart-fresh"`, `<canvas id="chart-rates"`, `src="app.js"`, `id="hosts"`, `id="errors"`} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("dashboard lacks %s", want)
		}
	}
	if js := get(t, h, "/app.js"); !bytes.Contains(js, []byte(`fetch("api/status"`)) {
		t.Error("app.js does not read api/status")
	}
	if bytes.Contains(page, []byte("https://")) || bytes.Contains(get(t, h, "/app.js"), []byte("https://")) {
		t.Error("the dashboard loads something from outside the binary")
	}
}

// TestRobotsOf checks which robots.txt entry the hosts table shows for a
// host as the crawler names it (the port only where not the default).
func TestRobotsOf(t *testing.T) {
	c := robots.NewCache(robots.CacheConfig{})
	now := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	c.Record("http://a.test:80", 200, []byte("User-agent: *\nDisallow: /x\n"), now)
	c.Record("https://b.test:443", 500, nil, now)
	c.Record("http://c.test:8080", 404, nil, now)
	c.Record("http://e.test:80", 404, nil, now)
	c.Record("https://e.test:443", 200, nil, now.Add(time.Second)) // the later fetch
	for host, want := range map[string]string{
		"a.test": "available", "b.test": "unreachable", "c.test:8080": "unavailable",
		"d.test": "not fetched", "e.test": "available",
	} {
		if got := robotsOf(c, host); got != want {
			t.Errorf("robotsOf(%q) = %q, want %q", host, got, want)
		}
	}
	if n := robotsCounts(c); n != (RobotsCounts{Available: 2, Unavailable: 2, Unreachable: 1}) {
		t.Errorf("counts %+v", n)
	}
}
