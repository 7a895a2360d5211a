package crawler

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/rank"
	"github.com/freshcrawl/freshcrawl/internal/robots"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// idealWorld is what a refinement test measures a collection against: the
// true PageRank of every page of a static simweb (on its whole link graph,
// d = 0.9, dangling pages linking to all) and the mass of the N most
// important pages robots.txt lets a crawler fetch (RFC 9309: a 4xx
// robots.txt allows all, a 5xx one nothing).
type idealWorld struct {
	pr     map[string]float64 // URL → normalised PageRank
	topN   float64            // PageRank mass of the ideal top N
	topSet map[string]bool
}

func newIdealWorld(t testing.TB, web *simweb.Web, n int) *idealWorld {
	t.Helper()
	var b rank.Builder
	b.AddNode(uint32(web.NumPages() - 1))
	web.LinkGraph(func(from, to int) { b.AddEdge(uint32(from), uint32(to)) })
	g, err := b.Build(rank.BuildOptions{Dedupe: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rank.PageRank(g, rank.Options{})
	if err != nil {
		t.Fatal(err)
	}
	norm := res.Normalised()
	files := map[string]*robots.File{}
	allowed := func(u string) bool {
		pu, _ := url.Parse(u)
		f, ok := files[pu.Host]
		if !ok {
			rec := httptest.NewRecorder()
			web.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://"+pu.Host+"/robots.txt", nil))
			switch {
			case rec.Code == http.StatusOK:
				f = robots.Parse(rec.Body.Bytes())
			case rec.Code >= 500 || rec.Code == http.StatusTooManyRequests:
				f = robots.Parse([]byte("User-agent: *\nDisallow: /\n"))
			}
			files[pu.Host] = f
		}
		return f == nil || f.Group("freshcrawl").Allowed(pu.RequestURI())
	}
	w := &idealWorld{pr: map[string]float64{}, topSet: map[string]bool{}}
	type page struct {
		url string
		pr  float64
	}
	var pages []page
	i := 0
	web.Snapshot(web.Clock().Now(), func(u string, _ simweb.Version) {
		w.pr[u] = norm[i]
		if allowed(u) {
			pages = append(pages, page{u, norm[i]})
		}
		i++
	})
	slices.SortFunc(pages, func(a, b page) int {
		switch {
		case a.pr > b.pr:
			return -1
		case a.pr < b.pr:
			return 1
		}
		return 0
	})
	for _, p := range pages[:min(n, len(pages))] {
		w.topN += p.pr
		w.topSet[p.url] = true
	}
	return w
}

// heldMass is the share of the ideal top-N mass the collection holds.
func (w *idealWorld) heldMass(t testing.TB, s *store.Store) (share float64, held int) {
	t.Helper()
	mass := 0.0
	err := s.ForEachPage(func(p store.Page) error {
		if p.Held && p.Kind == store.KindPage {
			mass += w.pr[p.URL]
			held++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return mass / w.topN, held
}

// refineCrawl crawls web with capacity n in the given ordering for limit
// (or, with stop, until the collection holds want of the ideal top-N
// PageRank mass), and returns the share at the end, when it first reached
// want, the pages held and the crawl's totals.
func refineCrawl(t *testing.T, web *simweb.Web, addr endpoint, w *idealWorld, n int, order rank.Ordering, want float64, limit time.Duration, stop bool) (share float64, reached time.Duration, held int, st Stats) {
	t.Helper()
	cfg := testConfig(t, t.TempDir(), addr)
	cfg.Seeds = seedsOf(web)[:1]
	cfg.Delay = -1
	cfg.Workers = 64
	cfg.MaxPages = n
	cfg.Ordering = order
	cfg.RankInterval = 250 * time.Millisecond
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- c.Run(ctx) }()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			running = false
		case <-tick.C:
			if s, _ := w.heldMass(t, c.store); s >= want && reached == 0 {
				reached = time.Since(start)
				if stop {
					cancel()
				}
			}
		}
	}
	share, held = w.heldMass(t, c.store)
	st = c.Stats()
	c.Close()
	return share, reached, held, st
}

// TestRefinement crawls a static simweb from one seed with a capacity of
// a tenth of its pages. PageRank ordering with refinement must hold most
// of the PageRank mass of the ideal top-N set (issue 6 asks 95 % at the
// end of the crawl: the full form, FRESHCRAWL_REFINE=1, crawls 200 × 100
// pages for 60 s, FRESHCRAWL_REFINE_HOSTS and _FOR change that) and more
// of it than breadth-first order, whose collection is simply the first N
// pages found; and the collection never exceeds its capacity.
func TestRefinement(t *testing.T) {
	if os.Getenv("FRESHCRAWL_REFINE") == "1" {
		// The full form measures how soon the collection holds its share
		// in wall time: on loopback TCP, outside a bubble, whose clock
		// stands still while the crawl works.
		refinement(t, true)
		return
	}
	bubble(t, func(t *testing.T) { refinement(t, false) })
}

func refinement(t *testing.T, full bool) {
	hosts, pages, limit, want, stop := 30, 60, 25*time.Second, 0.9, true
	if full {
		hosts, pages, limit, want, stop = 200, 100, time.Minute, 0.95, false
		if v := os.Getenv("FRESHCRAWL_REFINE_HOSTS"); v != "" {
			hosts, _ = strconv.Atoi(v)
		}
		if v := os.Getenv("FRESHCRAWL_REFINE_FOR"); v != "" {
			limit, _ = time.ParseDuration(v)
		}
	}
	sc := simweb.DefaultConfig()
	sc.Hosts, sc.PagesPerHost = hosts, pages
	sc.Churn = 0
	sc.Robots.CrawlDelay = 0
	web, err := simweb.New(sc, simweb.NewWallClock(1))
	if err != nil {
		t.Fatal(err)
	}
	addr := serve(t, web)
	if full {
		addr = serveTCP(t, web)
	}
	n := hosts * pages / 10
	w := newIdealWorld(t, web, n)
	share, reached, held, st := refineCrawl(t, web, addr, w, n, rank.OrderPageRank, want, limit, stop)
	t.Logf("pagerank ordering, capacity %d of %d pages: %.4f of the ideal top-%d mass held (%d pages, %d evicted), %v to reach %.2f, %d requests",
		n, hosts*pages, share, n, held, st.Evicted, reached.Round(time.Millisecond), want, st.Requests)
	if share < want {
		t.Errorf("PageRank ordering holds %.4f of the ideal mass, want at least %.2f", share, want)
	}
	if held > n {
		t.Errorf("%d pages held, capacity %d", held, n)
	}
	if st.Evicted == 0 {
		t.Error("no page left the collection: nothing was refined")
	}
	bfs, _, _, _ := refineCrawl(t, web, addr, w, n, rank.OrderBreadthFirst, 2, 5*time.Second, false)
	t.Logf("breadth-first ordering: %.4f of the ideal mass", bfs)
	if bfs >= share {
		t.Errorf("breadth-first %.4f holds as much as PageRank ordering %.4f", bfs, share)
	}
}

// TestImportanceWeights: under PageRank ordering each page fetched takes
// its importance over the average held page's as its refresh weight
// (Page.Weight, §5.6): after a few rounds of revisits the held pages carry
// weights of mean about 1 (over pages weighed at their last fetch) that
// differ from page to page, and the planner never gives a heavier page of
// the same change rate a longer interval, and over some rates a shorter.
func TestImportanceWeights(t *testing.T) {
	bubble(t, func(t *testing.T) {
		sc := simweb.DefaultConfig()
		sc.Hosts, sc.PagesPerHost = 6, 40
		sc.Churn = 0
		web, addr := testWeb(t, sc, 3600)
		cfg := testConfig(t, t.TempDir(), addr)
		cfg.Seeds = seedsOf(web)
		cfg.Delay = -1
		cfg.Ordering = rank.OrderPageRank
		cfg.RankInterval = 200 * time.Millisecond
		cfg.Revisit = time.Second
		cfg.TimeScale = 3600
		c := crawlUntil(t, cfg, 1500, 20*time.Second)
		defer c.Close()
		var ws []float64
		err := c.store.ForEachPage(func(p store.Page) error {
			if p.Held && p.Kind == store.KindPage && p.Weight > 0 {
				ws = append(ws, p.Weight)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(ws) < 100 {
			t.Fatalf("only %d held pages weighed", len(ws))
		}
		mean := 0.0
		for _, w := range ws {
			mean += w
		}
		mean /= float64(len(ws))
		t.Logf("%d held pages weighed, mean weight %.3f, from %.3f to %.2f", len(ws), mean, slices.Min(ws), slices.Max(ws))
		if mean < 0.5 || mean > 2 || slices.Max(ws) < 2*slices.Min(ws) {
			t.Errorf("weights of mean %.3f from %.3f to %.3f: want a mean about 1 and a spread", mean, slices.Min(ws), slices.Max(ws))
		}
		pl := c.refresh.Planner()
		if pl == nil {
			t.Fatal("no refresh plan")
		}
		shorter := 0
		for e := -8.0; e <= 2; e += 0.5 {
			rate := math.Pow(10, e)
			heavy, light := pl.Interval(rate, 4), pl.Interval(rate, 0.25)
			if heavy > light {
				t.Errorf("rate %.3g: a page of weight 4 every %.4g s, of weight 1/4 every %.4g s", rate, heavy, light)
			}
			if heavy < light {
				shorter++
			}
		}
		if shorter == 0 {
			t.Error("at no rate does the heavier page come more often")
		}
	})
}

// TestTopicOrdering crawls the same simweb in breadth-first and in topic
// order for "computer", at 300 fetches a second, and counts the hot pages
// (the word in the title or 10 or more times) among the first 600 pages
// fetched: the similarity crawler (dissertation §2.5.4) finds more of
// them.
func TestTopicOrdering(t *testing.T) {
	bubble(t, func(t *testing.T) {
		sc := simweb.DefaultConfig()
		sc.Hosts, sc.PagesPerHost = 20, 100
		sc.Churn = 0
		sc.Robots.CrawlDelay = 0
		web, addr := testWeb(t, sc, 1)
		hotFound := func(order rank.Ordering) (int, int) {
			cfg := testConfig(t, t.TempDir(), addr)
			cfg.Seeds = seedsOf(web)[:1]
			cfg.Delay = -1
			cfg.Workers = 8
			cfg.Budget = 300
			cfg.Ordering = order
			cfg.Topic = "computer"
			cfg.RankInterval = 100 * time.Millisecond
			var hot, pages atomic.Int64
			cfg.OnFetch = func(e Event) {
				if e.Sitemap || e.Body == nil || pages.Load() >= 600 {
					return
				}
				pages.Add(1)
				if rank.TopicHot(e.Body, "computer") {
					hot.Add(1)
				}
			}
			c, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			go func() {
				for ctx.Err() == nil && pages.Load() < 600 {
					time.Sleep(20 * time.Millisecond)
				}
				cancel()
			}()
			if err := c.Run(ctx); err != nil {
				t.Fatal(err)
			}
			return int(hot.Load()), int(pages.Load())
		}
		bh, bn := hotFound(rank.OrderBreadthFirst)
		th, tn := hotFound(rank.OrderTopic)
		t.Logf("hot pages among the first pages fetched: breadth-first %d of %d, topic %d of %d", bh, bn, th, tn)
		if tn < 500 || th <= bh*3/2 {
			t.Errorf("topic ordering found %d hot pages in %d, breadth-first %d in %d: want half as many again", th, tn, bh, bn)
		}
	})
}
