package reproduce

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/freshcrawl/freshcrawl/internal/extract"
	"github.com/freshcrawl/freshcrawl/internal/rank"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

// Ch2Config sets up dissertation ch. 2's experiment: crawls in each
// ordering over a closed world whose true importance is known.
type Ch2Config struct {
	// Web is the simweb whose link graph is the closed world.
	Web simweb.Config
	// Every is the PageRank ordering's recompute cadence, in visits.
	Every int
	// Seed drives the random ordering.
	Seed uint64
}

// StanfordLike returns a simweb of 179,000 pages on 200 hosts calibrated to
// the hot-set sizes of dissertation §2.5.2 (spec claim 5): 47 % of pages
// with at least 3 backlinks, 10 % with at least 10, 0.8 % with at least
// 100, and 1 % with IR ≥ 13. Its attractiveness shape (0.85) and mean
// out-degree (9) were chosen by a grid search over both; with them the
// graph gives 48 %, 11 %, 1.0 % and 0.9 %.
func StanfordLike() simweb.Config {
	c := simweb.DefaultConfig()
	c.Hosts, c.PagesPerHost = 200, 895
	c.WeightAlpha = 0.85
	c.Links = 9
	return c
}

// Ch2Result is the closed world and the visit order of each ordering.
type Ch2Result struct {
	Pages, Links int
	Unreachable  int       // pages of the web not reachable from the start
	Backlinks    []float64 // IB of each page of the closed world
	PageRank     []float64 // IR (unnormalised, d = 0.9)
	Orders       map[rank.Ordering][]uint32
}

// Ch2 builds the web of cfg, keeps the pages reachable from the home page
// of its first site (the closed world of §2.4: the Stanford homepage, the
// 46,000 unreachable pages left out), computes IB and IR over it, and
// crawls it from that page in every ordering.
func Ch2(cfg Ch2Config) (*Ch2Result, error) {
	web, err := simweb.New(cfg.Web, nil)
	if err != nil {
		return nil, err
	}
	// The graphs a crawl reads are reversed: In(u) lists u's out-links.
	var all rank.Builder
	all.AddNode(uint32(web.NumPages() - 1))
	web.LinkGraph(func(from, to int) { all.AddEdge(uint32(to), uint32(from)) })
	fwdAll, err := all.Build(rank.BuildOptions{Dedupe: true})
	if err != nil {
		return nil, err
	}
	start := uint32(web.SiteHome(0))
	// Reachable pages, numbered in breadth-first order from the start.
	id := make([]int32, fwdAll.Nodes())
	for i := range id {
		id[i] = -1
	}
	id[start] = 0
	queue := []uint32{start}
	for i := 0; i < len(queue); i++ {
		for _, v := range fwdAll.In(queue[i]) {
			if id[v] < 0 {
				id[v] = int32(len(queue))
				queue = append(queue, v)
			}
		}
	}
	var world, back rank.Builder
	world.AddNode(uint32(len(queue) - 1))
	back.AddNode(uint32(len(queue) - 1))
	for _, u := range queue {
		for _, v := range fwdAll.In(u) {
			world.AddEdge(uint32(id[u]), uint32(id[v]))
			back.AddEdge(uint32(id[v]), uint32(id[u]))
		}
	}
	g, err := world.Build(rank.BuildOptions{})
	if err != nil {
		return nil, err
	}
	fwd, err := back.Build(rank.BuildOptions{})
	if err != nil {
		return nil, err
	}
	res := &Ch2Result{Pages: g.Nodes(), Links: int(g.Edges()), Unreachable: fwdAll.Nodes() - g.Nodes(),
		Orders: map[rank.Ordering][]uint32{}}
	res.Backlinks = make([]float64, g.Nodes())
	for v, x := range g.Backlinks() {
		res.Backlinks[v] = float64(x)
	}
	pr, err := rank.PageRank(g, rank.Options{Damping: rank.DefaultDamping})
	if err != nil {
		return nil, err
	}
	res.PageRank = pr.Rank
	orderings := []rank.Ordering{rank.OrderBreadthFirst, rank.OrderBacklink, rank.OrderPageRank, rank.OrderRandom}
	orders := make([][]uint32, len(orderings))
	errs := make([]error, len(orderings))
	var wg sync.WaitGroup
	for i, o := range orderings {
		wg.Go(func() { orders[i], errs[i] = Crawl(fwd, 0, o, CrawlOptions{Every: cfg.Every, Seed: cfg.Seed}) })
	}
	wg.Wait()
	for i, o := range orderings {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if len(orders[i]) != g.Nodes() {
			return nil, fmt.Errorf("%v crawl visited %d of %d reachable pages", o, len(orders[i]), g.Nodes())
		}
		res.Orders[o] = orders[i]
	}
	return res, nil
}

// HotShare returns the share of the closed world's pages with importance
// at least g.
func HotShare(importance []float64, g float64) float64 {
	n := 0
	for _, x := range importance {
		if x >= g {
			n++
		}
	}
	return float64(n) / float64(len(importance))
}

// At returns a curve's value after a fraction f of the pages is visited.
func At(curve []float64, f float64) float64 {
	k := int(math.Ceil(f*float64(len(curve)))) - 1
	return curve[max(0, min(k, len(curve)-1))]
}

// Mean returns a curve's average over the crawl: the area under it
// against the fraction crawled.
func Mean(curve []float64) float64 {
	s := 0.0
	for _, x := range curve {
		s += x
	}
	return s / float64(len(curve))
}

// Ch2TopicResult is the similarity crawl of dissertation §2.5.4: which
// pages of the closed world are hot for the topic word, and the visit
// order of each ordering under the basic two-queue crawler (Algorithm
// 2.5.2) and with the distance rule (Algorithm 2.5.3).
type Ch2TopicResult struct {
	Word          string
	Pages, Hot    int
	Hotness       []float64 // 1 for a hot page, else 0: I(p) = IS(p), binary
	Basic, Nearby map[rank.Ordering][]uint32
}

// Ch2Topic renders every page reachable from the first site's home page
// of the web of cfg at time zero, as a virtual crawler reads a repository:
// a page is hot by rank.TopicHot, and a link names the topic if the word is
// in its anchor text or its URL. Then it crawls that world from the home
// page in breadth-first, backlink and PageRank order, with two queues,
// without and with the distance rule.
func Ch2Topic(cfg Ch2Config, word string) (*Ch2TopicResult, error) {
	web, err := simweb.New(cfg.Web, &simweb.ManualClock{})
	if err != nil {
		return nil, err
	}
	slotOf := map[string]int{}
	var urls []string
	web.Snapshot(0, func(u string, _ simweb.Version) {
		slotOf[u] = len(urls)
		urls = append(urls, u)
	})
	start := web.SiteHome(0)
	id := map[int]int{start: 0}
	queue := []int{start}
	var hot []bool
	var outs [][]int
	var named [][]bool
	for i := 0; i < len(queue); i++ {
		u := urls[queue[i]]
		rec := httptest.NewRecorder()
		web.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, u, nil))
		body := rec.Body.Bytes()
		hot = append(hot, rank.TopicHot(body, word))
		var out []int
		var nm []bool
		if rec.Code == http.StatusOK {
			res, err := extract.Links(bytes.NewReader(body), u, rec.Header().Get("Content-Type"), extract.Options{})
			if err != nil {
				return nil, fmt.Errorf("topic world: %w", err)
			}
			seen := map[int]int{}
			for _, l := range res.Links {
				slot, ok := slotOf[l.URL]
				if !ok {
					continue
				}
				v, ok := id[slot]
				if !ok {
					v = len(queue)
					id[slot] = v
					queue = append(queue, slot)
				}
				isNamed := strings.Contains(l.Anchor, word) || strings.Contains(l.URL, word)
				if k, dup := seen[v]; dup {
					nm[k] = nm[k] || isNamed
					continue
				}
				seen[v] = len(out)
				out = append(out, v)
				nm = append(nm, isNamed)
			}
		}
		outs = append(outs, out)
		named = append(named, nm)
	}
	var b rank.Builder // reversed, as the crawl reads it
	b.AddNode(uint32(len(queue) - 1))
	for u, out := range outs {
		for _, v := range out {
			b.AddEdge(uint32(v), uint32(u))
		}
	}
	fwd, err := b.Build(rank.BuildOptions{})
	if err != nil {
		return nil, err
	}
	res := &Ch2TopicResult{Word: word, Pages: len(queue), Hotness: make([]float64, len(queue)),
		Basic: map[rank.Ordering][]uint32{}, Nearby: map[rank.Ordering][]uint32{}}
	for v, h := range hot {
		if h {
			res.Hot++
			res.Hotness[v] = 1
		}
	}
	orderings := []rank.Ordering{rank.OrderBreadthFirst, rank.OrderBacklink, rank.OrderPageRank}
	type job struct {
		o      rank.Ordering
		nearby bool
	}
	var jobs []job
	for _, o := range orderings {
		jobs = append(jobs, job{o, false}, job{o, true})
	}
	orders := make([][]uint32, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Go(func() {
			orders[i], errs[i] = TopicCrawl(fwd, 0, j.o, CrawlOptions{Every: cfg.Every, Seed: cfg.Seed},
				&Topic{Hot: hot, Named: named, Distance: j.nearby})
		})
	}
	wg.Wait()
	for i, j := range jobs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if j.nearby {
			res.Nearby[j.o] = orders[i]
		} else {
			res.Basic[j.o] = orders[i]
		}
	}
	return res, nil
}
