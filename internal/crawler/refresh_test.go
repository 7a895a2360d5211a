package crawler

import (
	"context"
	"math"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/refresh"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// refreshCrawl crawls a small simweb (6 hours a second, no churn, no
// robots.txt exclusions) with the given policy for rounds × 240 page
// fetches (each page fetched about rounds times) or 30 s, and returns the
// held page rows and the load of the final plan (Σ 1/interval).
func refreshCrawl(t *testing.T, dir string, policy refresh.Name, rounds int) (map[string]store.Page, float64) {
	t.Helper()
	_, cfg := simCrawl(t, dir, 6, 40)
	cfg.Revisit = time.Second
	cfg.Policy = policy
	c := crawlUntil(t, cfg, int64(rounds*240), 30*time.Second)
	// The load of the plan at the end, re-solved (between re-solves, up to
	// N/64 or as many moves as there are bins, the plan drifts from the
	// budget; with 240 pages that is up to 100 moves): Σ 1/interval, plus
	// the pulls planned for signalled pages and the trusted sitemaps'
	// reads, which the plan's budget leaves out.
	pl := c.refresh.Planner()
	if pl != nil {
		pl.SetBudget(0) // the next interval re-solves
	}
	load := c.refresh.SignalReads()
	if err := c.store.ForEachPage(func(p store.Page) error {
		if p.Held && p.Kind == store.KindPage {
			load += 1 / c.refresh.Policy().Interval(nil, &p).Seconds()
			if pl != nil && p.Signalled {
				load += pl.SignalRate(p.Rate, p.Weight)
			}
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
		if p.Held && p.Kind == store.KindPage {
			rows[p.URL] = p
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	crashCheckPlan(t, s, rows, policy == refresh.Optimal)
	return rows, load
}

// simSpeed is the pace of simCrawl's simweb: 6 hours a second.
const simSpeed = 6 * 3600

// simCrawl serves a simweb of hosts × pages (simSpeed, no churn, no
// robots.txt exclusions) and returns it with the configuration of a crawl
// of it into dir, seeded with every host, at a 5 ms delay.
func simCrawl(t *testing.T, dir string, hosts, pages int) (*simweb.Web, Config) {
	t.Helper()
	sc := simweb.DefaultConfig()
	sc.Hosts, sc.PagesPerHost, sc.Churn = hosts, pages, 0
	sc.Robots = simweb.RobotsMix{}
	web, addr := testWeb(t, sc, simSpeed)
	cfg := testConfig(t, dir, addr)
	cfg.Seeds = seedsOf(web)
	cfg.Delay = 5 * time.Millisecond
	cfg.TimeScale = simSpeed
	return web, cfg
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
	c := newCrawler(t, cfg)
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
		rows, load := refreshCrawl(t, dir, refresh.Optimal, 7)
		if len(rows) < 200 {
			t.Fatalf("%d pages held, want most of 240", len(rows))
		}
		intervals := map[time.Duration]int{}
		for _, p := range rows {
			if refresh.Pulled(&p) {
				continue // a signal brought it forward: due at its last check
			}
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
		refreshCrawl(t, dir, refresh.Uniform, 2)
		refreshCrawl(t, dir, refresh.Optimal, 1)
	})
}

// TestRefreshNutch checks the Nutch baseline in the crawler against
// Nutch's AdaptiveFetchSchedule as nutch-default.xml configures it (spec
// anchors-crawlers §1.1), replayed over each page's recorded visits: the
// interval starts at the uniform one (1 s here); after each visit that
// compared the content it is multiplied by 1.4 if the page had not
// changed and by 0.8 if it had, raised to the time since the page last
// changed (sync delta: the last visit that saw a change, or the trusted
// Last-Modified), and kept within [60 s, 365 days] moved to simweb's clock
// (÷ 21,600).
func TestRefreshNutch(t *testing.T) {
	bubble(t, func(t *testing.T) {
		dir := t.TempDir()
		rows, _ := refreshCrawl(t, dir, refresh.Nutch, 7)
		s, err := store.Open(dir+"/state", store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		lo, hi := 60.0/simSpeed, 365*86400.0/simSpeed
		grown, shrunk, synced := 0, 0, 0
		for _, p := range rows {
			visits, err := s.Visits(p.URL)
			if err != nil {
				t.Fatal(err)
			}
			iv, modified := 1.0, time.Time{}
			for _, v := range visits {
				if v.Status != 200 && v.Status != 304 {
					continue
				}
				if v.Changed {
					modified = v.Time
				}
				if !v.Modified.IsZero() {
					modified = v.Modified
				}
				if v.Changed {
					iv *= 0.8
					shrunk++
				} else {
					iv *= 1.4
					grown++
				}
				if !v.Changed && !modified.IsZero() {
					if since := v.Time.Sub(modified).Seconds(); since > iv {
						iv = since
						synced++
					}
				}
				iv = min(max(iv, lo), hi)
			}
			// The crawler reckons in float64 seconds since 1970, exact to
			// about 0.2 µs; the replay in Durations, to the nanosecond.
			if math.Abs(p.Interval-iv) > 1e-6 {
				t.Errorf("%s: interval %.6g s after %d visits, Nutch's rule gives %.6g s", p.URL, p.Interval, len(visits), iv)
			}
		}
		t.Logf("%d pages: %d visits grew an interval, %d shrank one, %d raised one to the time since a change", len(rows), grown, shrunk, synced)
		if grown == 0 || shrunk == 0 || synced == 0 {
			t.Error("the crawl did not exercise every part of the rule")
		}
	})
}

// TestRefreshRoundRobin checks the naive round robin in the crawler: each
// page held is due again at its last fetch, every revisit of a host goes
// to its page fetched longest ago (a cycle), and the budget is spent:
// 240 pages on 6 hosts at 60 fetches a second, each host able to take 200.
func TestRefreshRoundRobin(t *testing.T) {
	bubble(t, func(t *testing.T) {
		const budget = 60.0
		dir := t.TempDir()
		_, cfg := simCrawl(t, dir, 6, 40)
		cfg.Policy = refresh.RoundRobin
		cfg.Budget = budget
		// last[host][url]: the page's last fetch; a revisit must be of the
		// host's page fetched longest ago.
		last := map[string]map[string]time.Time{}
		var events, revisits, outOfTurn int
		var first, end time.Time
		cfg.OnFetch = func(e Event) {
			events++
			if first.IsZero() {
				first = e.Time
			}
			end = e.Time
			u, err := url.Parse(e.URL)
			if err != nil || e.Sitemap {
				return
			}
			h := last[u.Host]
			if h == nil {
				h = map[string]time.Time{}
				last[u.Host] = h
			}
			if prev, ok := h[e.URL]; ok {
				revisits++
				for other, at := range h {
					if at.Before(prev) {
						outOfTurn++
						t.Logf("%s revisited (last fetched %v) before %s (last fetched %v)", e.URL, prev, other, at)
						break
					}
				}
			}
			delete(h, e.URL)
			if e.Held {
				h[e.URL] = e.Time
			}
		}
		c := newCrawler(t, cfg)
		runFor(t, c, 20*time.Second)
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		rate := float64(events-1) / end.Sub(first).Seconds()
		t.Logf("%d fetches, %d revisits, %.1f/s against a budget of %.0f/s", events, revisits, rate, budget)
		if revisits < 600 || outOfTurn > 0 {
			t.Errorf("%d revisits, %d out of turn; want most of the 1,200 fetches revisits, in turn", revisits, outOfTurn)
		}
		if rate < 0.95*budget || rate > 1.05*budget {
			t.Errorf("%.1f fetches/s, want the budget of %.0f", rate, budget)
		}
		s, err := store.Open(dir+"/state", store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.ForEachPage(func(p store.Page) error {
			if p.Held && p.Kind == store.KindPage && !p.NextDue.Equal(p.LastFetch) {
				t.Errorf("%s: due %v after its last fetch, want at once", p.URL, p.NextDue.Sub(p.LastFetch))
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	})
}
