package node

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// heldIn returns the pages held in every partition directory under dir,
// failing if a page is held twice or by a partition that does not own it.
func heldIn(t *testing.T, dir string, part cluster.Partitioner) map[string]bool {
	t.Helper()
	held := map[string]bool{}
	for p := range part.N {
		st, err := store.Open(filepath.Join(Dir(dir, p), "state"), store.Options{ReadOnly: true})
		if err != nil {
			continue // never opened: no partition was started there
		}
		err = st.ForEachPage(func(pg store.Page) error {
			if !pg.Held {
				return nil
			}
			if held[pg.URL] {
				t.Errorf("%s held twice", pg.URL)
			}
			if part.Of(pg.URL) != p {
				t.Errorf("partition %d holds %s, of partition %d", p, pg.URL, part.Of(pg.URL))
			}
			held[pg.URL] = true
			return nil
		})
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return held
}

// TestNodesCrawl: two nodes, eight partitions, exchange mode, over an
// embedded NATS server and a small simweb on loopback. Together they
// crawl every page of the web once, politely, though one partition's
// crawl is stopped as a late fence would stop it. The crawl runs until the
// pages are all held or 60 s pass; the nodes are then stopped and their
// partitions read back.
func TestNodesCrawl(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute of wall time at most; -short skips it")
	}
	srv, err := cluster.StartServer(cluster.ServerConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	sc := simweb.DefaultConfig()
	sc.Hosts, sc.PagesPerHost, sc.Churn = 8, 15, 0 // no page born or dying: 120 pages
	// No Crawl-delay (TestKillNodes has them): a host asking for 5 s would
	// hold the test half a minute.
	sc.Robots.CrawlDelay = 0
	web, err := simweb.New(sc, simweb.NewWallClock(1))
	if err != nil {
		t.Fatal(err)
	}
	web.Audit().Reset(simweb.AuditConfig{MinDelay: 15 * time.Millisecond, MaxInFlight: 1})
	hs := httptest.NewServer(web)
	defer hs.Close()
	rule, err := fetch.ParseResolve("*.test=" + hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	var seeds []string
	for _, h := range web.Hosts() {
		seeds = append(seeds, "http://"+h.Name+"/")
	}
	dir := t.TempDir()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg := Config{
		NATS: srv.URL(), Cluster: "t", Partitions: 8, TTL: 1500 * time.Millisecond, DataDir: dir,
		ExchangeEvery: 100 * time.Millisecond, PlanEvery: 200 * time.Millisecond, Logger: log,
		Crawl: crawler.Config{
			Seeds: seeds, Scope: crawler.ScopeAny, Delay: 20 * time.Millisecond, Workers: 8, NoSync: true, Logger: log,
			Budget: 200, Revisit: time.Hour, // no revisit within the test
			Fetch: fetch.Config{AllowPrivate: true, Resolve: []fetch.ResolveRule{rule}, Timeout: 5 * time.Second},
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var nodes []*Node
	for _, name := range []string{"n1", "n2"} {
		c := cfg
		c.Node = name
		n, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, n)
		wg.Go(func() {
			if err := n.Run(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	// A fence that fires while the lease holds (a renewal late under
	// load) stops a partition's crawl; the node must open it again.
	fenced := cluster.Partitioner{Scheme: cluster.BySite, N: 8}.Of(seeds[0]) // a partition with pages
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var pt *partition
		for _, n := range nodes {
			n.mu.Lock()
			if x := n.parts[fenced]; x != nil {
				pt = x
			}
			n.mu.Unlock()
		}
		if pt != nil {
			pt.cancel()
			break
		}
	}
	want := sc.Hosts * sc.PagesPerHost
	deadline := time.Now().Add(60 * time.Second)
	// Done when the web has served a request a page and robots.txt and then
	// none for 2 s (a reopened partition asks for robots.txt again).
	last, lastAt := uint64(0), time.Now()
	for ; time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if n := web.Audit().Report().Requests; n != last {
			last, lastAt = n, time.Now()
		} else if n >= uint64(want+sc.Hosts) && time.Since(lastAt) > 2*time.Second {
			break
		}
	}
	checkPlan(t, nodes, cfg.Crawl.Budget)
	cancel()
	wg.Wait()
	part := cluster.Partitioner{Scheme: cluster.BySite, N: 8}
	held := heldIn(t, dir, part)
	rep := web.Audit().Report()
	t.Logf("%d pages held (%d pages and a home page a host); %d requests; audit %+v", len(held), want, rep.Requests, rep)
	if rep.Violations() != 0 {
		t.Errorf("audit: %d violations", rep.Violations())
	}
	if len(held) < want*97/100 { // 118 of 120 are reachable from the seeds
		t.Errorf("%d of %d pages held", len(held), want)
	}
}

// checkPlan checks that the nodes' partitions plan at the cluster's
// refresh plan: its uniform interval and parameter, and each its share of
// the budget, the shares adding up to the budget. The plan is re-solved
// every PlanEvery, so it polls for a moment when all agree.
func checkPlan(t *testing.T, nodes []*Node, budget float64) {
	t.Helper()
	var why string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if why = planDisagrees(nodes, budget); why == "" {
			return
		}
	}
	t.Error(why)
}

// planDisagrees says how the nodes' partitions stray from the cluster's
// plan, "" if they do not.
func planDisagrees(nodes []*Node, budget float64) string {
	plan, ok, err := nodes[0].plans.Plan(context.Background())
	if err != nil || !ok {
		return fmt.Sprintf("no plan: %v", err)
	}
	sum := 0.0
	for _, b := range plan.Budgets {
		sum += b
	}
	if len(plan.Budgets) != 8 || math.Abs(sum-budget) > 1e-9*budget {
		return fmt.Sprintf("plan budgets %v, want 8 adding up to %g", plan.Budgets, budget)
	}
	held := 0.0
	for _, n := range nodes {
		n.mu.Lock()
		for p, pt := range n.parts {
			m := pt.c.Refresh()
			if got := pt.c.Stats().Budget; got != plan.Budgets[p] {
				n.mu.Unlock()
				return fmt.Sprintf("partition %d: budget %g, the plan's %g", p, got, plan.Budgets[p])
			}
			if m.Uniform() != time.Hour || m.Planner().Param() != plan.Param {
				n.mu.Unlock()
				return fmt.Sprintf("partition %d: uniform %v and parameter %g, the plan's %v and %g", p, m.Uniform(), m.Planner().Param(), plan.Uniform, plan.Param)
			}
			held += plan.Budgets[p]
		}
		n.mu.Unlock()
	}
	if math.Abs(held-budget) > 1e-9*budget {
		return fmt.Sprintf("the partitions held have budgets adding up to %g, want %g", held, budget)
	}
	return ""
}
