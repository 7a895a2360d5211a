package rank

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"

	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// Ordering is how a crawler picks the next URL to visit among those it has
// discovered and not yet visited (dissertation §2.3, Fig. 2.2).
type Ordering uint8

// Orderings of ch. 2.
const (
	OrderBreadthFirst Ordering = iota // first discovered, first visited
	OrderBacklink                     // most in-links from the pages visited so far (IB')
	OrderPageRank                     // highest PageRank over the graph visited so far (IR')
	OrderRandom                       // any, uniformly: the baseline diagonal
)

var orderNames = [...]string{"breadth-first", "backlink", "pagerank", "random"}

func (o Ordering) String() string {
	if int(o) < len(orderNames) {
		return orderNames[o]
	}
	return fmt.Sprintf("Ordering(%d)", uint8(o))
}

// ParseOrdering reads an ordering's name.
func ParseOrdering(s string) (Ordering, error) {
	for i, n := range orderNames {
		if n == s {
			return Ordering(i), nil
		}
	}
	return 0, fmt.Errorf("ordering %q: want breadth-first, backlink, pagerank or random", s)
}

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
func Crawl(fwd *Graph, seed uint32, o Ordering, opts CrawlOptions) ([]uint32, error) {
	// fwd.In(u) must be u's out-links: the caller passes the reversed graph
	// (see Builder.Reversed).
	n := fwd.Nodes()
	if int(seed) >= n {
		return nil, fmt.Errorf("rank: seed %d not in a graph of %d nodes", seed, n)
	}
	if o > OrderRandom {
		return nil, fmt.Errorf("rank: %v", o)
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
	order := make([]uint32, 0, min(limit, n))
	nFound := int32(0)

	var fifo []uint32      // breadth-first
	var pool []uint32      // random
	ib := make([]int32, 0) // backlink: IB' of each node
	var pq scoreHeap       // backlink and pagerank
	var known Builder      // pagerank: the links of visited pages
	var ir []float64       // pagerank: IR' at the last computation
	var fresh []uint32     // pagerank: discovered since the last computation
	if o == OrderBacklink {
		ib = make([]int32, n)
	}
	discover := func(v uint32) {
		if found[v] != unseen {
			return
		}
		found[v] = nFound
		nFound++
		switch o {
		case OrderBreadthFirst:
			fifo = append(fifo, v)
		case OrderRandom:
			pool = append(pool, v)
		case OrderBacklink:
			heap.Push(&pq, scored{v: v, score: float64(ib[v]), tie: found[v]})
		case OrderPageRank:
			fresh = append(fresh, v)
		}
	}
	rerank := func() error {
		known.AddNode(uint32(n - 1))
		g, err := known.Build(BuildOptions{})
		if err != nil {
			return err
		}
		// Warm-started from the last IR', a few iterations follow the
		// links added since: the ordering needs the ranks' order, not
		// their tenth digit, and the next computation carries on.
		res, err := PageRank(g, Options{Damping: opts.Damping, Dangling: DanglingSink, Start: ir,
			Tolerance: 1e-6, MaxIterations: 10, Workers: 1})
		if err != nil {
			return err
		}
		ir = res.Rank
		pq = pq[:0]
		for v := range found {
			if found[v] != unseen && !visited[v] {
				pq = append(pq, scored{v: uint32(v), score: ir[v], tie: found[v]})
			}
		}
		heap.Init(&pq)
		fresh = fresh[:0]
		return nil
	}
	next := func() (uint32, bool) {
		switch o {
		case OrderBreadthFirst:
			if len(fifo) == 0 {
				return 0, false
			}
			v := fifo[0]
			fifo = fifo[1:]
			return v, true
		case OrderRandom:
			if len(pool) == 0 {
				return 0, false
			}
			i := int(splitmix.Hash2(opts.Seed, uint64(len(order))) % uint64(len(pool)))
			v := pool[i]
			pool[i] = pool[len(pool)-1]
			pool = pool[:len(pool)-1]
			return v, true
		case OrderBacklink:
			for pq.Len() > 0 {
				s := heap.Pop(&pq).(scored)
				if !visited[s.v] && s.score == float64(ib[s.v]) { // not a stale entry
					return s.v, true
				}
			}
			return 0, false
		default: // OrderPageRank
			if pq.Len() == 0 && len(fresh) > 0 {
				// Pages found since the last computation, none ranked
				// yet: the oldest first, as breadth-first would.
				v := fresh[0]
				fresh = fresh[1:]
				return v, true
			}
			for pq.Len() > 0 {
				s := heap.Pop(&pq).(scored)
				if !visited[s.v] {
					return s.v, true
				}
			}
			return 0, false
		}
	}
	discover(seed)
	for len(order) < limit {
		if o == OrderPageRank && len(order)%every == 0 && len(order) > 0 {
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
		for _, v := range fwd.In(p) { // p's out-links
			switch o {
			case OrderBacklink:
				ib[v]++
				if !visited[v] && found[v] != unseen {
					heap.Push(&pq, scored{v: v, score: float64(ib[v]), tie: found[v]})
				}
			case OrderPageRank:
				known.AddEdge(p, v)
			}
			discover(v)
		}
	}
	return order, nil
}

// Reversed returns a builder of b's edges reversed: the graph it builds
// lists each node's out-links as its "in-links", which is the forward
// adjacency Crawl reads.
func (b *Builder) Reversed() *Builder {
	return &Builder{src: b.dst, dst: b.src, nodes: b.nodes}
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
