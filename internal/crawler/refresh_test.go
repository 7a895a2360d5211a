package crawler

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/schedule"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// refreshCrawl crawls a small simweb (6 hours a second, no churn, no
// robots.txt exclusions) with the given policy for rounds × 240 page
// fetches (each page fetched about rounds times) or 30 s, and returns the
// held page rows and the load of the final plan (Σ 1/interval).
func refreshCrawl(t *testing.T, dir string, policy Policy, rounds int) (map[string]store.Page, float64) {
	t.Helper()
	const speed = 6 * 3600
	sc := simweb.DefaultConfig()
	sc.Hosts, sc.PagesPerHost, sc.Churn = 6, 40, 0
	sc.Robots = simweb.RobotsMix{}
	web, addr := testWeb(t, sc, speed)
	cfg := testConfig(t, dir, addr)
	cfg.Seeds = seedsOf(web)
	cfg.Delay = 5 * time.Millisecond
	cfg.Revisit = time.Second
	cfg.TimeScale = speed
	cfg.Policy = policy
	c := crawlUntil(t, cfg, int64(rounds*240), 30*time.Second)
	// The load of the plan at the end, re-solved (between re-solves, up to
	// N/64 or as many moves as there are bins, the plan drifts from the
	// budget; with 240 pages that is up to 100 moves): Σ 1/interval.
	if c.planner != nil {
		c.planner.SetBudget(0) // the next interval re-solves
	}
	load := 0.0
	if err := c.store.ForEachPage(func(p store.Page) error {
		if p.Held && p.Kind == KindPage {
			load += 1 / c.policyInterval(&p).Seconds()
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(dir+"/state", store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows := map[string]store.Page{}
	if err := s.ForEachPage(func(p store.Page) error {
		if p.Held && p.Kind == KindPage {
			rows[p.URL] = p
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	crashCheckPlan(t, s, rows, policy == PolicyOptimal)
	return rows, load
}

// crawlUntil runs a crawler built from cfg until it has fetched n pages
// (sitemaps not counted) or limit has passed, and returns it, still open.
func crawlUntil(t *testing.T, cfg Config, n int64, limit time.Duration) *Crawler {
	t.Helper()
	var fetches atomic.Int64
	cfg.OnFetch = func(e Event) {
		if !e.Sitemap {
			fetches.Add(1)
		}
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	go func() {
		for ctx.Err() == nil && fetches.Load() < n {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRefreshOptimal checks the optimal policy in the crawler: its plan
// counters follow the rows (crashCheckPlan), the plan spends the revisit
// budget (the collection once per Revisit, here 1 s) within 5 %, and
// pages are planned from their own estimates, not uniformly. Reopening the data
// directory under another policy and back rebuilds the plan.
func TestRefreshOptimal(t *testing.T) {
	bubble(t, func(t *testing.T) {
		dir := t.TempDir()
		rows, load := refreshCrawl(t, dir, PolicyOptimal, 7)
		if len(rows) < 200 {
			t.Fatalf("%d pages held, want most of 240", len(rows))
		}
		intervals := map[time.Duration]int{}
		for _, p := range rows {
			iv := p.NextDue.Sub(p.LastFetch)
			if iv <= 0 {
				t.Fatalf("%s: due %v after its last fetch", p.URL, iv)
			}
			intervals[iv.Round(100*time.Millisecond)]++
		}
		budget := float64(len(rows)) / time.Second.Seconds()
		t.Logf("%d pages held, planned load %.1f/s for a revisit budget of %.1f/s, %d distinct intervals", len(rows), load, budget, len(intervals))
		if math.Abs(load/budget-1) > 0.05 {
			t.Errorf("planned revisit load %.1f/s, budget %.1f/s", load, budget)
		}
		if len(intervals) < 5 {
			t.Errorf("only %d distinct intervals (to 0.1 s): the plan is not using the estimates", len(intervals))
		}
		// Under uniform, then optimal again: the counters are rebuilt each
		// time the policy changes to a planned one.
		refreshCrawl(t, dir, PolicyUniform, 2)
		refreshCrawl(t, dir, PolicyOptimal, 1)
	})
}

// TestRefreshNutch checks the Nutch baseline in the crawler: every page
// revisited carries its adaptive interval in its row, grown (× 1.4) on
// visits that found no change and shrunk (× 0.8) on those that did, within
// Nutch's bounds scaled to simweb's clock.
func TestRefreshNutch(t *testing.T) {
	bubble(t, func(t *testing.T) {
		rows, _ := refreshCrawl(t, t.TempDir(), PolicyNutch, 7)
		longer, shorter := 0, 0
		for _, p := range rows {
			if p.Fetches < 2 {
				continue
			}
			if p.Interval <= 0 {
				t.Fatalf("%s: fetched %d times, no adaptive interval in its row", p.URL, p.Fetches)
			}
			switch {
			case p.Interval > 1.01:
				longer++
			case p.Interval < 0.99:
				shorter++
			}
		}
		t.Logf("%d pages: %d with an interval above the uniform 1 s, %d below", len(rows), longer, shorter)
		if longer == 0 || shorter == 0 {
			t.Errorf("intervals adapted only one way: %d longer, %d shorter", longer, shorter)
		}
	})
}

// TestHostCapacity checks the capacity bookkeeping: a host's load is the
// sum of its pages' planned frequencies, a host over its capacity
// 1/(delay + response time) stretches its intervals by load/capacity, and
// the crawl's excess is the sum of the hosts' loads over capacity, which
// the planner divides on top of the budget.
func TestHostCapacity(t *testing.T) {
	pl, err := schedule.NewPlanner(schedule.PlannerConfig{Rule: schedule.Freshness})
	if err != nil {
		t.Fatal(err)
	}
	c := &Crawler{planner: pl, cfg: Config{Revisit: time.Hour, TimeScale: 1}}
	a := &host{name: "a", delay: 900 * time.Millisecond}
	b := &host{name: "b", delay: 400 * time.Millisecond}
	a.noteService(100 * time.Millisecond) // capacity 1/s
	b.noteService(100 * time.Millisecond) // capacity 2/s
	for range 3 {
		c.noteLoad(a, 0, 0.5) // three pages every 2 s: 1.5/s
		c.noteLoad(b, 0, 0.5) // under capacity
	}
	if math.Abs(a.capacity()-1) > 1e-9 || math.Abs(b.capacity()-2) > 1e-9 {
		t.Fatalf("capacities %g, %g; want 1 and 2", a.capacity(), b.capacity())
	}
	if got := a.scale(); math.Abs(got-1.5) > 1e-9 {
		t.Errorf("host a: scale %g, want 1.5", got)
	}
	if got := b.scale(); got != 1 {
		t.Errorf("host b: scale %g, want 1", got)
	}
	if got := c.excess(); math.Abs(got-0.5) > 1e-9 {
		t.Errorf("excess %g, want 0.5", got)
	}
	if got := c.stretch(a, 2); math.Abs(got.Seconds()-3) > 1e-6 {
		t.Errorf("a 2 s interval on host a is %v, want 3s", got)
	}
	c.noteLoad(a, 0.5, 0) // a page leaves: 1/s, at capacity
	c.noteLoad(b, 0.5, 2) // b goes over: 3/s for 2/s
	if got := c.excess(); math.Abs(got-1) > 1e-9 {
		t.Errorf("excess %g after the moves, want 1", got)
	}
	// The stretch stops at the longest revisit interval.
	c.noteLoad(b, 0, 1000)
	if want := DefaultMaxRevisits * time.Hour; c.stretch(b, 3600) != want {
		t.Errorf("stretch on a host 500× over capacity: %v, want the %v cap", c.stretch(b, 3600), want)
	}
}

// TestCensoringGivesUp checks when a page that changed at every visit is
// planned as changing at every moment (censoring.fast): after three
// changed comparisons one of which was short (at most a sixth of their
// mean), or after giveUpAfter changed ones whatever their lengths, which
// ends the probing of a page whose probes all come late; never after an
// unchanged one.
func TestCensoringGivesUp(t *testing.T) {
	const day = 86400.0
	cases := []struct {
		intervals []float64 // days
		changed   bool      // every one changed (else the last did not)
		fast      bool
	}{
		{[]float64{3, 3}, true, false},
		{[]float64{3, 3, 0.3}, true, true},           // the probe was short
		{[]float64{3, 3, 0.9}, true, false},          // late probe: probe again
		{[]float64{3, 3, 0.9, 0.8}, true, false},     // late again
		{[]float64{3, 3, 0.9, 0.8, 0.7}, true, true}, // giveUpAfter
		{[]float64{3, 3, 0.9, 0.8, 0.7, 0.3}, false, false},
		{[]float64{3, 3, 3, 3, 3, 3, 3}, true, true},
	}
	for _, tc := range cases {
		var st change.Stats
		at := 0.0
		for i, iv := range tc.intervals {
			at += iv * day
			st.Add(change.Observation{Interval: iv * day, Changed: tc.changed || i < len(tc.intervals)-1, SinceModified: -1}, at)
		}
		b, err := st.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		cs := censoringOf(&store.Page{Change: b})
		if got := cs.fast(); got != tc.fast {
			t.Errorf("intervals %v (all changed %v): fast = %v, want %v (censoring %+v)", tc.intervals, tc.changed, got, tc.fast, cs)
		}
	}
}
