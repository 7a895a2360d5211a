package crawler

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/clock"
	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// The fault tests check the acceptance criterion "every simweb fault mode
// has a test: the crawler keeps going, memory stays bounded, the reason is
// logged clearly". Each case crawls a small static web (no page changes,
// is born or dies, so a complete crawl holds exactly the pages robots.txt
// allows) with one fault mode turned on, and judges the crawl by what the
// server saw, what the store holds and what the crawler logged.
//
// A check that fails for a reason the crawler has yet to fix (a log line
// it does not write, a known bug) is reported and the case skipped at its
// end, saying what it waits for: the other checks still run and fail.

// Crawl settings of the fault tests: a tiny delay, so that the back-off
// after faults, not politeness, sets the pace; small fetch limits, so
// that the memory bound they imply is tight.
const (
	faultDelay      = 5 * time.Millisecond
	faultWorkers    = 16
	faultMaxBody    = 1 << 20
	faultMaxDecoded = 4 << 20
	faultTimeout    = time.Second
	// faultSlack is how late, beyond the back-off, the crawler may come
	// back to a host: the outcome is committed and the host dispatched
	// again. The tests run on a synctest bubble's clock, where that takes
	// no time; the slack is for the delays between, which do.
	faultSlack = time.Second
)

// faultWebConfig is the web of the fault tests: 6 hosts of 60 pages, no
// churn, every robots.txt answering 200 without Crawl-delay, honest
// validators; the fault sizes are those of simweb with a Retry-After that
// is longer than the first back-off (so the test can tell them apart), a
// slow answer that is longer than the fetch timeout, and an oversized body
// of 1 GiB, which a crawler without a body limit could not hold.
func faultWebConfig() simweb.Config {
	cfg := simweb.DefaultConfig()
	cfg.Seed = 11
	cfg.Hosts, cfg.PagesPerHost = 6, 60
	cfg.Churn = 0
	cfg.Robots = simweb.RobotsMix{}
	cfg.Validators = simweb.ValidatorMix{}
	cfg.Faults = simweb.DefaultFaultSizes()
	cfg.Faults.RetryAfter = 2 * time.Second
	cfg.Faults.SlowDelay = 3 * faultTimeout / 2
	cfg.Faults.OversizeBytes = 1 << 30
	return cfg
}

// served is one request as the synthetic web saw it.
type served struct {
	host, path string
	start, end time.Time
	status     int  // the status written; 0 if none was
	reset      bool // the connection was reset instead of answered
	gone       bool // the client hung up before the answer was complete
}

// serverLog wraps a handler and records every request it serves.
type serverLog struct {
	mu   sync.Mutex
	reqs []served
}

func (l *serverLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		sw := &statusWriter{ResponseWriter: rw}
		s := served{host: strings.ToLower(host), path: r.URL.EscapedPath(), start: time.Now()}
		h.ServeHTTP(sw, r)
		// A failed write is as sure a sign the client hung up as a
		// cancelled context, and can come before the server notices.
		s.end, s.status, s.reset = time.Now(), sw.status, sw.hijacked
		s.gone = r.Context().Err() != nil || sw.writeErr
		l.mu.Lock()
		l.reqs = append(l.reqs, s)
		l.mu.Unlock()
	})
}

// byHost returns the requests served so far, host by host, in the order
// they started.
func (l *serverLog) byHost() map[string][]served {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string][]served{}
	for _, s := range l.reqs {
		out[s.host] = append(out[s.host], s)
	}
	for _, seq := range out {
		sort.Slice(seq, func(i, j int) bool { return seq[i].start.Before(seq[j].start) })
	}
	return out
}

// statusWriter remembers the status a handler wrote and passes Hijack on,
// so that simweb can still reset connections.
type statusWriter struct {
	http.ResponseWriter
	status   int
	hijacked bool
	writeErr bool // a write failed: the client had gone
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	if err != nil {
		w.writeErr = true
	}
	return n, err
}

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.hijacked = true
	return w.ResponseWriter.(http.Hijacker).Hijack()
}

// logBuffer collects the crawler's log.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// faultEnv is a synthetic web on a clock that stands still unless told,
// served with a log of what it served, and a data directory.
type faultEnv struct {
	web    *simweb.Web
	clock  *simweb.ManualClock
	addr   endpoint
	server *serverLog
	dir    string
}

func newFaultEnv(t *testing.T, cfg simweb.Config) *faultEnv {
	t.Helper()
	clock := &simweb.ManualClock{}
	web, err := simweb.New(cfg, clock)
	if err != nil {
		t.Fatal(err)
	}
	e := &faultEnv{web: web, clock: clock, server: &serverLog{}, dir: t.TempDir()}
	e.addr = serve(t, e.server.wrap(web))
	return e
}

// allowed is what a complete crawl of the static web holds: every page
// alive at time zero that robots.txt allows. Every page of a simweb host
// is reachable from its root through the directory trees.
func (e *faultEnv) allowed() map[string]bool {
	out := map[string]bool{}
	e.web.Snapshot(0, func(u string, _ simweb.Version) {
		if e.web.Allowed(u, fetch.DefaultUserAgent) {
			out[u] = true
		}
	})
	return out
}

// faultRun is what one crawl left behind.
type faultRun struct {
	err        error
	stats      Stats
	log        string
	start, end time.Time
	held       map[string]bool       // pages held at the end
	rows       map[string]store.Page // every page row, by URL
	queued     map[string]int        // URLs still queued, per host
	audit      simweb.AuditReport
	heapBase   uint64 // live heap before the crawl, after a collection
	heapPeak   uint64 // the largest heap in use sampled during the crawl
	livePeak   uint64 // the largest live heap a collection found during it
}

// crawlOptions are the departures of one crawl from the fault-test crawl.
type crawlOptions struct {
	run     time.Duration
	heap    bool // sample the heap while crawling
	tweak   func(*Config)
	inspect func(c *Crawler) // after Run, before Close
	// untilDone ends the crawl early once it is complete: nothing queued,
	// nothing in flight.
	untilDone bool
	// until, if set, ends the crawl early once it returns true (polled;
	// it must be safe to call while the crawl runs).
	until func() bool
}

// crawl runs a crawler over e and collects what it did.
func (e *faultEnv) crawl(t *testing.T, o crawlOptions) *faultRun {
	t.Helper()
	logs := &logBuffer{}
	cfg := testConfig(t, e.dir, e.addr)
	cfg.Seeds = seedsOf(e.web)
	cfg.Delay = faultDelay
	cfg.Workers = faultWorkers
	cfg.Fetch.MaxBodyBytes, cfg.Fetch.MaxDecodedBytes = faultMaxBody, faultMaxDecoded
	cfg.Fetch.Timeout = faultTimeout
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if o.tweak != nil {
		o.tweak(&cfg)
	}
	// Delay runs from the end of one request to the start of the next, so
	// it is a lower bound on the gap between starts too.
	e.web.Audit().Reset(simweb.AuditConfig{MinDelay: cfg.Delay, MaxInFlight: 1})
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := &faultRun{}
	var sampler *heapSampler
	if o.heap {
		sampler = startHeapSampler()
		r.heapBase = sampler.base
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.run)
	defer cancel()
	if o.until != nil {
		go func() {
			for ctx.Err() == nil && !o.until() {
				time.Sleep(20 * time.Millisecond)
			}
			cancel()
		}()
	}
	watched := make(chan error, 1)
	if o.untilDone {
		go func() { watched <- crashWatch(ctx, c, cancel) }()
	} else {
		watched <- nil
	}
	r.start = time.Now()
	r.err = c.Run(ctx)
	cancel()
	if err := <-watched; err != nil {
		t.Fatal(err)
	}
	r.end = time.Now()
	if sampler != nil {
		r.heapPeak, r.livePeak = sampler.stop()
	}
	r.stats = c.Stats()
	r.held, r.rows = map[string]bool{}, map[string]store.Page{}
	err = c.store.ForEachPage(func(p store.Page) error {
		r.rows[p.URL] = p
		if p.Held && p.Kind == store.KindPage {
			r.held[p.URL] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r.queued = map[string]int{}
	err = c.store.Hosts(func(name string, n int) error {
		r.queued[name] = n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if o.inspect != nil {
		o.inspect(c)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	r.log = logs.String()
	r.audit = e.web.Audit().Report()
	return r
}

// heapSampler records the largest heap in use (runtime.MemStats.HeapAlloc,
// live and not yet collected objects) every 2 ms, and the largest live
// heap a collection found.
type heapSampler struct {
	base  uint64
	done  chan struct{}
	peaks chan [2]uint64
}

func startHeapSampler() *heapSampler {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := &heapSampler{base: ms.HeapAlloc, done: make(chan struct{}), peaks: make(chan [2]uint64, 1)}
	go func() {
		var ms runtime.MemStats
		var heap, live uint64
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			metrics.Read(sample)
			heap, live = max(heap, ms.HeapAlloc), max(live, sample[0].Value.Uint64())
			select {
			case <-s.done:
				s.peaks <- [2]uint64{heap, live}
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

func (s *heapSampler) stop() (heap, live uint64) {
	close(s.done)
	p := <-s.peaks
	return p[0], p[1]
}

// pendingChecks collects the checks of a case that fail for a reason the
// crawler has yet to fix.
type pendingChecks struct{ notes []string }

// expect logs a failed check as pending, with what it waits for.
func (p *pendingChecks) expect(t *testing.T, ok bool, waitingFor, format string, args ...any) {
	t.Helper()
	if ok {
		return
	}
	t.Logf("pending ("+waitingFor+"): "+format, args...)
	for _, n := range p.notes {
		if n == waitingFor {
			return
		}
	}
	p.notes = append(p.notes, waitingFor)
}

// skip skips the test if a check is pending. A test that failed already
// stays failed.
func (p *pendingChecks) skip(t *testing.T) {
	t.Helper()
	if len(p.notes) > 0 {
		t.Skip(strings.Join(p.notes, "; "))
	}
}

// logLines returns the lines of a log that match re.
func logLines(log string, re *regexp.Regexp) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if re.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// faultBackoff is the crawler's wait after the k-th consecutive failure on
// a host (Crawler.backoff): the delay, at least a second, doubled for each
// failure after the first, up to DefaultMaxBackoff.
func faultBackoff(delay time.Duration, k int) time.Duration {
	d := max(delay, time.Second)
	for i := 1; i < k && d < DefaultMaxBackoff; i++ {
		d *= 2
	}
	return min(d, DefaultMaxBackoff)
}

// expectedShare is the share of a complete crawl that the crawler's retry
// policy lets it finish in run, when each request fails independently with
// probability p. A host needs reqs successful requests, each taking cost
// when nothing fails. A failure costs what the request itself took (fault)
// and then the wait: max(back-off(k), retryAfter) for the k-th failure of
// a run of consecutive ones. A failure is the k-th of its run with
// probability (1−p)·p^(k−1), so the mean time per attempt is
//
//	τ = (1−p)·cost + p·(fault + Σ_k (1−p)·p^(k−1)·wait(k))
//
// and run/τ attempts give run·(1−p)/τ successes.
func expectedShare(p float64, cost, fault, retryAfter, run time.Duration, reqs float64) float64 {
	wait := 0.0
	for k := 1; k <= 40; k++ {
		w := max(faultBackoff(faultDelay, k), retryAfter)
		wait += (1 - p) * math.Pow(p, float64(k-1)) * w.Seconds()
	}
	tau := (1-p)*cost.Seconds() + p*(fault.Seconds()+wait)
	return min(1, run.Seconds()*(1-p)/tau/reqs)
}

// faultBaseline is a crawl of the fault tests' web without faults.
type faultBaseline struct {
	reqs float64       // requests a host needs for a complete crawl
	cost time.Duration // time per request on a host, delay included
	seen uint64        // URLs seen
}

// measureBaseline crawls the web without faults until it is complete and
// checks that it is: every allowed page held and no other, no politeness
// breach.
func measureBaseline(t *testing.T) faultBaseline {
	e := newFaultEnv(t, faultWebConfig())
	r := e.crawl(t, crawlOptions{run: 5 * time.Second, untilDone: true})
	want := e.allowed()
	if r.err != nil {
		t.Fatalf("baseline: Run: %v", r.err)
	}
	if got := countIn(r.held, want); got != len(want) || len(r.held) != len(want) {
		t.Fatalf("baseline: held %d pages, %d of the %d allowed", len(r.held), got, len(want))
	}
	if v := r.audit.Violations(); v != 0 {
		t.Fatalf("baseline: %d politeness violations: %+v", v, r.audit.Examples)
	}
	b := faultBaseline{seen: r.stats.Seen}
	var busy time.Duration
	hosts := e.server.byHost()
	for _, seq := range hosts {
		b.reqs += float64(len(seq))
		busy += seq[len(seq)-1].end.Sub(seq[0].start)
	}
	b.cost = busy / time.Duration(b.reqs)
	b.reqs /= float64(len(hosts))
	t.Logf("baseline: %d pages held, %d URLs seen; %.1f requests a host, %v each; complete in %v",
		len(r.held), b.seen, b.reqs, b.cost.Round(100*time.Microsecond), lastEnd(hosts).Sub(r.start).Round(time.Millisecond))
	return b
}

func countIn(set, want map[string]bool) int {
	n := 0
	for u := range want {
		if set[u] {
			n++
		}
	}
	return n
}

func lastEnd(hosts map[string][]served) time.Time {
	var t time.Time
	for _, seq := range hosts {
		t = clock.Later(t, seq[len(seq)-1].end)
	}
	return t
}

// faultCase is one fault mode and what a crawl of a web with it must show.
type faultCase struct {
	name   string
	faults string               // simweb.ParseFaults spec
	web    func(*simweb.Config) // further changes to the web
	crawl  func(*Config)        // further changes to the crawl
	run    time.Duration        // how long the crawl may take
	heap   bool                 // the case measures the heap, so it runs alone
	// endless: some hosts never finish, so the crawl runs its whole time.
	// Without it, and without transient faults, the crawl must complete.
	endless bool

	// Transient faults: which answers are faults, and what one costs
	// before the wait.
	fault     func(served) bool
	faultCost time.Duration

	// log is what a line of the crawler's log must match for the reason
	// to count as logged clearly; count, when set, says how many lines.
	// pending, when set, is the log line proposed while the crawler lacks
	// it.
	log     string
	count   func(c *faultCheck) (lo, hi int)
	pending string
	// bug, when set, is a known bug that fails the checks of politeness
	// and of the log count; they are pending until it is fixed.
	bug string

	check func(t *testing.T, c *faultCheck)
}

// faultCheck is what a case's checks look at.
type faultCheck struct {
	web     simweb.Config
	e       *faultEnv
	r       *faultRun
	base    faultBaseline
	hosts   map[string][]served // the server's log
	pending *pendingChecks
}

func isServerError(s served) bool { return s.status >= 500 }
func isTooMany(s served) bool     { return s.status == http.StatusTooManyRequests }
func isReset(s served) bool       { return s.reset }
func isTimeout(s served) bool     { return s.gone && s.status == 0 }

// faultsIn counts the server's answers that were faults. Up to one a host
// may have been cut short by the end of the crawl, and go unlogged.
func faultsIn(fault func(served) bool) func(c *faultCheck) (int, int) {
	return func(c *faultCheck) (int, int) {
		n := 0
		for _, seq := range c.hosts {
			for _, s := range seq {
				if fault(s) {
					n++
				}
			}
		}
		return n - len(c.hosts), n
	}
}

// requestsTo counts the requests for paths under a prefix. The crawl is
// complete, so every outcome was committed.
func requestsTo(prefix string) func(c *faultCheck) (int, int) {
	return func(c *faultCheck) (int, int) {
		n := len(pathsUnder(c.hosts, prefix))
		return n, n
	}
}

// pathsUnder returns the requests for paths under a prefix, as host+path.
func pathsUnder(hosts map[string][]served, prefix string) []string {
	var out []string
	for host, seq := range hosts {
		for _, s := range seq {
			if strings.HasPrefix(s.path, prefix) {
				out = append(out, host+s.path)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Proposed log lines, while the crawler lacks them.
const (
	logTruncated = `level=WARN msg="body truncated" url=… reason=length bytes=… decoded=… err=…, ` +
		`from fetchPage (work.go) when resp.Truncated != ""`
	logURLLimit = `level=WARN msg="host URL limit reached" host=… limit=…, once per host, ` +
		`from enqueue (commit.go) instead of the Debug line`
	logRobotsDown = `level=WARN msg="robots.txt unreachable, host paused" host=… reason=… until=…, ` +
		`from fetchRobots (work.go) when Record returns an entry with UnreachableSince set`
	logFailedURL = `msg="fetch failed" names the URL of network errors and robots.txt failures (url="" today): ` +
		`an outcome field set by fetchRobots and fetchPage, logged by release (commit.go)`
)

// bugTransportRetry is the known bug of the reset case.
const bugTransportRetry = "waiting for fix: net/http retries a GET at once after a reset on a reused connection, " +
	"unseen by the crawler (no delay, no back-off, no log); /tmp/faults-fix.diff"

// TestFaults crawls a web with each fault mode of simweb in turn, after a
// crawl of the web without faults that the cases are measured against.
// Each crawl runs in a synctest bubble, so the back-offs, Retry-After
// waits and timeouts it is judged by are exact, whatever the machine's
// load (or the race detector's slowing it down).
func TestFaults(t *testing.T) {
	var base faultBaseline
	bubble(t, func(t *testing.T) { base = measureBaseline(t) })
	tests := []faultCase{
		{
			name: "5xx", faults: "5xx=0.2", run: 8 * time.Second, fault: isServerError,
			log:   `level=WARN msg="fetch failed" .*reason="(robots\.txt: )?HTTP 50[023]"`,
			count: faultsIn(isServerError),
		},
		{
			name: "429", faults: "429=0.2", run: 8 * time.Second, fault: isTooMany,
			log:   `level=WARN msg="fetch failed" .*reason="(robots\.txt: )?HTTP 429" .*retry_after=2s`,
			count: faultsIn(isTooMany),
		},
		{
			name: "reset", faults: "reset=0.2", run: 8 * time.Second, fault: isReset,
			log:   `level=WARN msg="fetch failed" .*reason=".*connection reset by peer"`,
			count: faultsIn(isReset),
			bug:   bugTransportRetry,
		},
		{
			name: "slow", faults: "slow=0.2", run: 8 * time.Second, fault: isTimeout, faultCost: faultTimeout,
			log:   `level=WARN msg="fetch failed" .*reason=("[^"]*)?(timeout|deadline exceeded)`,
			count: faultsIn(isTimeout),
		},
		{
			name: "redirect", faults: "redirect=0.3",
			check: checkRedirects,
		},
		{
			name: "redirect-long", faults: "redirect=0.3",
			web:   func(c *simweb.Config) { c.Faults.RedirectHops = DefaultMaxRedirects + 3 },
			log:   `level=INFO msg="redirect chain too long" url=http://\S+/go/3/\S* hops=5`,
			count: requestsTo("/go/3/"),
			check: checkRedirects,
		},
		{
			name: "loop", faults: "loop=0.3",
			check: checkLoops,
		},
		{
			name: "oversize", faults: "oversize=0.3", heap: true,
			log:   `level=WARN msg="body truncated" url=http://\S+/big/\S+ reason=length`,
			count: requestsTo("/big/"), pending: logTruncated,
			check: checkOversize,
		},
		{
			// Half a GiB inflated from half a MiB: within MaxBodyBytes, so
			// only MaxDecodedBytes stops it.
			name: "bomb", faults: "bomb=0.3", heap: true,
			web:   func(c *simweb.Config) { c.Faults.BombBytes = 512 << 20 },
			log:   `level=WARN msg="body truncated" url=http://\S+/bomb/\S+ reason=length .*decoded body exceeds the limit`,
			count: requestsTo("/bomb/"), pending: logTruncated,
			check: checkHeap,
		},
		{
			name: "trap", faults: "trap=0.5",
			crawl: func(c *Config) { c.MaxURLsPerHost = faultURLsPerHost },
			check: checkTrap,
		},
		{name: "malformed", faults: "malformed=0.5", check: checkExact},
		{name: "charset", faults: "charset=0.5", check: checkExact},
		{
			name: "robots-500", run: 10 * time.Second, endless: true,
			web:   func(c *simweb.Config) { c.Robots.ServerError = 0.5 },
			crawl: func(c *Config) { c.RobotsErrorTTL = faultRobotsErrorTTL },
			check: checkRobots500,
		},
		{
			name:  "robots-404",
			web:   func(c *simweb.Config) { c.Robots.NotFound = 0.5 },
			check: checkRobots404,
		},
	}
	// One case at a time: the heap the heap cases measure is the
	// process's, and bubbles do not run in parallel (bubble).
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bubble(t, func(t *testing.T) { runFaultCase(t, tc, base) })
		})
	}
	for _, mode := range []string{"absent", "wrong"} {
		t.Run("validators-"+mode, func(t *testing.T) {
			bubble(t, func(t *testing.T) { testValidators(t, mode) })
		})
	}
}

func runFaultCase(t *testing.T, tc faultCase, base faultBaseline) {
	sc := faultWebConfig()
	f, err := simweb.ParseFaults(tc.faults, sc.Faults)
	if err != nil {
		t.Fatal(err)
	}
	sc.Faults = f
	if tc.web != nil {
		tc.web(&sc)
	}
	e := newFaultEnv(t, sc)
	run := tc.run
	if run == 0 {
		run = 10 * time.Second // A bound: the crawl ends when it is complete, in a second or two.
	}
	r := e.crawl(t, crawlOptions{run: run, heap: tc.heap, tweak: tc.crawl, untilDone: tc.fault == nil && !tc.endless})
	c := &faultCheck{web: sc, e: e, r: r, base: base, hosts: e.server.byHost(), pending: &pendingChecks{}}
	p := c.pending
	requests, faults := 0, 0
	for _, seq := range c.hosts {
		for _, s := range seq {
			requests++
			if tc.fault != nil && tc.fault(s) {
				faults++
			}
		}
	}
	t.Logf("crawled for %v: %d requests, %d of them faults", r.end.Sub(r.start).Round(time.Millisecond), requests, faults)

	// It keeps going: Run returns nil, and the crawl holds every allowed
	// page or, with transient faults, the share the retry policy allows in
	// the time, at the fault rate the server's log shows.
	if r.err != nil {
		t.Errorf("Run: %v", r.err)
	}
	want := e.allowed()
	got := countIn(r.held, want)
	if tc.fault != nil {
		rate := float64(faults) / float64(requests)
		retryAfter := time.Duration(0)
		if tc.fault(served{status: http.StatusTooManyRequests}) {
			retryAfter = sc.Faults.RetryAfter
		}
		share := expectedShare(rate, base.cost, tc.faultCost, retryAfter, run, base.reqs)
		// Half of it: the model leaves out the requests for robots.txt and
		// sitemaps and the links found late, and the rate is an estimate.
		low := int(share / 2 * float64(len(want)))
		t.Logf("held %d of %d allowed pages; at a fault rate of %.2f the retry policy allows %.0f%% (%.0f pages), want at least %d",
			got, len(want), rate, 100*share, share*float64(len(want)), low)
		if got < low {
			t.Errorf("held %d of %d allowed pages, want at least %d", got, len(want), low)
		}
		checkComeBack(t, c.hosts, r.end, tc.fault, sc.Faults.RetryAfter)
	} else {
		t.Logf("held %d of %d allowed pages (%d in all)", got, len(want), len(r.held))
		if got != len(want) {
			t.Errorf("held %d of %d allowed pages, want all", got, len(want))
		}
	}

	// No URL is lost: a page whose last fetch failed transiently is due
	// again, not forgotten.
	var lost []string
	for u, row := range r.rows {
		if !row.Held && row.NextDue.IsZero() && (row.Status == 0 || row.Status == http.StatusTooManyRequests || row.Status >= 500) {
			lost = append(lost, fmt.Sprintf("%s (%d)", u, row.Status))
		}
	}
	sort.Strings(lost)
	p.expect(t, len(lost) == 0, "waiting for fix: a URL whose attempts all failed transiently is never tried again; /tmp/faults-fix.diff",
		"%d URLs failed %d times and are neither held, queued nor due: %v", len(lost), DefaultMaxAttempts, lost)

	// It stays polite and does as robots.txt says. Two requests to a host
	// less than the delay apart, start to start, or at once, are a breach.
	if r.audit.DisallowedRequests != 0 {
		t.Errorf("%d requests robots.txt disallows: %+v", r.audit.DisallowedRequests, r.audit.Examples)
	}
	// The server may still be writing a body the crawler hung up on when
	// the next request to the host comes: that overlap is not a breach.
	// Nor is one with a body hung up on earlier still (two oversized
	// bodies in a row can both be in the server's hands); an overlap with
	// any answer the crawler was still reading is.
	lingering := 0
	var linger time.Duration
	for _, seq := range c.hosts {
		for i := 1; i < len(seq); i++ {
			gone, live := time.Duration(0), false
			for _, prev := range seq[:i] {
				if !seq[i].start.Before(prev.end) {
					continue
				}
				if !prev.gone {
					live = true
					break
				}
				gone = max(gone, prev.end.Sub(seq[i].start))
			}
			if gone > 0 && !live {
				lingering++
				linger = max(linger, gone)
			}
		}
	}
	if lingering > 0 {
		t.Logf("%d requests came while the server still wrote an answer the crawler had hung up on, by up to %v",
			lingering, linger.Round(time.Microsecond))
	}
	at := r.audit.ConcurrencyViolations - min(uint64(lingering), r.audit.ConcurrencyViolations)
	if v := r.audit.DelayViolations + at; v != 0 {
		msg := fmt.Sprintf("%d requests sooner than the delay and %d at once on a host; smallest gap %v; first: %+v",
			r.audit.DelayViolations, at, r.audit.MinGap, r.audit.Examples[0])
		if tc.bug != "" {
			p.expect(t, false, tc.bug, "%s", msg)
		} else {
			t.Error(msg)
		}
	}
	if errs := logLines(r.log, regexp.MustCompile(`level=ERROR`)); len(errs) > 0 {
		t.Errorf("%d errors logged, the first: %s", len(errs), errs[0])
	}

	// The reason is logged clearly.
	if tc.log != "" {
		lines := logLines(r.log, regexp.MustCompile(tc.log))
		ok := len(lines) > 0
		msg := fmt.Sprintf("no log line matches %s", tc.log)
		if ok && tc.count != nil {
			lo, hi := tc.count(c)
			ok = len(lines) >= lo && len(lines) <= hi
			msg = fmt.Sprintf("%d log lines match %s, want %d to %d", len(lines), tc.log, lo, hi)
		}
		switch {
		case ok:
			t.Logf("%d log lines like: %s", len(lines), lines[0])
		case tc.bug != "" && len(lines) > 0:
			p.expect(t, false, tc.bug, "%s", msg)
		case tc.pending != "":
			p.expect(t, false, "waiting for log: "+tc.pending, "%s", msg)
		default:
			t.Error(msg)
		}
	}
	unnamed := logLines(r.log, regexp.MustCompile(`msg="fetch failed" host=\S+ url="" `))
	p.expect(t, len(unnamed) == 0, "waiting for log: "+logFailedURL, "%d fetch failures logged without their URL, like: %s", len(unnamed), first(unnamed))
	if tc.check != nil {
		tc.check(t, c)
	}
	t.Logf("stats: %+v", r.stats)
	p.skip(t)
}

func first(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return lines[0]
}

// checkComeBack checks in the server's log that the crawler came back to
// each host after every transient fault that left the URL attempts to
// spare: the next request to the host is for the same path, starts no
// sooner than the fault's Retry-After asked, and no later than the
// crawler's back-off for the run of faults the fault ends, plus slack.
func checkComeBack(t *testing.T, hosts map[string][]served, end time.Time, fault func(served) bool, retryAfter time.Duration) {
	t.Helper()
	checked, faults := 0, 0
	var latest time.Duration
	minRetry := time.Duration(math.MaxInt64)
	for host, seq := range hosts {
		run, same := 0, 0
		for i, s := range seq {
			if !fault(s) {
				run, same = 0, 0
				continue
			}
			faults++
			run++
			if same > 0 && seq[i-1].path == s.path {
				same++
			} else {
				same = 1
			}
			if same >= DefaultMaxAttempts {
				continue // The last attempt: the URL is given up, and the host may have no work.
			}
			wait := faultBackoff(faultDelay, run)
			if s.status == http.StatusTooManyRequests {
				wait = max(wait, retryAfter)
			}
			if i+1 == len(seq) {
				if idle := end.Sub(s.end); idle > wait+faultSlack {
					t.Errorf("%s: no request in the %v after a fault on %s (fault %d of a run), want one within %v",
						host, idle.Round(time.Millisecond), s.path, run, wait+faultSlack)
				}
				continue
			}
			checked++
			next := seq[i+1]
			gap := next.start.Sub(s.end)
			latest = max(latest, gap-wait)
			if s.status == http.StatusTooManyRequests {
				minRetry = min(minRetry, gap)
			}
			switch {
			case next.path != s.path:
				t.Errorf("%s: after a fault on %s the next request was for %s", host, s.path, next.path)
			case s.status == http.StatusTooManyRequests && gap < retryAfter:
				t.Errorf("%s: a request %v after a 429 with Retry-After %v", host, gap.Round(time.Millisecond), retryAfter)
			case gap > wait+faultSlack:
				t.Errorf("%s: a request %v after fault %d of a run on %s, want at most %v",
					host, gap.Round(time.Millisecond), run, s.path, wait+faultSlack)
			}
		}
	}
	t.Logf("%d faults; %d retried after them, at most %v later than the back-off", faults, checked, latest.Round(time.Millisecond))
	if minRetry != math.MaxInt64 {
		t.Logf("the soonest retry after a 429 with Retry-After %v came %v after it", retryAfter, minRetry.Round(time.Millisecond))
	}
	if faults < 10 || checked < 5 {
		t.Errorf("%d faults, %d retried: too few to exercise the mode", faults, checked)
	}
}

// checkRedirects checks that the crawler follows DefaultMaxRedirects
// redirects of every chain simweb links to, /go/N/…, /go/N−1/… down to
// /go/1/…, and no more: the lowest hop it asks for is N − MaxRedirects.
func checkRedirects(t *testing.T, c *faultCheck) {
	hops := c.web.Faults.RedirectHops
	lowest := max(1, hops-DefaultMaxRedirects)
	asked := map[string]map[int]bool{} // by host+target, the hops asked for
	for _, hp := range pathsUnder(c.hosts, "/go/") {
		host, rest, _ := strings.Cut(hp, "/go/")
		num, target, _ := strings.Cut(rest, "/")
		n := 0
		fmt.Sscan(num, &n)
		chain := host + "/" + target
		if asked[chain] == nil {
			asked[chain] = map[int]bool{}
		}
		if asked[chain][n] {
			t.Errorf("%s/go/%d/%s asked for twice", host, n, target)
		}
		asked[chain][n] = true
	}
	if len(asked) < 10 {
		t.Errorf("%d redirect chains: too few to exercise the mode", len(asked))
	}
	for chain, got := range asked {
		for n := 1; n <= hops; n++ {
			if got[n] != (n >= lowest) {
				t.Errorf("chain to %s: hop /go/%d/ asked for: %v, want %v", chain, n, got[n], n >= lowest)
			}
		}
	}
	t.Logf("%d chains of %d redirects, followed down to /go/%d/", len(asked), hops, lowest)
	if hops <= DefaultMaxRedirects {
		if lines := logLines(c.r.log, regexp.MustCompile(`redirect chain too long`)); len(lines) > 0 {
			t.Errorf("%d chains within the limit logged as too long, like: %s", len(lines), lines[0])
		}
	}
}

// checkLoops checks that each URL of a redirect loop is asked for once:
// the second side's redirect leads back to a URL already seen.
func checkLoops(t *testing.T, c *faultCheck) {
	count := map[string]int{}
	for _, hp := range pathsUnder(c.hosts, "/loop/") {
		count[hp]++
	}
	loops := 0
	for hp, n := range count {
		if n > 1 {
			t.Errorf("%s asked for %d times", hp, n)
		}
		if b, ok := strings.CutPrefix(hp[strings.Index(hp, "/loop/"):], "/loop/a/"); ok {
			loops++
			if count[hp[:strings.Index(hp, "/loop/")]+"/loop/b/"+b] == 0 {
				t.Errorf("%s: its redirect was not followed", hp)
			}
		}
	}
	t.Logf("%d loops, each side asked for once", loops)
	if loops < 10 {
		t.Errorf("%d loops: too few to exercise the mode", loops)
	}
}

// checkExact checks that the crawl holds the allowed pages and no other:
// every link of the faulty pages was read.
func checkExact(t *testing.T, c *faultCheck) {
	if want := c.e.allowed(); len(c.r.held) != len(want) {
		t.Errorf("held %d pages, want the %d allowed", len(c.r.held), len(want))
	}
}

// checkOversize checks that the crawler stopped reading every oversized
// body (the server saw it hang up), and the heap.
func checkOversize(t *testing.T, c *faultCheck) {
	big, cut := 0, 0
	for _, seq := range c.hosts {
		for _, s := range seq {
			if strings.HasPrefix(s.path, "/big/") {
				big++
				if s.gone {
					cut++
				}
			}
		}
	}
	t.Logf("%d oversized bodies, %d cut short", big, cut)
	if big < 10 || cut != big {
		t.Errorf("%d oversized bodies asked for, %d cut short: want at least 10, all cut", big, cut)
	}
	checkHeap(t, c)
}

// checkHeap checks the peak heap against the bound the fetch limits set.
// At most one request per host is in flight (the audit checks it), so
// min(Workers, hosts) bodies are held at once. One body holds at most
// 3·MaxBodyBytes + 4·MaxDecodedBytes: a bytes.Buffer grown by doubling
// has up to twice what it read allocated, for the bytes read and for the
// bytes decoded; the link extractor's tokenizer buffers the decoded text
// again, as much; and the WARC record holds the bytes read, compressed.
// The collector lets the heap grow to (1 + GOGC/100) times the live heap
// before it collects, and a little more when allocation outruns it: a
// tenth is allowed for that.
func checkHeap(t *testing.T, c *faultCheck) {
	gogc := debug.SetGCPercent(100)
	debug.SetGCPercent(gogc)
	if gogc <= 0 {
		t.Logf("GOGC=%d: no bound on the heap to check", gogc)
		return
	}
	inFlight := uint64(min(faultWorkers, c.web.Hosts))
	live := c.r.heapBase + inFlight*(3*faultMaxBody+4*faultMaxDecoded)
	bound := live * uint64(100+gogc) / 100 * 11 / 10
	t.Logf("heap: %d MiB before, peak %d MiB in use and %d MiB live (a collection found); bound %d MiB in use (%d MiB live)",
		c.r.heapBase>>20, c.r.heapPeak>>20, c.r.livePeak>>20, bound>>20, live>>20)
	if c.r.heapPeak > bound {
		t.Errorf("peak heap %d MiB in use, want at most %d MiB", c.r.heapPeak>>20, bound>>20)
	}
}

// faultURLsPerHost is the trap case's MaxURLsPerHost: room for a host's 60
// pages, its sitemaps and some of the calendar.
const faultURLsPerHost = 150

// checkTrap checks that the calendar of each trap host is cut off by
// MaxURLsPerHost: no more URLs of the host are fetched, and the URLs seen
// grow by at most the links of the calendar pages fetched.
func checkTrap(t *testing.T, c *faultCheck) {
	traps, calendar := 0, 0
	for _, h := range c.e.web.Hosts() {
		if !h.Trap {
			continue
		}
		traps++
		days := len(pathsUnder(map[string][]served{h.Name: c.hosts[h.Name]}, "/calendar/"))
		rows := 0
		for u := range c.r.rows {
			if strings.HasPrefix(u, "http://"+h.Name+"/") {
				rows++
			}
		}
		calendar += days
		t.Logf("%s: %d calendar pages fetched, %d URLs fetched in all", h.Name, days, rows)
		if days == 0 || rows > faultURLsPerHost {
			t.Errorf("%s: %d calendar pages and %d URLs fetched, want some and at most %d in all", h.Name, days, rows, faultURLsPerHost)
		}
		line := regexp.MustCompile(`level=WARN msg="host URL limit reached" host=` + regexp.QuoteMeta(h.Name) + ` `)
		c.pending.expect(t, len(logLines(c.r.log, line)) == 1, "waiting for log: "+logURLLimit,
			"%s: no (single) log line matches %s", h.Name, line)
	}
	if traps == 0 {
		t.Fatal("no trap host: the case does not exercise the mode")
	}
	// A calendar page links to four days; the root of a trap host to one.
	limit := c.base.seen + uint64(4*calendar+traps)
	t.Logf("%d URLs seen, %d refused; at most %d allowed", c.r.stats.Seen, c.r.stats.Trapped, limit)
	if c.r.stats.Seen > limit || c.r.stats.Trapped == 0 {
		t.Errorf("%d URLs seen, %d refused by the trap limits: want at most %d seen, some refused", c.r.stats.Seen, c.r.stats.Trapped, limit)
	}
}

// faultRobotsErrorTTL is the robots-500 case's RobotsErrorTTL: longer than
// the back-off after a third failure (4 s), so that it decides when the
// crawler asks again.
const faultRobotsErrorTTL = 5 * time.Second

// checkRobots500 checks that a host whose robots.txt answers 500 is shut
// (the audit counts any other request as disallowed) but not forgotten:
// after DefaultMaxAttempts tries, robots.txt is asked for again once
// RobotsErrorTTL has passed, and the host's URLs stay queued.
func checkRobots500(t *testing.T, c *faultCheck) {
	shut := 0
	for _, h := range c.e.web.Hosts() {
		if h.Robots != "500" {
			continue
		}
		shut++
		seq := c.hosts[h.Name]
		t.Logf("%s: robots.txt asked for %d times; %d URLs queued", h.Name, len(seq), c.r.queued[h.Name])
		if c.r.queued[h.Name] == 0 {
			t.Errorf("%s: no URL queued: the host's URLs were dropped", h.Name)
		}
		if len(seq) <= DefaultMaxAttempts {
			t.Errorf("%s: robots.txt asked for %d times, want more than %d: the host was not tried again", h.Name, len(seq), DefaultMaxAttempts)
			continue
		}
		gap := seq[DefaultMaxAttempts].start.Sub(seq[DefaultMaxAttempts-1].end)
		t.Logf("%s: robots.txt asked for again %v after the last of %d tries", h.Name, gap.Round(time.Millisecond), DefaultMaxAttempts)
		if gap < faultRobotsErrorTTL || gap > faultRobotsErrorTTL+faultSlack {
			t.Errorf("%s: robots.txt asked for again %v after it was found unreachable, want %v", h.Name, gap, faultRobotsErrorTTL)
		}
		line := regexp.MustCompile(`level=WARN msg="robots\.txt unreachable, host paused" host=` + regexp.QuoteMeta(h.Name))
		c.pending.expect(t, len(logLines(c.r.log, line)) > 0, "waiting for log: "+logRobotsDown, "%s: no log line matches %s", h.Name, line)
	}
	if shut == 0 {
		t.Fatal("no host answers 500 for robots.txt: the case does not exercise the mode")
	}
}

// checkRobots404 checks that a host without robots.txt is crawled whole,
// with robots.txt asked for once.
func checkRobots404(t *testing.T, c *faultCheck) {
	open := 0
	for _, h := range c.e.web.Hosts() {
		if h.Robots != "404" {
			continue
		}
		open++
		robots := len(pathsUnder(map[string][]served{h.Name: c.hosts[h.Name]}, "/robots.txt"))
		held := 0
		for u := range c.r.held {
			if strings.HasPrefix(u, "http://"+h.Name+"/") {
				held++
			}
		}
		t.Logf("%s: robots.txt asked for %d times, %d of %d pages held", h.Name, robots, held, h.Pages)
		if robots != 1 || held != h.Pages {
			t.Errorf("%s: robots.txt asked for %d times, %d of %d pages held: want once, all", h.Name, robots, held, h.Pages)
		}
	}
	if open == 0 {
		t.Fatal("no host answers 404 for robots.txt: the case does not exercise the mode")
	}
	checkExact(t, c)
}

// validatorTally counts, for the hosts of one validator mode, what the
// revisits of pages found.
type validatorTally struct {
	revisits  int // fetches of a page already held
	notMod    int // 304 answers
	false304  int // 304 answers for a page whose live version differs from the copy held
	same200   int // 200 answers with the version held: a transfer a 304 would have saved
	wrongFlag int // 200 answers whose Event.Changed disagrees with the versions

	changed      int // pages that changed between the two crawls
	changed304   int // of them, pages whose first revisit after the change answered 304
	staleAtEnd   int // pages a false 304 left stale at the end
	pagesRevised int // pages revisited in the second crawl
}

// Simulated times of the validator crawls. simweb stamps wrong validators
// with the site's last deploy: the first deploy after time zero comes
// within a day, the next one at least 3 days later. Between the two
// crawls, then, a site with wrong validators keeps them while its pages
// change, and every change it has is answered 304 or not, as the crawler
// asks.
const (
	validatorsFirst  = 24 * time.Hour
	validatorsSecond = validatorsFirst + 47*time.Hour
)

// testValidators crawls a web where half the hosts have validators of a
// mode (absent or wrong) and the rest honest ones, twice, with revisits a
// second apart: at one simulated time until every page is held and
// revisited, then two days later, long enough for every page to be
// revisited. Each copy's version is read from its body, and each answer
// judged against simweb's truth.
func testValidators(t *testing.T, mode string) {
	sc := faultWebConfig()
	switch mode {
	case "absent":
		sc.Validators.Absent = 0.5
	case "wrong":
		sc.Validators.Wrong = 0.5
	}
	e := newFaultEnv(t, sc)
	modes := map[string]string{}
	for _, h := range e.web.Hosts() {
		modes[h.Name] = h.Validators
	}
	tallies := map[string]*validatorTally{"honest": {}, mode: {}}
	held := map[string]uint32{} // the version of each copy held
	stale := map[string]bool{}
	events := map[string]int{}
	revised := map[string]bool{} // pages revisited in the second crawl
	var revisedN atomic.Int64    // len(revised), for the crawl's stop condition
	firstRevised := map[string]bool{}
	var heldN, firstRevisedN atomic.Int64 // for the first crawl's stop condition
	second := false
	var bad []string
	onFetch := func(ev Event) {
		if ev.Sitemap {
			return
		}
		events[ev.URL]++
		tl := tallies[modes[urlx.Authority(ev.URL)]]
		prev, had := held[ev.URL]
		truth, err := e.web.Truth(ev.URL, e.clock.Now())
		if err != nil {
			bad = append(bad, err.Error())
			return
		}
		if had {
			tl.revisits++
		}
		if !second && had && !firstRevised[ev.URL] {
			firstRevised[ev.URL] = true
			firstRevisedN.Add(1)
		}
		if second && had && !revised[ev.URL] {
			revised[ev.URL] = true
			revisedN.Add(1)
			tl.pagesRevised++
			if truth.Version != prev {
				tl.changed++
				if ev.Status == http.StatusNotModified {
					tl.changed304++
				}
			}
		}
		switch ev.Status {
		case http.StatusOK:
			v, ok := simweb.VersionOf(ev.Body)
			if !ok || v != truth.Version {
				bad = append(bad, fmt.Sprintf("%s: 200 with version %d (%v), live %d", ev.URL, v, ok, truth.Version))
			}
			if had && ev.Changed != (v != prev) {
				tl.wrongFlag++
			}
			if had && v == prev {
				tl.same200++
			}
			held[ev.URL] = v
			if !had {
				heldN.Add(1)
			}
			delete(stale, ev.URL)
		case http.StatusNotModified:
			tl.notMod++
			if !had {
				bad = append(bad, ev.URL+": 304 without a copy held")
			} else if prev != truth.Version {
				tl.false304++
				stale[ev.URL] = true
			}
		default:
			bad = append(bad, fmt.Sprintf("%s: status %d", ev.URL, ev.Status))
		}
	}
	visits := map[string]int{}
	crawl := func(run time.Duration, until func() bool, inspect func(c *Crawler)) *faultRun {
		return e.crawl(t, crawlOptions{run: run, until: until, inspect: inspect, tweak: func(c *Config) {
			c.Revisit = time.Second
			c.OnFetch = onFetch
		}})
	}
	// In the first crawl nothing changes: every 304 is true. It lasts
	// until every allowed page is held and revisited (a fixed 2.5 s was
	// too short on a loaded machine), or 15 s.
	want := e.allowed()
	e.clock.Set(validatorsFirst)
	r1 := crawl(15*time.Second, func() bool {
		return heldN.Load() >= int64(len(want)) && firstRevisedN.Load() >= int64(len(want))
	}, nil)
	heldFirst := int64(len(held))
	firstFalse := tallies["honest"].false304 + tallies[mode].false304
	e.clock.Set(validatorsSecond)
	second = true
	// The second crawl lasts until every page held has been revisited (on
	// a loaded machine that can take longer than on an idle one), or 15 s.
	r2 := crawl(15*time.Second, func() bool { return revisedN.Load() >= heldFirst }, func(c *Crawler) {
		for u := range events {
			vs, err := c.store.Visits(u)
			if err != nil {
				t.Fatal(err)
			}
			visits[u] = len(vs)
		}
	})
	for u := range stale {
		tallies[modes[urlx.Authority(u)]].staleAtEnd++
	}
	for _, r := range []*faultRun{r1, r2} {
		if r.err != nil {
			t.Errorf("Run: %v", r.err)
		}
		if v := r.audit.Violations(); v != 0 {
			t.Errorf("%d politeness violations: %+v", v, r.audit.Examples)
		}
		if errs := logLines(r.log, regexp.MustCompile(`level=ERROR`)); len(errs) > 0 {
			t.Errorf("%d errors logged, the first: %s", len(errs), errs[0])
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d answers unlike the truth, the first: %s", len(bad), bad[0])
	}
	if firstFalse != 0 {
		t.Errorf("%d false 304s while nothing changed", firstFalse)
	}
	if got := countIn(r2.held, want); got != len(want) {
		t.Errorf("held %d of %d allowed pages, want all", got, len(want))
	}

	// The crawler records every visit, whatever the validators say.
	missing := 0
	for u, n := range events {
		if visits[u] != n {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d pages have other than one visit recorded per fetch committed", missing, len(events))
	}
	for _, m := range []string{"honest", mode} {
		tl := tallies[m]
		t.Logf("%s validators: %d pages revisited after %v, %d of them changed, %d of those answered 304; "+
			"in all %d revisits, %d 304s, %d false; %d 200s repeated the copy held; %d pages stale at the end; %d Changed flags wrong",
			m, tl.pagesRevised, validatorsSecond-validatorsFirst, tl.changed, tl.changed304,
			tl.revisits, tl.notMod, tl.false304, tl.same200, tl.staleAtEnd, tl.wrongFlag)
		if tl.wrongFlag != 0 {
			t.Errorf("%s validators: %d fetches flagged Changed against the versions", m, tl.wrongFlag)
		}
		if got := countHost(want, m, modes); tl.pagesRevised < got || tl.changed < 10 {
			t.Errorf("%s validators: %d of %d pages revisited in the second crawl, %d changed: want all, at least 10 changed",
				m, tl.pagesRevised, got, tl.changed)
		}
	}
	honest := tallies["honest"]
	if honest.false304 != 0 || honest.notMod == 0 {
		t.Errorf("honest validators: %d 304s, %d false: want some, none false", honest.notMod, honest.false304)
	}
	switch tl := tallies[mode]; mode {
	case "absent":
		// Without validators there is no conditional GET: every revisit
		// transfers the page, and the checksum finds the changes.
		if tl.notMod != 0 {
			t.Errorf("absent validators: %d 304s, want none", tl.notMod)
		}
	case "wrong":
		// The crawler probes validators with unconditional revisits and
		// stops trusting those that disagree with the content, so a site
		// whose validators lie costs a few missed changes, not all of them
		// (before it did: 84 of 84).
		t.Logf("wrong validators: %d false 304s; %d of %d changed pages missed at their first revisit, %d still stale at the end",
			tl.false304, tl.changed304, tl.changed, tl.staleAtEnd)
		if tl.changed304*5 > tl.changed {
			t.Errorf("wrong validators: %d of %d changed pages missed behind a false 304, want at most a fifth",
				tl.changed304, tl.changed)
		}
	}
}

// countHost counts the URLs of a set on hosts whose validators are mode.
func countHost(set map[string]bool, mode string, modes map[string]string) int {
	n := 0
	for u := range set {
		if modes[urlx.Authority(u)] == mode {
			n++
		}
	}
	return n
}
