package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/warc"
)

// The kill test's child is a node in a process of its own, configured by
// its environment; the parent kills it with SIGKILL.
const (
	envChild     = "FRESHCRAWL_NODE_CHILD" // the node's name
	envNATS      = "FRESHCRAWL_NODE_NATS"
	envDir       = "FRESHCRAWL_NODE_DIR"
	envWeb       = "FRESHCRAWL_NODE_WEB" // simweb's host:port
	envSeeds     = "FRESHCRAWL_NODE_SEEDS"
	envDelay     = "FRESHCRAWL_NODE_DELAY"
	envKills     = "FRESHCRAWL_CLUSTER_KILLS" // kills; default killsShort
	killTTL      = 1500 * time.Millisecond
	killsShort   = 1
	killChildren = 3
)

func TestMain(m *testing.M) {
	if name := os.Getenv(envChild); name != "" {
		if err := runChild(name); err != nil {
			fmt.Fprintln(os.Stderr, "node child:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runChild runs a node until SIGTERM.
func runChild(name string) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	rule, err := fetch.ParseResolve("*.test=" + os.Getenv(envWeb))
	if err != nil {
		return err
	}
	delay, err := time.ParseDuration(os.Getenv(envDelay))
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	n, err := New(Config{
		NATS: os.Getenv(envNATS), Cluster: "k", Node: name, Partitions: 12, TTL: killTTL,
		DataDir: os.Getenv(envDir), ExchangeEvery: 200 * time.Millisecond, Logger: log,
		Crawl: crawler.Config{
			Seeds: strings.Fields(os.Getenv(envSeeds)), Scope: crawler.ScopeAny, Delay: delay, Workers: 16, Logger: log,
			Fetch: fetch.Config{AllowPrivate: true, Resolve: []fetch.ResolveRule{rule}, Timeout: 5 * time.Second},
		},
	})
	if err != nil {
		return err
	}
	return n.Run(ctx)
}

// killWorld is the kill test's web and cluster.
type killWorld struct {
	t     *testing.T
	srv   *cluster.Server
	web   *simweb.Web
	addr  string
	seeds []string
	dir   string
	delay time.Duration
}

func (w *killWorld) start(name string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"="+name, envNATS+"="+w.srv.URL(), envDir+"="+w.dir,
		envWeb+"="+w.addr, envSeeds+"="+strings.Join(w.seeds, " "), envDelay+"="+w.delay.String())
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	return cmd
}

// leases returns which node holds each partition's lease now.
func leases(t *testing.T, kv jetstream.KeyValue) map[string]string {
	t.Helper()
	held := map[string]string{}
	keys, err := kv.Keys(context.Background())
	if err != nil && !errors.Is(err, jetstream.ErrNoKeysFound) {
		t.Fatal(err)
	}
	for _, k := range keys {
		if e, err := kv.Get(context.Background(), k); err == nil {
			held[k] = string(e.Value())
		}
	}
	return held
}

// TestKillNodes kills nodes of a three-node cluster with SIGKILL while it
// crawls a simweb, and starts each again: a dead node's partitions are
// taken by the others as its leases expire; after the run, the cluster
// holds every page one process holds of the same web (no discovered URL is
// lost), every WARC file reads to its end, and simweb's audit saw no
// request to a host within the delay of the one before, whichever node
// sent them. CI runs one kill; FRESHCRAWL_CLUSTER_KILLS=10 the full form.
// The waits are bounded polls, not timed windows.
func TestKillNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("child processes and up to a few minutes of wall time; -short skips it")
	}
	kills := killsShort
	if v := os.Getenv(envKills); v != "" {
		var err error
		if kills, err = strconv.Atoi(v); err != nil || kills < 1 {
			t.Fatalf("%s=%q", envKills, v)
		}
	}
	sc := simweb.DefaultConfig()
	// A fifth of the hosts ask for a Crawl-delay of up to a second, which
	// a node taking over must keep too.
	sc.Hosts, sc.PagesPerHost, sc.Robots.MaxCrawlDelay = 12, 25, 1
	w := &killWorld{t: t, dir: t.TempDir(), delay: 60 * time.Millisecond}
	if kills > 1 { // a crawl long enough for every kill
		sc.Hosts, sc.PagesPerHost, w.delay = 24, 80, 200*time.Millisecond
	}
	var err error
	if w.srv, err = cluster.StartServer(cluster.ServerConfig{Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	defer w.srv.Close()
	if w.web, err = simweb.New(sc, simweb.NewWallClock(1)); err != nil {
		t.Fatal(err)
	}
	w.web.Audit().Reset(simweb.AuditConfig{MinDelay: w.delay - 5*time.Millisecond, MaxInFlight: 1})
	hs := httptest.NewServer(w.web)
	defer hs.Close()
	w.addr = hs.Listener.Addr().String()
	for _, h := range w.web.Hosts() {
		w.seeds = append(w.seeds, "http://"+h.Name+"/")
	}
	nc, err := nats.Connect(w.srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)

	names := make([]string, killChildren)
	procs := make([]*exec.Cmd, killChildren)
	for i := range procs {
		names[i] = fmt.Sprintf("n%d", i+1)
		procs[i] = w.start(names[i])
	}
	defer func() {
		for _, p := range procs {
			p.Process.Kill()
			p.Wait()
		}
	}()
	// The lease bucket exists once a node has joined.
	var kv jetstream.KeyValue
	for deadline := time.Now().Add(30 * time.Second); kv == nil; time.Sleep(50 * time.Millisecond) {
		if kv, _ = js.KeyValue(context.Background(), "k-leases"); kv == nil && time.Now().After(deadline) {
			t.Fatal("no node joined within 30 s")
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var takeovers []time.Duration
	for k := range kills {
		time.Sleep(time.Second + time.Duration(rng.IntN(1000))*time.Millisecond)
		i := rng.IntN(killChildren)
		var dead []string
		for key, holder := range leases(t, kv) {
			if holder == names[i] {
				dead = append(dead, key)
			}
		}
		procs[i].Process.Kill()
		procs[i].Wait()
		killed := time.Now()
		took := waitTakeover(t, kv, names[i], dead)
		takeovers = append(takeovers, took.Sub(killed))
		t.Logf("kill %d: %s held %d partitions, taken over %v after the kill (lease TTL %v)", k+1, names[i], len(dead), took.Sub(killed).Round(time.Millisecond), killTTL)
		procs[i] = w.start(names[i])
	}
	// The crawl is over when the web has served at least a request a page
	// and none for 5 s (pages are not revisited within the test: without a
	// budget, a page is revisited daily).
	last, lastAt := uint64(0), time.Now()
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if n := w.web.Audit().Report().Requests; n != last {
			last, lastAt = n, time.Now()
		} else if n >= uint64(sc.Hosts*sc.PagesPerHost) && time.Since(lastAt) > 5*time.Second {
			break
		}
	}
	for _, p := range procs {
		p.Process.Signal(syscall.SIGTERM)
	}
	for _, p := range procs {
		if err := p.Wait(); err != nil {
			t.Errorf("node ended: %v", err)
		}
	}
	w.check(takeovers)
}

// waitTakeover polls until none of partitions is held by dead, every one
// held by another node, and returns when that was seen.
func waitTakeover(t *testing.T, kv jetstream.KeyValue, dead string, partitions []string) time.Time {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		now := leases(t, kv)
		done := true
		for _, p := range partitions {
			if h := now[p]; h == "" || h == dead {
				done = false
			}
		}
		if done {
			return time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatalf("partitions %v of %s not taken over within 30 s: %v", partitions, dead, now)
		}
	}
}

// check compares what the cluster holds with one process's crawl of the
// same web, reads every WARC file to its end, and reads the audit.
func (w *killWorld) check(takeovers []time.Duration) {
	t := w.t
	part := cluster.Partitioner{Scheme: cluster.BySite, N: 12}
	held := heldIn(t, w.dir, part)
	rep := w.web.Audit().Report() // the cluster's requests only
	rule, _ := fetch.ParseResolve("*.test=" + w.addr)
	one, err := crawler.New(crawler.Config{
		DataDir: t.TempDir(), Seeds: w.seeds, Scope: crawler.ScopeAny, Delay: w.delay, NoSync: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Fetch:  fetch.Config{AllowPrivate: true, Resolve: []fetch.ResolveRule{rule}, Timeout: 5 * time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	runUntilIdle(t, one, 3*time.Minute)
	single := map[string]bool{}
	heldOf(t, one, single)
	one.Close()
	lost := 0
	for u := range single {
		if !held[u] {
			lost++
			if lost <= 5 {
				t.Errorf("%s held by one process, not by the cluster", u)
			}
		}
	}
	records := 0
	files, _ := filepath.Glob(filepath.Join(w.dir, "p*", "warc", "*.warc.gz"))
	for _, f := range files {
		n, err := readWARC(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
		}
		records += n
	}
	t.Logf("cluster held %d pages, one process %d, %d lost; %d WARC files, %d records; takeovers %v; audit %d requests, %d violations",
		len(held), len(single), lost, len(files), records, takeovers, rep.Requests, rep.Violations())
	if rep.Violations() != 0 {
		t.Errorf("audit: %+v", rep)
	}
}

// runUntilIdle runs c until it has nothing queued, in flight or
// uncommitted for a second, or limit passes.
func runUntilIdle(t *testing.T, c *crawler.Crawler, limit time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	go func() {
		idle := 0
		for idle < 5 && ctx.Err() == nil {
			time.Sleep(200 * time.Millisecond)
			if st := c.Stats(); st.Requests > 0 && st.Queued == 0 && st.InFlight == 0 && st.Uncommitted == 0 {
				idle++
			} else {
				idle = 0
			}
		}
		cancel()
	}()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
}

// heldOf adds the pages c holds to held.
func heldOf(t *testing.T, c *crawler.Crawler, held map[string]bool) {
	t.Helper()
	if err := c.Store().ForEachPage(func(p store.Page) error {
		if p.Held {
			held[p.URL] = true
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// readWARC reads every record of a WARC file and returns how many.
func readWARC(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := warc.NewReader(f)
	n := 0
	for {
		if _, err := r.Next(); err == io.EOF {
			return n, nil
		} else if err != nil {
			return n, err
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			return n, err
		}
		n++
	}
}
