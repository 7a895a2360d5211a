package reproduce

// The virtual crawler of dissertation ch. 2: a crawl of a known graph in
// one ordering, with the two queues of §2.5.4 for a topic.

import (
	"container/heap"
	"fmt"

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
	c := newCrawl(fwd, o, opts, topic, min(limit, n))
	c.discover(seed, false)
	for len(c.order) < limit {
		if o == rank.OrderPageRank && len(c.order)%every == 0 && len(c.order) > 0 {
			if err := c.rerank(); err != nil {
				return nil, err
			}
		}
		p, ok := c.next()
		if !ok {
			break
		}
		c.visit(p)
	}
	return c.order, nil
}

// unseen marks a page not yet found.
const unseen = -1

// crawl is one virtual crawl under way. fwd.In(u) must be u's out-links:
// the caller passes the graph of the links reversed.
type crawl struct {
	fwd   *rank.Graph
	o     rank.Ordering
	opts  CrawlOptions
	topic *Topic

	found   []int32 // discovery order, or unseen
	nFound  int32
	visited []bool
	inHot   []bool // queued in the hot queue, not the URL queue
	order   []uint32
	dist    []int8 // with the distance rule: distance from a hot page visited, capped at 3
	ib      []int32
	known   rank.Builder // pagerank: the links of visited pages
	ir      []float64    // pagerank: IR' at the last computation
	queues  [2]*queue    // hot, url
}

func newCrawl(fwd *rank.Graph, o rank.Ordering, opts CrawlOptions, topic *Topic, visits int) *crawl {
	n := fwd.Nodes()
	c := &crawl{fwd: fwd, o: o, opts: opts, topic: topic, found: make([]int32, n), visited: make([]bool, n),
		inHot: make([]bool, n), order: make([]uint32, 0, visits), queues: [2]*queue{{}, {}}}
	for i := range c.found {
		c.found[i] = unseen
	}
	if topic != nil && topic.Distance {
		c.dist = make([]int8, n)
		for i := range c.dist {
			c.dist[i] = 3
		}
	}
	if o == rank.OrderBacklink {
		c.ib = make([]int32, n)
	}
	return c
}

// score is v's importance estimate under the ordering.
func (c *crawl) score(v uint32) float64 {
	switch c.o {
	case rank.OrderBacklink:
		return float64(c.ib[v])
	case rank.OrderPageRank:
		if int(v) < len(c.ir) {
			return c.ir[v]
		}
	}
	return 0
}

// live says whether an entry of queue q for v is current.
func (c *crawl) live(v uint32, q int) bool { return !c.visited[v] && c.inHot[v] == (q == 0) }

// push queues v, with its current score, in the queue it belongs to.
func (c *crawl) push(v uint32) {
	q := 1
	if c.inHot[v] {
		q = 0
	}
	c.queues[q].push(c.o, scored{v: v, score: c.score(v), tie: c.found[v]})
}

// discover notes a link to v, hot if it goes to the hot queue: a new page
// is queued, a known one not yet visited moves to the hot queue if hot.
func (c *crawl) discover(v uint32, hot bool) {
	if c.found[v] == unseen {
		c.found[v] = c.nFound
		c.nFound++
		c.inHot[v] = hot
		c.push(v)
		return
	}
	if hot && !c.inHot[v] && !c.visited[v] {
		c.inHot[v] = true // promoted: the URL-queue entry goes stale
		c.push(v)
	}
}

// rerank recomputes IR' over the links of the pages visited and re-sorts
// both queues by it.
func (c *crawl) rerank() error {
	c.known.AddNode(uint32(c.fwd.Nodes() - 1))
	g, err := c.known.Build(rank.BuildOptions{})
	if err != nil {
		return err
	}
	// Warm-started from the last IR', a few iterations follow the links
	// added since: the ordering needs the ranks' order, not their tenth
	// digit, and the next computation carries on.
	res, err := rank.PageRank(g, rank.Options{Damping: c.opts.Damping, Dangling: rank.DanglingSink, Start: c.ir,
		Tolerance: 1e-6, MaxIterations: 10, Workers: 1})
	if err != nil {
		return err
	}
	c.ir = res.Rank
	for q, qu := range c.queues {
		qu.rebuild(func(yield func(scored)) {
			for v := range c.found {
				if c.found[v] != unseen && c.live(uint32(v), q) {
					yield(scored{v: uint32(v), score: c.ir[v], tie: c.found[v]})
				}
			}
		})
	}
	return nil
}

// next takes the next page to visit: the hot queue's best, else the URL
// queue's, skipping stale entries.
func (c *crawl) next() (uint32, bool) {
	for q, qu := range c.queues {
		for {
			s, ok := qu.pop(c.o, c.opts.Seed, uint64(len(c.order)))
			if !ok {
				break
			}
			if !c.live(s.v, q) || c.o == rank.OrderBacklink && s.score != float64(c.ib[s.v]) {
				continue // stale
			}
			return s.v, true
		}
	}
	return 0, false
}

// visit visits p: its out-links raise IB' or join the graph of IR', and
// each target is discovered, in the hot queue if the link names the topic
// or, with the distance rule, the target is near a hot page.
func (c *crawl) visit(p uint32) {
	c.visited[p] = true
	c.order = append(c.order, p)
	if c.dist != nil && c.topic.Hot[p] {
		c.dist[p] = 0
	}
	for i, v := range c.fwd.In(p) { // p's out-links
		switch c.o {
		case rank.OrderBacklink:
			c.ib[v]++
		case rank.OrderPageRank:
			c.known.AddEdge(p, v)
		}
		hot := false
		if c.topic != nil {
			hot = c.topic.Named[p][i]
			if c.dist != nil {
				c.dist[v] = min(c.dist[v], c.dist[p]+1)
				hot = hot || c.dist[v] < 3
			}
		}
		if c.o == rank.OrderBacklink && c.found[v] != unseen && !c.visited[v] && !(hot && !c.inHot[v]) {
			c.push(v) // its IB' grew: a fresh entry, the old one stale
		}
		c.discover(v, hot)
	}
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
