package reproduce

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"

	"github.com/freshcrawl/freshcrawl/internal/rank"
	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// CrawlOptions steer a simulated crawl.
type CrawlOptions struct {
	// Every is how many visits pass between two PageRank computations
	// of the pagerank ordering (the dissertation recomputes after every
	// page; the spec asks for 1, 100 and 1,000 to be compared). Zero
	// means 1.
	Every int
	// Damping of IR'; zero means DefaultDamping.
	Damping float64
	// Seed drives the random ordering and nothing else.
	Seed uint64
	// Limit stops the crawl after that many visits; zero means until the
	// frontier is empty.
	Limit int
}

// Crawl simulates a crawler on a graph it discovers as it goes: it starts
// at seed, learns a page's out-links when it visits it, and picks the next
// page among the discovered ones by the ordering. It returns the pages in
// the order visited: every page reachable from seed, unless opts.Limit
// stops it first. IB' counts links from visited pages; IR' is PageRank over
// the links of visited pages, undiscovered pages left out and frontier
// pages sinks (DanglingSink), recomputed every opts.Every visits, ties
// broken by discovery order.
func Crawl(fwd *rank.Graph, seed uint32, o rank.Ordering, opts CrawlOptions) ([]uint32, error) {
	return TopicCrawl(fwd, seed, o, opts, nil)
}

// Topic is what the similarity crawlers of dissertation §2.5.4 know of a
// topic (Algorithms 2.5.2 and 2.5.3): which pages are hot (by TopicHot)
// once visited, and which links name it (in the anchor text or the
// target's URL).
type Topic struct {
	Hot []bool
	// Named[u][i] says whether page u's i-th out-link (in the order of
	// fwd.In(u)) has the topic word in its anchor text or URL.
	Named [][]bool
	// Distance adds Algorithm 2.5.3's rule: a URL within distance 2 of a
	// hot page visited (distance_from_hotpage < 3) goes to the hot queue
	// too. A URL already queued is moved there when it qualifies later
	// (the pseudo-code's intent, spec 3.5's switch, on).
	Distance bool
}

// TopicCrawl is Crawl with two queues, as Algorithm 2.5.2 has them: URLs
// that name the topic, or (with topic.Distance) lie near a hot page, go to
// the hot queue, the others to the URL queue, and the next page always
// comes from the hot queue while it has any, each queue ordered by o. A nil
// topic is Crawl's single queue.
func TopicCrawl(fwd *rank.Graph, seed uint32, o rank.Ordering, opts CrawlOptions, topic *Topic) ([]uint32, error) {
	// fwd.In(u) must be u's out-links: the caller passes the reversed graph
	// (a Builder given each link v → u as u → v).
	n := fwd.Nodes()
	if int(seed) >= n {
		return nil, fmt.Errorf("seed %d not in a graph of %d nodes", seed, n)
	}
	switch o {
	case rank.OrderBreadthFirst, rank.OrderBacklink, rank.OrderPageRank, rank.OrderRandom:
	default:
		return nil, fmt.Errorf("a virtual crawl cannot run ordering %q", o)
	}
	if topic != nil && (len(topic.Hot) != n || len(topic.Named) != n) {
		return nil, fmt.Errorf("topic of %d and %d pages for a graph of %d", len(topic.Hot), len(topic.Named), n)
	}
	every := max(opts.Every, 1)
	limit := opts.Limit
	if limit <= 0 {
		limit = n
	}
	const unseen = -1
	found := make([]int32, n) // discovery order, or unseen
	for i := range found {
		found[i] = unseen
	}
	visited := make([]bool, n)
	inHot := make([]bool, n)
	order := make([]uint32, 0, min(limit, n))
	nFound := int32(0)
	var dist []int8 // distance from a hot page visited, capped at 3
	if topic != nil && topic.Distance {
		dist = make([]int8, n)
		for i := range dist {
			dist[i] = 3
		}
	}
	var ib []int32
	if o == rank.OrderBacklink {
		ib = make([]int32, n)
	}
	var known rank.Builder      // pagerank: the links of visited pages
	var ir []float64            // pagerank: IR' at the last computation
	queues := [2]*queue{{}, {}} // hot, url
	score := func(v uint32) float64 {
		switch o {
		case rank.OrderBacklink:
			return float64(ib[v])
		case rank.OrderPageRank:
			if int(v) < len(ir) {
				return ir[v]
			}
		}
		return 0
	}
	// live says whether an entry of queue q for v is current.
	live := func(v uint32, q int) bool { return !visited[v] && inHot[v] == (q == 0) }
	push := func(v uint32) {
		q := 1
		if inHot[v] {
			q = 0
		}
		queues[q].push(o, scored{v: v, score: score(v), tie: found[v]})
	}
	discover := func(v uint32, hot bool) {
		if found[v] == unseen {
			found[v] = nFound
			nFound++
			inHot[v] = hot
			push(v)
			return
		}
		if hot && !inHot[v] && !visited[v] {
			inHot[v] = true // promoted: the URL-queue entry goes stale
			push(v)
		}
	}
	rerank := func() error {
		known.AddNode(uint32(n - 1))
		g, err := known.Build(rank.BuildOptions{})
		if err != nil {
			return err
		}
		// Warm-started from the last IR', a few iterations follow the
		// links added since: the ordering needs the ranks' order, not
		// their tenth digit, and the next computation carries on.
		res, err := rank.PageRank(g, rank.Options{Damping: opts.Damping, Dangling: rank.DanglingSink, Start: ir,
			Tolerance: 1e-6, MaxIterations: 10, Workers: 1})
		if err != nil {
			return err
		}
		ir = res.Rank
		for q, qu := range queues {
			qu.rebuild(func(yield func(scored)) {
				for v := range found {
					if found[v] != unseen && live(uint32(v), q) {
						yield(scored{v: uint32(v), score: ir[v], tie: found[v]})
					}
				}
			})
		}
		return nil
	}
	next := func() (uint32, bool) {
		for q, qu := range queues {
			for {
				s, ok := qu.pop(o, opts.Seed, uint64(len(order)))
				if !ok {
					break
				}
				if !live(s.v, q) || o == rank.OrderBacklink && s.score != float64(ib[s.v]) {
					continue // stale
				}
				return s.v, true
			}
		}
		return 0, false
	}
	discover(seed, false)
	for len(order) < limit {
		if o == rank.OrderPageRank && len(order)%every == 0 && len(order) > 0 {
			if err := rerank(); err != nil {
				return nil, err
			}
		}
		p, ok := next()
		if !ok {
			break
		}
		visited[p] = true
		order = append(order, p)
		if dist != nil && topic.Hot[p] {
			dist[p] = 0
		}
		for i, v := range fwd.In(p) { // p's out-links
			switch o {
			case rank.OrderBacklink:
				ib[v]++
			case rank.OrderPageRank:
				known.AddEdge(p, v)
			}
			hot := false
			if topic != nil {
				hot = topic.Named[p][i]
				if dist != nil {
					dist[v] = min(dist[v], dist[p]+1)
					hot = hot || dist[v] < 3
				}
			}
			if o == rank.OrderBacklink && found[v] != unseen && !visited[v] && !(hot && !inHot[v]) {
				push(v) // its IB' grew: a fresh entry, the old one stale
			}
			discover(v, hot)
		}
	}
	return order, nil
}

// queue is one of a crawl's URL queues under an ordering: first in, first
// out for breadth-first, a pool for random, a heap by score otherwise.
// Entries may go stale; the caller skips them.
type queue struct {
	fifo []scored
	head int
	pool []scored
	heap scoreHeap
}

func (q *queue) push(o rank.Ordering, s scored) {
	switch o {
	case rank.OrderBreadthFirst:
		q.fifo = append(q.fifo, s)
	case rank.OrderRandom:
		q.pool = append(q.pool, s)
	default:
		heap.Push(&q.heap, s)
	}
}

func (q *queue) pop(o rank.Ordering, seed, step uint64) (scored, bool) {
	switch o {
	case rank.OrderBreadthFirst:
		if q.head == len(q.fifo) {
			return scored{}, false
		}
		s := q.fifo[q.head]
		q.head++
		return s, true
	case rank.OrderRandom:
		if len(q.pool) == 0 {
			return scored{}, false
		}
		i := int(splitmix.Hash2(seed, step^uint64(len(q.pool))<<32) % uint64(len(q.pool)))
		s := q.pool[i]
		q.pool[i] = q.pool[len(q.pool)-1]
		q.pool = q.pool[:len(q.pool)-1]
		return s, true
	}
	if q.heap.Len() == 0 {
		return scored{}, false
	}
	return heap.Pop(&q.heap).(scored), true
}

// rebuild replaces the heap's entries with those all yields.
func (q *queue) rebuild(all func(yield func(scored))) {
	q.heap = q.heap[:0]
	all(func(s scored) { q.heap = append(q.heap, s) })
	heap.Init(&q.heap)
}

// scored is a discovered page with its importance estimate; ties go to
// the page discovered first.
type scored struct {
	v     uint32
	score float64
	tie   int32
}

type scoreHeap []scored

func (h scoreHeap) Len() int { return len(h) }
func (h scoreHeap) Less(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score > h[j].score
	}
	return h[i].tie < h[j].tie
}
func (h scoreHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *scoreHeap) Push(x any)   { *h = append(*h, x.(scored)) }
func (h *scoreHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// HotFound returns, for each prefix of a crawl's visit order, the share of
// the hot pages visited so far: P_ST of dissertation §2.3 (Crawl & Stop
// with threshold), hot meaning importance ≥ g. out[k] is the share after
// k+1 visits. With no hot page it returns nil.
func HotFound(order []uint32, importance []float64, g float64) []float64 {
	hot := 0
	for _, x := range importance {
		if x >= g {
			hot++
		}
	}
	if hot == 0 {
		return nil
	}
	out := make([]float64, len(order))
	got := 0
	for k, p := range order {
		if importance[p] >= g {
			got++
		}
		out[k] = float64(got) / float64(hot)
	}
	return out
}

// TopFound returns P_CS of dissertation §2.3 (Crawl & Stop) for a crawl
// stopped after k visits, for every k: the share of the k pages visited
// that are among the k most important of the graph, a page tied with the
// k-th counting as among them. out[k] is the share after k+1 visits.
func TopFound(order []uint32, importance []float64) []float64 {
	// above[p] is how many pages are strictly more important than p: p is
	// among the top k iff above[p] < k.
	desc := slices.Clone(importance)
	slices.SortFunc(desc, func(a, b float64) int { return cmp.Compare(b, a) })
	above := make([]int, len(importance))
	for p, x := range importance {
		above[p], _ = slices.BinarySearchFunc(desc, x, func(e, t float64) int { return cmp.Compare(t, e) })
	}
	withAbove := make([]int, len(importance)+1) // visited pages by above
	out := make([]float64, len(order))
	in := 0
	for i, p := range order {
		k := i + 1
		in += withAbove[k-1] // visited earlier, in the top k from now on
		withAbove[above[p]]++
		if above[p] < k {
			in++
		}
		out[i] = float64(in) / float64(k)
	}
	return out
}
