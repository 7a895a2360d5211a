package crawler

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/extract"
	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/robots"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/urlx"
	"github.com/freshcrawl/freshcrawl/internal/warc"
)

// Environment of the crash-test child process, and the knob for the full
// form of the test.
const (
	envCrashDir   = "FRESHCRAWL_CRAWLER_CRASH_DIR"   // the child's data directory
	envCrashAddr  = "FRESHCRAWL_CRAWLER_CRASH_ADDR"  // the parent's simweb, host:port
	envCrashSeeds = "FRESHCRAWL_CRAWLER_CRASH_SEEDS" // space-separated seed URLs
	envCrashKills = "FRESHCRAWL_CRASH_KILLS"         // kills; default crashKillsShort
)

// crashKillsShort is the number of kills of the short form, which CI runs.
const crashKillsShort = 5

// TestMain runs the crash-test child instead of the tests when the
// environment names a data directory.
func TestMain(m *testing.M) {
	if dir := os.Getenv(envCrashDir); dir != "" {
		if err := crashChild(dir, os.Getenv(envCrashAddr), strings.Fields(os.Getenv(envCrashSeeds))); err != nil {
			fmt.Fprintln(os.Stderr, "crash child:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// crashWebConfig is a static web: no page is born, dies or changes (Churn
// 0 and a clock that stays at zero), no faults, and no robots.txt that
// shuts a host (500) or slows it (Crawl-delay). Hosts of 160 pages have
// two directories; on hosts with a robots.txt one is private, so robots.txt
// keeps the crawler from part of what it discovers.
func crashWebConfig() simweb.Config {
	cfg := simweb.DefaultConfig()
	cfg.Seed = 7
	cfg.Hosts, cfg.PagesPerHost = 8, 160
	cfg.Churn = 0
	cfg.Robots = simweb.RobotsMix{NotFound: 0.2}
	return cfg
}

// crashChild crawls dir until the crawl is complete, then exits 0, unless
// it is killed first. On stdout it says "ready" when New has returned,
// "fetch <status> <url>" after each page outcome is committed, and "done"
// after a clean Close; stdout is unbuffered, so a line the parent reads was
// written after the event it reports.
func crashChild(dir, addr string, seeds []string) error {
	rule, err := fetch.ParseResolve("*.test=" + addr)
	if err != nil {
		return err
	}
	out := os.Stdout
	c, err := New(Config{
		DataDir: dir,
		Seeds:   seeds,
		Scope:   ScopeAny,
		Delay:   -1,
		Fetch:   fetch.Config{AllowPrivate: true, Resolve: []fetch.ResolveRule{rule}, Timeout: 5 * time.Second},
		Logger:  slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		OnFetch: func(e Event) { fmt.Fprintln(out, "fetch", e.Status, e.URL) },
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "ready")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watchErr := make(chan error, 1)
	go func() { watchErr <- crashWatch(ctx, c, cancel) }()
	err = c.Run(ctx)
	cancel()
	err = errors.Join(err, <-watchErr, c.Close())
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "done")
	return nil
}

// crashWatch cancels the crawl once it is complete: for three polls in a
// row no task is in flight and no URL is queued in the store. Nothing can
// be queued while nothing is in flight, since only a committed outcome
// queues URLs, so the crawl cannot resume after that.
func crashWatch(ctx context.Context, c *Crawler, cancel context.CancelFunc) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	idle := 0
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		busy := c.Stats().InFlight > 0
		queued := 0
		err := c.store.Hosts(func(_ string, n int) error {
			queued += n
			return nil
		})
		if err != nil {
			return err
		}
		if busy || queued > 0 {
			idle = 0
			continue
		}
		if idle++; idle == 3 {
			cancel()
			return nil
		}
	}
}

// crashRunTimeout bounds one child's run; a crawl of the test's web takes
// a second or two.
const crashRunTimeout = time.Minute

// crashRun is what the parent saw of one child.
type crashRun struct {
	ready   bool          // New had returned when the run ended
	fetches int           // page outcomes the child reported committed
	done    bool          // the child found the crawl complete and exited 0
	killed  bool          // the child died of SIGKILL
	startup time.Duration // from start to "ready"
	elapsed time.Duration
	stderr  string
}

// crashKill says when the parent kills a child: after a time from the
// start of the process, or a jitter after the child has reported a number
// of commits (0: after "ready"). With neither, the child runs until it
// finds the crawl complete.
type crashKill struct {
	after   time.Duration
	fetches int // kill after this many commits; -1: not by progress
	jitter  time.Duration
}

func (k crashKill) String() string {
	switch {
	case k.after > 0:
		return fmt.Sprintf("at %v", k.after.Round(10*time.Microsecond))
	case k.fetches >= 0:
		return fmt.Sprintf("%v after commit %d", k.jitter.Round(10*time.Microsecond), k.fetches)
	}
	return "never"
}

// runCrashChild runs one child on dir and kills it as k says.
func runCrashChild(t *testing.T, dir, addr string, seeds []string, k crashKill) crashRun {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envCrashDir+"="+dir, envCrashAddr+"="+addr, envCrashSeeds+"="+strings.Join(seeds, " "))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu                sync.Mutex
		run               crashRun
		killing, timedOut bool
	)
	kill := func(d time.Duration) {
		time.Sleep(d)
		mu.Lock()
		killing = true
		mu.Unlock()
		_ = cmd.Process.Kill() // os.ErrProcessDone if it exited by itself
	}
	if k.after > 0 {
		go kill(k.after)
	}
	timeout := time.AfterFunc(crashRunTimeout, func() {
		mu.Lock()
		timedOut = true
		mu.Unlock()
		kill(0)
	})
	defer timeout.Stop()
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		mu.Lock()
		switch {
		case line == "ready":
			run.ready = true
			run.startup = time.Since(start)
			if k.fetches == 0 {
				go kill(k.jitter)
			}
		case strings.HasPrefix(line, "fetch "):
			run.fetches++
			if run.fetches == k.fetches {
				go kill(k.jitter)
			}
		case line == "done":
			run.done = true
		}
		mu.Unlock()
	}
	err = cmd.Wait()
	run.elapsed = time.Since(start)
	mu.Lock()
	defer mu.Unlock()
	run.stderr = stderr.String()
	var ee *exec.ExitError
	switch {
	case timedOut:
		t.Fatalf("child still running after %v (ready %v, %d commits); stderr:\n%s", crashRunTimeout, run.ready, run.fetches, run.stderr)
	case err == nil && run.done:
	case errors.As(err, &ee) && killing:
		ws, ok := ee.Sys().(syscall.WaitStatus)
		if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("child ended with %v; stderr:\n%s", err, run.stderr)
		}
		run.killed = true
	default:
		t.Fatalf("child ended with %v before any kill (done %v); stderr:\n%s", err, run.done, run.stderr)
	}
	return run
}

// TestCrawlSurvivesKills SIGKILLs a crawler child process at random
// moments of a crawl of a static simweb — some during start-up (WARC
// repair, seeds, schedule rebuild), the rest after a random number of
// commits plus a jitter, so that kills land in fetches, WARC writes, fsyncs
// and store commits — and restarts it each time on the same data
// directory. After the last kill a final run crawls to the end. Then every
// WARC file must read to the end with valid digests, every page the web's
// link graph makes reachable from the seeds must be held with its WARC
// record where the store says, every URL robots.txt forbids must be seen
// but not fetched, and the store's counters must match its rows.
//
// The short form (5 kills) runs in CI; FRESHCRAWL_CRASH_KILLS=25 is the
// full form.
func TestCrawlSurvivesKills(t *testing.T) {
	kills := crashKillsShort
	if v := os.Getenv(envCrashKills); v != "" {
		var err error
		if kills, err = strconv.Atoi(v); err != nil || kills < 0 {
			t.Fatalf("%s=%q: want a count of kills", envCrashKills, v)
		}
	}
	wcfg := crashWebConfig()
	web, err := simweb.New(wcfg, &simweb.ManualClock{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(web)
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	var seeds []string
	for _, h := range web.Hosts() {
		seeds = append(seeds, "http://"+h.Name+"/")
	}
	// The graph comes from a second, identical web, so that nothing the
	// crawl does to the served one can affect it.
	graph := crashGraph(t, wcfg, seeds)
	t.Logf("web: %d hosts, %d URLs reachable: %d to fetch, %d forbidden by robots.txt",
		wcfg.Hosts, len(graph.allowed)+len(graph.blocked), len(graph.allowed), len(graph.blocked))

	dir := t.TempDir()
	warcDir := filepath.Join(dir, "warc")
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, 1))
	t.Logf("kills: %d, random seed %d", kills, seed)

	var (
		committed  int                 // outcomes reported committed, over all runs
		torn       = map[string]bool{} // WARC files last seen with a torn tail
		inStartup  int
		inCrawl    int
		tornKills  int
		simTears   int
		afterDone  int
		totalStart time.Duration
		starts     int
		warnings   = map[string]int{} // child log messages at WARN and above
	)
	for k := range kills {
		kk := crashKill{fetches: -1}
		if k > 0 && rng.Float64() < 0.3 {
			// Up to 1.5 times the mean start-up so far: most of these
			// land before "ready", in exec, store recovery, WARC repair,
			// seeding and the schedule rebuild.
			kk.after = time.Millisecond + time.Duration(rng.Int64N(int64(totalStart*3/2/time.Duration(max(starts, 1)))+1))
		} else {
			// Spread the remaining work over the remaining kills, so that
			// most of them land mid-crawl and the final run still has work.
			left := max(len(graph.allowed)-committed, 1)
			kk.fetches = rng.IntN(max(left/(kills-k+1), 1) + 1)
			kk.jitter = time.Duration(rng.IntN(3000)) * time.Microsecond
		}
		before := crashWARCNames(t, warcDir)
		run := runCrashChild(t, dir, addr, seeds, kk)
		committed += run.fetches
		crashNoteLog(warnings, run.stderr)
		if run.ready {
			totalStart += run.startup
			starts++
		}
		phase := "crawl"
		switch {
		case !run.killed:
			phase = "none: the crawl was complete"
			afterDone++
		case !run.ready:
			phase = "start-up"
			inStartup++
		case run.fetches == 0:
			phase = "crawl, before the first commit"
			inCrawl++
		default:
			inCrawl++
		}
		newTorn := 0
		now := map[string]bool{}
		for _, name := range crashTornWARCs(t, warcDir) {
			now[name] = true
			if !torn[name] {
				newTorn++
			}
		}
		if newTorn > 0 {
			tornKills++
			phase += ", mid-WARC-write"
		} else if run.killed && rng.Float64() < 0.25 {
			// A kill rarely lands inside write(2), so stand in for one now
			// and then: half a record appended to a file this run wrote,
			// as a write cut short would leave it. Nothing committed can
			// point there, so the next run must cut it off.
			if name := crashTearWARC(t, warcDir, before); name != "" {
				now[name] = true
				simTears++
				phase += ", WARC tail torn by the test"
			}
		}
		torn = now
		t.Logf("kill %2d %-24s %4d commits in %6v; %s",
			k, kk.String()+":", run.fetches, run.elapsed.Round(time.Millisecond), phase)
	}
	final := runCrashChild(t, dir, addr, seeds, crashKill{fetches: -1})
	if !final.done {
		t.Fatalf("final run did not complete the crawl; stderr:\n%s", final.stderr)
	}
	committed += final.fetches
	crashNoteLog(warnings, final.stderr)
	t.Logf("final run: %d commits in %v", final.fetches, final.elapsed.Round(time.Millisecond))
	if starts > 0 {
		t.Logf("mean start-up to ready: %v", (totalStart / time.Duration(starts)).Round(time.Millisecond))
	}
	t.Logf("kills: %d in start-up, %d mid-crawl (%d tore a WARC record, %d more tears made by the test), %d after completion; %d outcomes committed in all",
		inStartup, inCrawl, tornKills, simTears, afterDone, committed)

	for msg, n := range warnings {
		t.Logf("child log: %d × %s", n, msg)
	}

	recs := crashReadWARCs(t, warcDir)
	crashCheckState(t, dir, graph, recs)
}

// crashNoteLog counts the messages of a child's log (slog text lines) by
// level and text.
func crashNoteLog(counts map[string]int, log string) {
	for _, line := range strings.Split(log, "\n") {
		i := strings.Index(line, "level=")
		j := strings.Index(line, " msg=")
		if i < 0 || j < i {
			continue
		}
		msg := line[j+len(" msg="):]
		if k := strings.Index(msg, "\" "); k >= 0 && strings.HasPrefix(msg, "\"") {
			msg = msg[:k+1]
		} else if k := strings.IndexByte(msg, ' '); k >= 0 {
			msg = msg[:k]
		}
		counts[line[i+len("level="):j]+" "+msg]++
	}
}

// crashGraphResult is the independent account of what the crawl must
// reach: URLs to fetch with their kind and HTTP status, and URLs robots.txt
// forbids.
type crashGraphResult struct {
	allowed map[string]crashURL
	blocked map[string]bool
}

type crashURL struct {
	kind   uint8
	status int
}

// crashGraph walks the web's link graph from the seeds as the crawler's
// policy says it should: every link of an HTML page (nofollow excepted),
// every entry of a sitemap on the sitemap's own site, and for each host
// the sitemaps its robots.txt names and /sitemap.xml; URLs robots.txt
// forbids are discovered but not fetched, so not expanded.
func crashGraph(t *testing.T, cfg simweb.Config, seeds []string) crashGraphResult {
	t.Helper()
	web, err := simweb.New(cfg, &simweb.ManualClock{})
	if err != nil {
		t.Fatal(err)
	}
	get := func(u string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		web.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, u, nil))
		return rec
	}
	g := crashGraphResult{allowed: map[string]crashURL{}, blocked: map[string]bool{}}
	seen := map[string]bool{}
	rules := map[string]*robots.Group{}
	type item struct {
		url  string
		kind uint8
	}
	var queue []item
	var add func(raw string, kind uint8)
	add = func(raw string, kind uint8) {
		u, err := urlx.Canonical(raw)
		if err != nil {
			t.Fatalf("graph: %q: %v", raw, err)
		}
		if seen[u] || (urlx.Limits{}).Check(u) != nil {
			return
		}
		seen[u] = true
		queue = append(queue, item{u, kind})
		p, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		key := robots.Key(p)
		if _, ok := rules[key]; ok {
			return
		}
		rec := get(key + "/robots.txt")
		f := robots.FromResponse(rec.Code, rec.Body.Bytes())
		rules[key] = f.Group("freshcrawl")
		for _, s := range f.Sitemaps() {
			add(s, KindSitemap)
		}
		add(key+"/sitemap.xml", KindSitemap)
	}
	for _, s := range seeds {
		add(s, KindPage)
	}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		p, err := url.Parse(it.url)
		if err != nil {
			t.Fatal(err)
		}
		if !rules[robots.Key(p)].Allowed(p.RequestURI()) {
			g.blocked[it.url] = true
			continue
		}
		rec := get(it.url)
		g.allowed[it.url] = crashURL{kind: it.kind, status: rec.Code}
		if rec.Code != http.StatusOK {
			continue
		}
		ctype := rec.Header().Get("Content-Type")
		switch it.kind {
		case KindSitemap:
			res, err := extract.Sitemap(bytes.NewReader(rec.Body.Bytes()), ctype, DefaultSitemapURLs)
			if err != nil {
				t.Fatalf("graph: sitemap %s: %v", it.url, err)
			}
			site := urlx.SiteKey(urlx.Host(it.url))
			for _, e := range res.URLs {
				if urlx.SiteKey(urlx.Host(e.Loc)) == site {
					add(e.Loc, KindPage)
				}
			}
			for _, e := range res.Sitemaps {
				if urlx.SiteKey(urlx.Host(e.Loc)) == site {
					add(e.Loc, KindSitemap)
				}
			}
		default:
			res, err := extract.Links(bytes.NewReader(rec.Body.Bytes()), it.url, ctype,
				extract.Options{HonorNofollow: true, Agent: "freshcrawl"})
			if err != nil {
				t.Fatalf("graph: links of %s: %v", it.url, err)
			}
			for _, l := range res.Links {
				add(l.URL, KindPage)
			}
		}
	}
	return g
}

// crashWARCNames returns the base names of the WARC files in dir.
func crashWARCNames(t *testing.T, dir string) map[string]bool {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, p := range paths {
		names[filepath.Base(p)] = true
	}
	return names
}

// crashTearWARC appends the first half of the last record of the newest
// WARC file not in old to that file, and returns its name; "" if there is
// no such file with a record.
func crashTearWARC(t *testing.T, dir string, old map[string]bool) string {
	t.Helper()
	var fresh []string
	for name := range crashWARCNames(t, dir) {
		if !old[name] {
			fresh = append(fresh, name)
		}
	}
	if len(fresh) == 0 {
		return ""
	}
	sort.Strings(fresh)
	name := fresh[len(fresh)-1]
	path := filepath.Join(dir, name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rd := warc.NewReader(bytes.NewReader(data))
	last := int64(-1)
	for {
		if _, err := rd.Next(); err != nil {
			break
		}
		last = rd.Offset()
	}
	if last < 0 {
		return ""
	}
	member := data[last:]
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(member[:len(member)/2]); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return name
}

// crashTornWARCs returns the WARC files that do not read to the end. It
// only reads, so the next child repairs what it finds as it would.
func crashTornWARCs(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	var torn []string
	for _, path := range names {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rd := warc.NewReader(f)
		for {
			_, err := rd.Next()
			if err == nil {
				err = rd.Verify()
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				torn = append(torn, filepath.Base(path))
				break
			}
		}
		f.Close()
	}
	return torn
}

// crashLoc is where a record starts: a file and the offset of its gzip
// member, as store.Page keeps it.
type crashLoc struct {
	file   string
	offset int64
}

// crashRecord is what the checks need of a WARC record.
type crashRecord struct {
	typ, uri, id, payload string
	status                int // HTTP status of a response record
}

// crashWARCs is every record of the crawl's WARC files.
type crashWARCs struct {
	at        map[crashLoc]crashRecord
	responses map[string]int // 200 response records per target URI
	files     int
}

// crashReadWARCs reads every WARC file to the end, verifying each record's
// block and payload digests.
func crashReadWARCs(t *testing.T, dir string) crashWARCs {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	w := crashWARCs{at: map[crashLoc]crashRecord{}, responses: map[string]int{}, files: len(names)}
	for _, path := range names {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		rd := warc.NewReader(f)
		n := 0
		for {
			h, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Errorf("WARC %s does not read to the end: after %d records: %v", name, n, err)
				break
			}
			n++
			r := crashRecord{typ: h.Get("WARC-Type"), uri: h.Get("WARC-Target-URI"), id: h.Get("WARC-Record-ID"), payload: h.Get("WARC-Payload-Digest")}
			if r.typ == "response" {
				// The status line is the block's first line.
				line, _ := bufio.NewReader(rd).ReadString('\n')
				if f := strings.Fields(line); len(f) >= 2 {
					r.status, _ = strconv.Atoi(f[1])
				}
				if r.status == http.StatusOK {
					w.responses[r.uri]++
				}
			}
			if err := rd.Verify(); err != nil {
				t.Errorf("WARC %s record %d (%s %s): %v", name, n, r.typ, r.uri, err)
			}
			w.at[crashLoc{name, rd.Offset()}] = r
		}
		f.Close()
	}
	return w
}

// crashCheckState checks the store after the final run against the graph
// and the WARC files.
func crashCheckState(t *testing.T, dir string, g crashGraphResult, w crashWARCs) {
	t.Helper()
	s, err := store.Open(filepath.Join(dir, "state"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}()

	// Every row: its URL was discovered, it is final, and a held page's
	// capture is in the WARC files where the row says.
	rows := map[string]store.Page{}
	var held, heldPages int64
	dueWant := map[string]map[string]bool{} // host → URLs of held pages
	err = s.ForEachPage(func(p store.Page) error {
		rows[p.URL] = p
		if !p.Held {
			return nil
		}
		held++
		if p.Kind == KindPage {
			heldPages++ // The counter leaves sitemaps out: they are not pages of the collection.
		}
		host := authority(p.URL)
		if dueWant[host] == nil {
			dueWant[host] = map[string]bool{}
		}
		dueWant[host][p.URL] = true
		r, ok := w.at[crashLoc{p.WARCFile, p.WARCOffset}]
		switch {
		case !ok:
			t.Errorf("%s: held, but no WARC record starts at %s:%d", p.URL, p.WARCFile, p.WARCOffset)
		case r.typ != "response" || r.uri != p.URL || r.id != p.RecordID || r.payload != p.PayloadDigest:
			t.Errorf("%s: the record at %s:%d is %s of %s, id %s, payload %s; the row says id %s, payload %s",
				p.URL, p.WARCFile, p.WARCOffset, r.typ, r.uri, r.id, r.payload, p.RecordID, p.PayloadDigest)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.Counter(counterHeld); err != nil {
		t.Error(err)
	} else if n != heldPages {
		t.Errorf("counter %q is %d, but %d page rows are held", counterHeld, n, heldPages)
	}

	// Every URL reachable and allowed has its final row; every URL
	// robots.txt forbids was seen and not fetched; no row is for a URL
	// outside the graph; each page was committed once.
	for u, want := range g.allowed {
		p, ok := rows[u]
		if !ok {
			seen, _ := s.Seen(u)
			t.Errorf("%s (kind %d): no page row (seen %v): a discovered URL was lost", u, want.kind, seen)
			continue
		}
		wantHeld := want.status >= 200 && want.status < 300
		if p.Status != want.status || p.Held != wantHeld || p.Kind != want.kind {
			t.Errorf("%s: row has status %d, held %v, kind %d; want %d, %v, %d",
				u, p.Status, p.Held, p.Kind, want.status, wantHeld, want.kind)
		}
		if p.Fetches != 1 {
			t.Errorf("%s: %d fetches recorded; a static page is fetched once", u, p.Fetches)
		}
		if v, err := s.Visits(u); err != nil || len(v) != 1 {
			t.Errorf("%s: %d visits recorded (%v); want 1", u, len(v), err)
		}
		if wantHeld && w.responses[u] == 0 {
			t.Errorf("%s: held, but no 200 response record for it in the WARC files", u)
		}
	}
	for u := range g.blocked {
		if seen, err := s.Seen(u); err != nil || !seen {
			t.Errorf("%s: forbidden by robots.txt, and not in the seen set (%v): a discovered URL was lost", u, err)
		}
		if _, ok := rows[u]; ok {
			t.Errorf("%s: forbidden by robots.txt, but has a page row", u)
		}
	}
	for u := range rows {
		if _, ok := g.allowed[u]; !ok {
			t.Errorf("%s: page row for a URL the graph does not reach", u)
		}
	}
	if got, want := s.SeenCount(), uint64(len(g.allowed)+len(g.blocked)); got != want {
		t.Errorf("SeenCount %d, want %d: the URLs reachable from the seeds", got, want)
	}

	// Nothing is left queued, and exactly the held pages are scheduled for
	// their revisit.
	err = s.Hosts(func(host string, n int) error {
		t.Errorf("host %s still has %d URLs queued after the crawl completed", host, n)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dueGot := map[string]map[string]bool{}
	err = s.DueHosts(func(host string, _ time.Time) error {
		due, err := s.Due(host, maxTime, 1<<20)
		for _, d := range due {
			if dueGot[host] == nil {
				dueGot[host] = map[string]bool{}
			}
			if dueGot[host][d.URL] {
				t.Errorf("%s: scheduled twice", d.URL)
			}
			dueGot[host][d.URL] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for host, urls := range dueWant {
		for u := range urls {
			if !dueGot[host][u] {
				t.Errorf("%s: held but not scheduled for a revisit", u)
			}
		}
	}
	for host, urls := range dueGot {
		for u := range urls {
			if !dueWant[host][u] {
				t.Errorf("%s: scheduled for a revisit but not held", u)
			}
		}
	}

	dups := 0
	var dupURLs []string
	for u, n := range w.responses {
		if _, ok := g.allowed[u]; ok && n > 1 { // robots.txt is fetched again by each run
			dups += n - 1
			dupURLs = append(dupURLs, u)
		}
	}
	sort.Strings(dupURLs)
	if len(dupURLs) > 5 {
		dupURLs = append(dupURLs[:5], "...")
	}
	t.Logf("store: %d page rows, %d held (%d pages), %d URLs seen; WARC: %d files, %d records, %d extra captures (fetched, archived, then killed before the state commit): %v",
		len(rows), held, heldPages, s.SeenCount(), w.files, len(w.at), dups, dupURLs)
}
