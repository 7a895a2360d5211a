package rank

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// The ranking module (dissertation ch. 7's RankingModule). It keeps the
// link graph of the pages a crawl fetched, fed by the crawl's commits
// (Observe), and every so often computes each URL's importance on a
// snapshot of it, in its own goroutine, so that fetching never waits for
// it. From the importance it hands the crawl the most important URLs not
// yet fetched, host by host (RankerConfig.Publish); when the collection
// is full (Capacity), it hands out only URLs more important than the
// least important page held, and names the held pages in increasing
// importance, the next of which leaves the collection when a newcomer
// enters it (Victim: refinement).

// Promotion is a URL the ranking hands a host to fetch before its queue.
// Enters says it may take a held page's place in a full collection; the
// others are fetched to explore only.
type Promotion struct {
	URL    string
	Enters bool
}

// RankerConfig configures a Ranker.
type RankerConfig struct {
	// Ordering is what importance is: OrderBacklink, OrderPageRank or
	// OrderTopic (the others order nothing).
	Ordering Ordering
	// Topic is OrderTopic's word, in lower case.
	Topic string
	// Capacity is the collection's size in pages; zero: no limit.
	Capacity int
	// Promote is how many frontier URLs one ranking hands out: enough to
	// keep the crawl on important pages until the next.
	Promote int
	// Publish receives each ranking's URLs, by host (authority), most
	// important first, and replaces the last ones. It is called from the
	// ranking's goroutine.
	Publish func(byHost map[string][]Promotion)
	// Logger receives the ranking's errors; nil means slog.Default().
	Logger *slog.Logger
}

// ErrOrdering is returned by NewRanker for an ordering that ranks nothing.
var ErrOrdering = errors.New("the ordering ranks nothing")

// Ranker is the ranking module of one crawl. Its methods are safe for
// concurrent use; Run is the goroutine that ranks.
type Ranker struct {
	cfg  RankerConfig
	kick chan struct{} // asks for a ranking now

	mu      sync.Mutex
	pending []Update
	evict   []string // held pages, least important first; consumed by Victim
	taken   map[string]bool
	claims  int // newcomers in flight into the full collection, each owed a victim

	// weights is each node's importance over the average held page's, as
	// last ranked (Weight).
	weights atomic.Pointer[[]float64]

	// Owned by Run.
	graph Recorded
	score []float64
}

// NewRanker returns the ranking module of a crawl under cfg.Ordering.
func NewRanker(cfg RankerConfig) (*Ranker, error) {
	switch cfg.Ordering {
	case OrderBacklink, OrderPageRank, OrderTopic:
	default:
		return nil, ErrOrdering
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Ranker{cfg: cfg, taken: map[string]bool{}, kick: make(chan struct{}, 1)}, nil
}

// Graph returns the recorded graph the ranking starts from: Load it
// before Run.
func (r *Ranker) Graph() *Recorded { return &r.graph }

// Wake asks for a ranking without waiting for the interval: the
// collection has just filled, and what is handed out must now beat the
// pages held.
func (r *Ranker) Wake() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// Claim reserves a victim for a newcomer about to be fetched into the
// full collection; it reports false when the ranking has named none left.
// Each claim is given back by Unclaim when the newcomer's task ends.
func (r *Ranker) Claim() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.evict)-r.claims <= 0 {
		return false
	}
	r.claims++
	return true
}

// Unclaim gives back a claim.
func (r *Ranker) Unclaim() {
	r.mu.Lock()
	r.claims--
	r.mu.Unlock()
}

// Observe queues a commit's changes for the next ranking. It never
// blocks on a ranking in progress.
func (r *Ranker) Observe(us []Update) {
	if len(us) == 0 {
		return
	}
	r.mu.Lock()
	r.pending = append(r.pending, us...)
	r.mu.Unlock()
}

// Victim returns the least important held page not yet given up, other
// than those in skip, or "" if none is known.
func (r *Ranker) Victim(skip map[string]bool) string {
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

// Run ranks every interval until ctx ends.
func (r *Ranker) Run(ctx context.Context, interval time.Duration) {
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

// drain applies the updates observed since the last ranking.
func (r *Ranker) drain() {
	r.mu.Lock()
	us := r.pending
	r.pending = nil
	r.mu.Unlock()
	for _, u := range us {
		r.graph.apply(u)
	}
}

// rank computes the importance of every known URL on a snapshot of the
// graph and hands the results out.
func (r *Ranker) rank() {
	r.drain()
	n := len(r.graph.URLs)
	if n == 0 {
		return
	}
	g, err := r.graph.Builder().Build(BuildOptions{})
	if err != nil {
		r.cfg.Logger.Error("ranking", "err", err)
		return
	}
	switch r.cfg.Ordering {
	case OrderTopic:
		r.topicScores(n)
	case OrderBacklink:
		r.score = slices.Grow(r.score[:0], n)[:n]
		for v := range n {
			r.score[v] = float64(g.InDegree(uint32(v))) + r.graph.Inlinks[v]
		}
	default:
		start := r.score
		if len(start) > n {
			start = start[:n]
		}
		res, err := PageRank(g, Options{Dangling: DanglingSink, Start: start,
			Tolerance: 1e-7, MaxIterations: 50, Workers: 1, Inflow: r.inflow(g)})
		if err != nil {
			r.cfg.Logger.Error("ranking", "err", err)
			return
		}
		r.score = res.Rank
	}
	r.publish()
}

// inflow is PageRank's inflow from the links outside the crawl: each from
// a page of average rank with the crawl's pages' mean out-degree. Nil if
// there are none.
func (r *Ranker) inflow(g *Graph) []float64 {
	var in []float64
	edges, linking := 0, 0
	for _, out := range r.graph.Out {
		if len(out) > 0 {
			edges, linking = edges+len(out), linking+1
		}
	}
	for v, n := range r.graph.Inlinks {
		if n > 0 && edges > 0 {
			if in == nil {
				in = make([]float64, g.Nodes())
			}
			in[v] = n * float64(linking) / float64(edges)
		}
	}
	return in
}

// publish hands out the frontier URLs worth fetching next and, with the
// collection full, the order in which held pages leave it.
func (r *Ranker) publish() {
	var held, frontier []int
	for v := range r.graph.URLs {
		switch r.graph.State[v] {
		case Held:
			held = append(held, v)
		case Frontier, Evicted:
			if r.graph.URLs[v] != "" {
				frontier = append(frontier, v)
			}
		}
	}
	slices.SortFunc(frontier, r.byScore(true))
	k, evict := r.entering(frontier, held)
	r.mu.Lock()
	r.evict, r.taken = evict, map[string]bool{}
	r.mu.Unlock()
	r.cfg.Publish(r.promotions(frontier, k))
	r.publishWeights(held)
}

// byScore orders nodes by score, ties going to the one found first.
func (r *Ranker) byScore(desc bool) func(a, b int) int {
	return func(a, b int) int {
		c := cmp.Compare(r.score[a], r.score[b])
		if desc {
			c = -c
		}
		if c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	}
}

// entering returns how many of the frontier URLs, most important first,
// may enter the collection (all, unless it is full), and, with it full,
// the held pages they replace: the i-th most important URL outside
// replaces the i-th least important page held, as long as it is the more
// important. The URLs after those are fetched to explore only.
func (r *Ranker) entering(frontier, held []int) (int, []string) {
	if r.cfg.Capacity == 0 || len(held) < r.cfg.Capacity {
		return len(frontier), nil
	}
	slices.SortFunc(held, r.byScore(false))
	k := 0
	for k < len(frontier) && k < len(held) && k < r.cfg.Promote && r.score[frontier[k]] > r.score[held[k]] {
		k++
	}
	evict := make([]string, k)
	for i, v := range held[:k] {
		evict[i] = r.graph.URLs[v]
	}
	return k, evict
}

// promotions is what one ranking hands out: up to Promote frontier URLs,
// by host, the first k of which may enter the collection.
func (r *Ranker) promotions(frontier []int, k int) map[string][]Promotion {
	promoted := map[string][]Promotion{}
	count := 0
	for i, v := range frontier {
		if count >= r.cfg.Promote {
			break
		}
		if i >= k && r.graph.State[v] != Frontier {
			continue // explored already: it comes back only to enter
		}
		u := r.graph.URLs[v]
		if host := urlx.Authority(u); host != "" {
			promoted[host] = append(promoted[host], Promotion{URL: u, Enters: i < k})
			count++
		}
	}
	return promoted
}

// maxWeight bounds weights so that no page takes the whole budget or none.
const maxWeight = 256

// topicScores scores 1 the URLs the topic crawler puts in its hot queue
// (Algorithm 2.5.2): those a link's text or their own URL names the topic
// by, and the pages held that are hot themselves; the others 0, ties
// going in the order found. Algorithm 2.5.3 also queues every URL within
// two links of a hot page; on simweb that took in most of the web and
// slowed the crawl (freshcrawl reproduce, §2.5.4), so the crawler keeps
// to 2.5.2.
func (r *Ranker) topicScores(n int) {
	r.score = slices.Grow(r.score[:0], n)[:n]
	g := &r.graph
	for v := range n {
		s := 0.0
		switch {
		case g.State[v] == Held:
			if g.Hot[v] {
				s = 1
			}
		case g.Named[v] || strings.Contains(g.URLs[v], r.cfg.Topic):
			s = 1
		}
		r.score[v] = s
	}
}

// publishWeights makes each node's importance, over the mean of the held
// pages', available to Weight. The topic ordering's 0 or 1 is no weight:
// its pages keep weight 1.
func (r *Ranker) publishWeights(held []int) {
	if r.cfg.Ordering == OrderTopic {
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

// Weight returns the importance of the page at url over that of the
// average page held, as last ranked; 0 if it has not been ranked. It is
// the page's weight in the refresh plan (dissertation §5.6).
func (r *Ranker) Weight(url string) float64 {
	ws := r.weights.Load()
	if ws == nil {
		return 0
	}
	v, ok := r.graph.id(url)
	if !ok || int(v) >= len(*ws) {
		return 0
	}
	return (*ws)[v]
}
