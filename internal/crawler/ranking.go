package crawler

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/rank"
	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// Ordering is how new URLs are chosen (dissertation ch. 2): in the order
// found, or by an importance estimate over the link graph seen so far.
type Ordering string

// The orderings.
const (
	OrderBreadthFirst Ordering = "breadth-first" // each host's URLs in the order found
	OrderBacklink     Ordering = "backlink"      // most links from the pages fetched so far (IB')
	OrderPageRank     Ordering = "pagerank"      // highest PageRank over the graph fetched so far (IR')
	// OrderTopic is dissertation §2.5.4's similarity crawler (Algorithm
	// 2.5.2) for the word Config.Topic: URLs whose link text or URL names
	// it come first, each group in the order found; under refinement the
	// pages found hot for it (the word in the title or 10 or more times)
	// are the ones kept.
	OrderTopic Ordering = "topic"
)

// Orderings lists the orderings.
var Orderings = []Ordering{OrderBreadthFirst, OrderBacklink, OrderPageRank, OrderTopic}

// DefaultRankInterval is how often the ranking is recomputed.
const DefaultRankInterval = 5 * time.Second

// promoteFactor sets how many frontier URLs one ranking hands out, per
// worker: enough to keep every worker on important pages until the next.
const promoteFactor = 16

// The ranking module (dissertation ch. 7's RankingModule). It keeps the
// link graph of the pages fetched, fed by the committer after each
// commit, and every RankInterval computes each URL's importance on a
// snapshot of it, in its own goroutine: fetching never waits for it. From
// the importance it hands the scheduler the most important URLs not yet
// fetched, host by host, which workers take before their host's queue;
// and, when the collection is full (MaxPages), it only hands out URLs
// more important than the least important page held, and gives the
// committer the held pages in increasing importance, the next of which
// leaves the collection when a newcomer enters it (refinement).
type ranker struct {
	c *Crawler

	kick    chan struct{} // asks for a ranking now
	mu      sync.Mutex
	pending []rankUpdate
	evict   []string // held pages, least important first; consumed by victim
	taken   map[string]bool
	claims  int // newcomers in flight into the full collection, each owed a victim

	// weights is each node's importance over the average held page's, as
	// last ranked, for the refresh policy (weight).
	weights atomic.Pointer[[]float64]

	// Owned by the loop; idsMu guards ids against weight's reads.
	idsMu sync.RWMutex
	ids   map[store.Hash]uint32
	urls  []string
	out   [][]uint32
	state []nodeState
	score []float64
	// Topic ordering: named says a link to the node names the topic, hot
	// that the page, fetched, was found hot for it.
	named, hot []bool
}

// nodeState is where a URL stands for the ranking.
type nodeState uint8

const (
	stateFrontier nodeState = iota // found, never fetched
	stateHeld                      // in the collection
	stateEvicted                   // left the full collection: may come back
	stateGone                      // fetched and not kept (an error, a redirect, not HTML), or disallowed
)

// promotion is a URL the ranking hands a host: enters says it may take a
// held page's place in a full collection.
type promotion struct {
	url    string
	enters bool
}

// rankUpdate is what a commit changed about one page.
type rankUpdate struct {
	url      string
	state    nodeState
	setLinks bool
	links    []string
	named    []bool // with links, under topic ordering: which name the topic
	hot      bool   // under topic ordering, with setLinks: the page is hot
}

func newRanker(c *Crawler) *ranker {
	return &ranker{c: c, ids: map[store.Hash]uint32{}, taken: map[string]bool{}, kick: make(chan struct{}, 1)}
}

// newGraphReader returns a ranker that only loads a store's graph (load),
// for ReadLinkGraph.
func newGraphReader() *ranker { return &ranker{ids: map[store.Hash]uint32{}} }

// wake asks for a ranking without waiting for the interval: the
// collection has just filled, and what is handed out must now beat the
// pages held.
func (r *ranker) wake() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// claim reserves a victim for a newcomer about to be fetched into the
// full collection; it reports false when the ranking has named none left.
// Each claim is given back by unclaim when the newcomer's task ends.
func (r *ranker) claim() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.evict)-r.claims <= 0 {
		return false
	}
	r.claims++
	return true
}

func (r *ranker) unclaim() {
	r.mu.Lock()
	r.claims--
	r.mu.Unlock()
}

// observe queues a commit's changes for the next ranking. It never
// blocks on a ranking in progress.
func (r *ranker) observe(us []rankUpdate) {
	if len(us) == 0 {
		return
	}
	r.mu.Lock()
	r.pending = append(r.pending, us...)
	r.mu.Unlock()
}

// victim returns the least important held page not yet given up, other
// than those in skip, or "" if none is known.
func (r *ranker) victim(skip map[string]bool) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, u := range r.evict {
		if !skip[u] && !r.taken[u] {
			r.taken[u] = true
			for len(r.evict) > 0 && r.taken[r.evict[0]] {
				r.evict = r.evict[1:]
			}
			return u
		}
	}
	return ""
}

func (r *ranker) node(h store.Hash, url string) uint32 {
	v, ok := r.ids[h]
	if !ok {
		v = uint32(len(r.urls))
		r.idsMu.Lock()
		r.ids[h] = v
		r.idsMu.Unlock()
		r.urls = append(r.urls, url)
		r.out = append(r.out, nil)
		r.state = append(r.state, stateFrontier)
		r.named = append(r.named, false)
		r.hot = append(r.hot, false)
	} else if r.urls[v] == "" {
		r.urls[v] = url
	}
	return v
}

// load reads the graph store s holds: a restarted crawl ranks what it had
// seen before.
func (r *ranker) load(s *store.Store) error {
	err := s.ForEachLinks(func(page store.Hash, targets []store.Hash) error {
		u := r.node(page, "")
		out := make([]uint32, len(targets))
		for i, t := range targets {
			out[i] = r.node(t, "")
		}
		r.out[u] = out
		return nil
	})
	if err != nil {
		return err
	}
	err = s.ForEachPage(func(p store.Page) error {
		if p.Kind != store.KindPage {
			return nil
		}
		v := r.node(store.HashURL(p.URL), p.URL)
		r.state[v] = rowState(&p)
		return nil
	})
	if err != nil {
		return err
	}
	return s.Hosts(func(host string, _ int) error {
		for from := uint64(0); ; {
			items, err := s.Peek(host, from, 4096)
			if err != nil || len(items) == 0 {
				return err
			}
			for _, it := range items {
				if it.Kind == store.KindPage {
					r.node(store.HashURL(it.URL), it.URL)
				}
			}
			from = items[len(items)-1].Seq + 1
		}
	})
}

// drain applies the updates observed since the last ranking.
func (r *ranker) drain() {
	r.mu.Lock()
	us := r.pending
	r.pending = nil
	r.mu.Unlock()
	for _, u := range us {
		v := r.node(store.HashURL(u.url), u.url)
		r.state[v] = u.state
		if u.setLinks {
			r.hot[v] = u.hot
			out := r.out[v][:0]
			for i, l := range u.links {
				t := r.node(store.HashURL(l), l)
				out = append(out, t)
				if i < len(u.named) && u.named[i] {
					r.named[t] = true
				}
			}
			slices.Sort(out)
			r.out[v] = slices.Compact(out)
		}
	}
}

// run ranks every interval until ctx ends.
func (r *ranker) run(ctx context.Context, interval time.Duration) {
	if err := r.load(r.c.store); err != nil {
		r.c.log.Error("ranking: reading the link graph failed; ranking what this run sees", "err", err)
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		r.rank()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-r.kick:
		}
	}
}

// rank computes the importance of every known URL on a snapshot of the
// graph and hands the results to the scheduler and the committer.
func (r *ranker) rank() {
	r.drain()
	n := len(r.urls)
	if n == 0 {
		return
	}
	var b rank.Builder
	b.AddNode(uint32(n - 1))
	for u, out := range r.out {
		for _, v := range out {
			b.AddEdge(uint32(u), v)
		}
	}
	g, err := b.Build(rank.BuildOptions{})
	if err != nil {
		r.c.log.Error("ranking", "err", err)
		return
	}
	switch r.c.cfg.Ordering {
	case OrderTopic:
		r.topicScores(n)
	case OrderBacklink:
		r.score = slices.Grow(r.score[:0], n)[:n]
		for v := range n {
			r.score[v] = float64(g.InDegree(uint32(v)))
		}
	default:
		start := r.score
		if len(start) > n {
			start = start[:n]
		}
		res, err := rank.PageRank(g, rank.Options{Dangling: rank.DanglingSink, Start: start,
			Tolerance: 1e-7, MaxIterations: 50, Workers: 1})
		if err != nil {
			r.c.log.Error("ranking", "err", err)
			return
		}
		r.score = res.Rank
	}
	r.publish()
}

// publish hands out the frontier URLs worth fetching next and, with the
// collection full, the order in which held pages leave it.
func (r *ranker) publish() {
	var heldIdx, frontier []int
	for v := range r.urls {
		switch r.state[v] {
		case stateHeld:
			heldIdx = append(heldIdx, v)
		case stateFrontier, stateEvicted:
			if r.urls[v] != "" {
				frontier = append(frontier, v)
			}
		}
	}
	byScore := func(desc bool) func(a, b int) int {
		return func(a, b int) int {
			c := cmp.Compare(r.score[a], r.score[b])
			if desc {
				c = -c
			}
			if c != 0 {
				return c
			}
			return cmp.Compare(a, b) // the one found first
		}
	}
	full := r.c.cfg.MaxPages > 0 && len(heldIdx) >= r.c.cfg.MaxPages
	slices.SortFunc(frontier, byScore(true))
	limit := promoteFactor * r.c.cfg.Workers
	var evict []string
	k := len(frontier) // the URLs that may enter: all, unless full
	if full {
		// The i-th most important URL outside replaces the i-th least
		// important page held, as long as it is the more important; the
		// URLs after the k that do are fetched to explore only.
		slices.SortFunc(heldIdx, byScore(false))
		k = 0
		for k < len(frontier) && k < len(heldIdx) && k < limit && r.score[frontier[k]] > r.score[heldIdx[k]] {
			k++
		}
		evict = make([]string, k)
		for i, v := range heldIdx[:k] {
			evict[i] = r.urls[v]
		}
	}
	promoted := map[string][]promotion{}
	count := 0
	for i, v := range frontier {
		if count >= limit {
			break
		}
		if i >= k && r.state[v] != stateFrontier {
			continue // explored already: it comes back only to enter
		}
		u := r.urls[v]
		if host := urlx.Authority(u); host != "" {
			promoted[host] = append(promoted[host], promotion{url: u, enters: i < k})
			count++
		}
	}
	r.mu.Lock()
	r.evict, r.taken = evict, map[string]bool{}
	r.mu.Unlock()
	r.c.sched.setPromoted(promoted)
	r.publishWeights(heldIdx)
}

// Weights are bounded so that no page takes the whole budget or none.
const maxWeight = 256

// topicScores scores 1 the URLs the topic crawler puts in its hot queue
// (Algorithm 2.5.2): those a link's text or their own URL names the topic
// by, and the pages held that are hot themselves; the others 0, ties
// going in the order found. Algorithm 2.5.3 also queues every URL within
// two links of a hot page; on simweb that took in most of the web and
// slowed the crawl (freshcrawl reproduce, §2.5.4), so the crawler keeps
// to 2.5.2.
func (r *ranker) topicScores(n int) {
	r.score = slices.Grow(r.score[:0], n)[:n]
	word := r.c.cfg.Topic
	for v := range n {
		s := 0.0
		switch {
		case r.state[v] == stateHeld:
			if r.hot[v] {
				s = 1
			}
		case r.named[v] || strings.Contains(r.urls[v], word):
			s = 1
		}
		r.score[v] = s
	}
}

// publishWeights makes each node's importance, over the mean of the held
// pages', available to weight. The topic ordering's 0 or 1 is no weight:
// its pages keep weight 1.
func (r *ranker) publishWeights(held []int) {
	if r.c.cfg.Ordering == OrderTopic {
		return
	}
	mean := 0.0
	for _, v := range held {
		mean += r.score[v]
	}
	if len(held) == 0 || !(mean > 0) {
		return
	}
	mean /= float64(len(held))
	w := make([]float64, len(r.score))
	for v, x := range r.score {
		w[v] = min(max(x/mean, 1.0/maxWeight), maxWeight)
	}
	r.weights.Store(&w)
}

// weight returns the importance of the page at url over that of the
// average page held, as last ranked; 0 if it has not been ranked.
func (r *ranker) weight(url string) float64 {
	ws := r.weights.Load()
	if ws == nil {
		return 0
	}
	r.idsMu.RLock()
	v, ok := r.ids[store.HashURL(url)]
	r.idsMu.RUnlock()
	if !ok || int(v) >= len(*ws) {
		return 0
	}
	return (*ws)[v]
}

// rowState is the ranking's view of a stored page row: held, evicted
// (fetched with content but not held: it may come back), or gone.
func rowState(p *store.Page) nodeState {
	switch {
	case p.Held:
		return stateHeld
	case p.LastFetch.IsZero():
		return stateFrontier
	case p.Status >= 200 && p.Status < 300 && p.Evicted:
		return stateEvicted
	}
	return stateGone
}

// String names an ordering.
func (o Ordering) String() string { return string(o) }

func parseOrdering(s string) (Ordering, error) {
	for _, o := range Orderings {
		if string(o) == s {
			return o, nil
		}
	}
	return "", fmt.Errorf("ordering %q (want breadth-first, backlink, pagerank or topic)", s)
}
