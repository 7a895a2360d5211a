package reproduce

import (
	"math"
	"slices"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/rank"
)

// forward builds the reversed graph Crawl reads.
func forward(t testing.TB, n int, edges [][2]uint32) *rank.Graph {
	t.Helper()
	var b rank.Builder
	b.AddNode(uint32(n - 1))
	for _, e := range edges {
		b.AddEdge(e[1], e[0])
	}
	g, err := b.Build(rank.BuildOptions{Dedupe: true})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// The graph of these tests: 0 → 1, 2, 3; 1 → 4; 2 → 4, 5; 3 → 4, 5, 6;
// 5 → 6; 6 → 0; page 7 is unreachable.
var smallWeb = [][2]uint32{{0, 1}, {0, 2}, {0, 3}, {1, 4}, {2, 4}, {2, 5}, {3, 4}, {3, 5}, {3, 6}, {5, 6}, {6, 0}}

func crawlAll(t *testing.T, g *rank.Graph, o rank.Ordering, opts CrawlOptions) []uint32 {
	t.Helper()
	order, err := Crawl(g, 0, o, opts)
	if err != nil {
		t.Fatal(err)
	}
	return order
}

func TestCrawlOrders(t *testing.T) {
	g := forward(t, 8, smallWeb)
	// Breadth-first: in the order links were found.
	if got, want := crawlAll(t, g, rank.OrderBreadthFirst, CrawlOptions{}), []uint32{0, 1, 2, 3, 4, 5, 6}; !slices.Equal(got, want) {
		t.Errorf("breadth-first %v, want %v", got, want)
	}
	// Backlink: after 0, pages 1–3 have IB' 1 (1 first found); after 1,
	// 4 has 1 and is behind 2 and 3; after 2, 4 has 2: next; then 3,
	// then 5 (IB' 2) before 6 (IB' 1).
	if got, want := crawlAll(t, g, rank.OrderBacklink, CrawlOptions{}), []uint32{0, 1, 2, 4, 3, 5, 6}; !slices.Equal(got, want) {
		t.Errorf("backlink %v, want %v", got, want)
	}
	// Every ordering visits the pages reachable from the seed once each.
	for _, o := range []rank.Ordering{rank.OrderBreadthFirst, rank.OrderBacklink, rank.OrderPageRank, rank.OrderRandom} {
		for _, every := range []int{1, 3} {
			got := crawlAll(t, g, o, CrawlOptions{Every: every, Seed: 9})
			sorted := slices.Sorted(slices.Values(got))
			if !slices.Equal(sorted, []uint32{0, 1, 2, 3, 4, 5, 6}) || got[0] != 0 {
				t.Errorf("%v every %d: visited %v", o, every, got)
			}
		}
	}
	if got := crawlAll(t, g, rank.OrderPageRank, CrawlOptions{Limit: 3}); len(got) != 3 {
		t.Errorf("limit 3: %d visits", len(got))
	}
	if _, err := Crawl(g, 8, rank.OrderBreadthFirst, CrawlOptions{}); err == nil {
		t.Error("a seed outside the graph accepted")
	}
	if _, err := Crawl(g, 0, rank.OrderTopic, CrawlOptions{}); err == nil {
		t.Error("topic ordering accepted by the one-queue crawl")
	}
}

// TestPageRankOrderEveryVisit: with IR' recomputed after every visit, the
// next page is the frontier page of highest PageRank over the links seen,
// which this test recomputes from scratch at every step.
func TestPageRankOrderEveryVisit(t *testing.T) {
	b, err := rank.Synthetic(rank.DefaultSynthetic(400, 3000, 3))
	if err != nil {
		t.Fatal(err)
	}
	g, _ := reversed(b).Build(rank.BuildOptions{})
	order := crawlAll(t, g, rank.OrderPageRank, CrawlOptions{Every: 1})
	visited := map[uint32]bool{}
	for k := 1; k < min(len(order), 60); k++ {
		var known rank.Builder
		known.AddNode(399)
		found := map[uint32]int{order[0]: 0}
		for i, p := range order[:k] {
			visited[p] = true
			for _, v := range g.In(p) {
				known.AddEdge(p, v)
				if _, ok := found[v]; !ok {
					found[v] = i*1000 + len(found)
				}
			}
		}
		kg, _ := known.Build(rank.BuildOptions{})
		res, _ := rank.PageRank(kg, rank.Options{Dangling: rank.DanglingSink, Tolerance: 1e-12})
		best := -1.0
		for v := range found {
			if !visited[v] {
				best = math.Max(best, res.Rank[v])
			}
		}
		if got := res.Rank[order[k]]; got < best-1e-4 {
			t.Fatalf("visit %d: page %d has IR' %.6f, the best frontier page %.6f", k, order[k], got, best)
		}
	}
}

// TestHotAndTopFound checks the evaluation models on exact cases: the
// ideal crawler (pages in importance order) finds min(1, K/H) of the H
// hot pages in K visits and has P_CS = 1 throughout; the reverse order
// finds none until the cold pages are done.
func TestHotAndTopFound(t *testing.T) {
	imp := []float64{5, 1, 9, 3, 3, 7, 0, 2}
	ideal := []uint32{2, 5, 0, 3, 4, 7, 1, 6}
	st := HotFound(ideal, imp, 3) // hot: 9, 7, 5, 3, 3 → H = 5
	for k, x := range st {
		if want := math.Min(1, float64(k+1)/5); math.Abs(x-want) > 1e-12 {
			t.Errorf("ideal P_ST after %d visits %v, want %v", k+1, x, want)
		}
	}
	for k, x := range TopFound(ideal, imp) {
		if x != 1 {
			t.Errorf("ideal P_CS after %d visits %v, want 1", k+1, x)
		}
	}
	worst := slices.Clone(ideal)
	slices.Reverse(worst)
	cs := TopFound(worst, imp)
	// After 4 visits of 6, 1, 7, 4 (importance 0, 1, 2, 3): the top 4 are
	// 9, 7, 5 and one of the 3s, so page 4 counts: 1 of 4.
	if cs[3] != 0.25 || cs[0] != 0 || cs[7] != 1 {
		t.Errorf("reverse order P_CS %v", cs)
	}
	if HotFound(ideal, imp, 100) != nil {
		t.Error("no hot page, but a curve")
	}
}

// TestOrderingShape: on a web-like graph, with the top 1 % of pages by
// backlinks hot (about ch. 2's G = 100, 0.8 % of pages), ordering by
// backlinks or by PageRank has found far more of the hot pages after 20 %
// of the crawl than the 20 % a random crawler over all pages would (spec
// claim 6: about 0.5, 2.5 times random), and PageRank ordering is ahead of
// backlink ordering although the target is backlinks (claim 9).
func TestOrderingShape(t *testing.T) {
	b, err := rank.Synthetic(rank.DefaultSynthetic(20000, 200000, 11))
	if err != nil {
		t.Fatal(err)
	}
	full, _ := b.Build(rank.BuildOptions{})
	g, _ := reversed(b).Build(rank.BuildOptions{})
	ib := full.Backlinks()
	imp := make([]float64, len(ib))
	for i, x := range ib {
		imp[i] = float64(x)
	}
	sorted := slices.Sorted(slices.Values(imp))
	gHot := sorted[len(sorted)*99/100]
	at := func(o rank.Ordering) float64 {
		order, err := Crawl(g, 0, o, CrawlOptions{Every: 200, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		return HotFound(order, imp, gHot)[len(order)/5]
	}
	random, bfs, back, pr := at(rank.OrderRandom), at(rank.OrderBreadthFirst), at(rank.OrderBacklink), at(rank.OrderPageRank)
	t.Logf("P_ST at 20%% crawled, top 1%% by backlinks: random %.3f, breadth-first %.3f, backlink %.3f, pagerank %.3f", random, bfs, back, pr)
	if back < 2*0.2 || pr < 2*0.2 {
		t.Errorf("backlink %.3f and pagerank %.3f orderings should find twice the 0.2 of a random crawler", back, pr)
	}
	if pr < back {
		t.Errorf("pagerank ordering %.3f behind backlink ordering %.3f", pr, back)
	}
}

// TestTopicCrawl checks the two queues of Algorithm 2.5.2 and the
// distance rule of 2.5.3 on a small graph: 0 links to 1, 2 and 3, only
// the link to 3 naming the topic; 3 is hot and links to 4, which links to
// 5, which links to 6; 1 links to 7.
func TestTopicCrawl(t *testing.T) {
	edges := [][2]uint32{{0, 1}, {0, 2}, {0, 3}, {1, 7}, {3, 4}, {4, 5}, {5, 6}}
	g := forward(t, 8, edges)
	hot := make([]bool, 8)
	hot[3] = true
	named := make([][]bool, 8)
	for u := range named {
		named[u] = make([]bool, len(g.In(uint32(u))))
	}
	for i, v := range g.In(0) {
		named[0][i] = v == 3
	}
	crawl := func(distance bool) []uint32 {
		order, err := TopicCrawl(g, 0, rank.OrderBreadthFirst, CrawlOptions{}, &Topic{Hot: hot, Named: named, Distance: distance})
		if err != nil {
			t.Fatal(err)
		}
		return order
	}
	// Basic: 3 jumps the URL queue; 4 found from it waits behind 1 and 2.
	if got, want := crawl(false), []uint32{0, 3, 1, 2, 4, 7, 5, 6}; !slices.Equal(got, want) {
		t.Errorf("two queues: %v, want %v", got, want)
	}
	// Distance: 4 (distance 1) and 5 (distance 2) go to the hot queue; 6
	// (distance 3) does not.
	if got, want := crawl(true), []uint32{0, 3, 4, 5, 1, 2, 6, 7}; !slices.Equal(got, want) {
		t.Errorf("with the distance rule: %v, want %v", got, want)
	}
	if _, err := TopicCrawl(g, 0, rank.OrderBreadthFirst, CrawlOptions{}, &Topic{Hot: hot[:3]}); err == nil {
		t.Error("a topic of the wrong size accepted")
	}
}

// reversed returns a builder of b's links reversed, whose graph lists
// each node's out-links as its in-links: the graph Crawl reads.
func reversed(b *rank.Builder) *rank.Builder {
	r := &rank.Builder{}
	r.AddNode(uint32(b.Nodes() - 1))
	for i := range b.Edges() {
		u, v := b.Edge(i)
		r.AddEdge(v, u)
	}
	return r
}
