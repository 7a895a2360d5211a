package ch3

// The web a ch. 3 experiment crawls: a simweb's link graph, whole (the
// 40M pages of §3.5 are the entire Web, U), with each page's URL so that
// cluster.Partitioner can place it as it places a real crawl's.

import (
	"fmt"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
	"github.com/freshcrawl/freshcrawl/internal/rank"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// World is a closed web: every page and link of it, as a crawl of it
// would find them.
type World struct {
	// Out is the link graph reversed, as ch. 2's virtual crawler reads
	// it: Out.In(u) is u's out-links, and Out.OutDegree(v) v's backlink
	// count IB(v).
	Out *rank.Graph
	// URL is each page's canonical URL, Site its site.
	URL  []string
	Site []int32
	// Sites is the number of sites.
	Sites int
	id    map[string]uint32
}

// NewWorld returns the web of cfg: all of its pages, reachable from
// anywhere or not, and their links (a link counted once per page).
func NewWorld(cfg simweb.Config) (*World, error) {
	web, err := simweb.New(cfg, nil)
	if err != nil {
		return nil, err
	}
	var b rank.Builder // reversed
	b.AddNode(uint32(web.NumPages() - 1))
	web.LinkGraph(func(from, to int) { b.AddEdge(uint32(to), uint32(from)) })
	out, err := b.Build(rank.BuildOptions{Dedupe: true})
	if err != nil {
		return nil, err
	}
	w := &World{Out: out, Sites: web.NumSites(), URL: make([]string, out.Nodes()), Site: make([]int32, out.Nodes())}
	per := web.PagesPerSite()
	for p := range w.URL {
		si, slot := int32(p/per), int32(p%per)
		w.URL[p], w.Site[p] = web.URL(si, slot, 0), si
	}
	w.index()
	return w, nil
}

func (w *World) index() {
	w.id = make(map[string]uint32, len(w.URL))
	for p, u := range w.URL {
		w.id[u] = uint32(p)
	}
}

// Pages returns the number of pages, U.
func (w *World) Pages() int { return w.Out.Nodes() }

// Backlinks returns each page's backlink count IB, the importance of the
// quality experiments (§3.9).
func (w *World) Backlinks() []float64 {
	ib := make([]float64, w.Pages())
	for v := range ib {
		ib[v] = float64(w.Out.OutDegree(uint32(v)))
	}
	return ib
}

// HalfSites returns the web of a random half of w's sites, each with all
// its pages and the links among the pages kept: the dotted line of
// Fig. 3.4, the Web of half the sites.
func (w *World) HalfSites(seed uint64) (*World, error) {
	keep := make([]bool, w.Sites)
	for s := range keep {
		keep[s] = splitmix.Hash2(seed, uint64(s))&1 == 0
	}
	id := make([]int32, w.Pages())
	h := &World{}
	for p := range id {
		id[p] = -1
		if keep[w.Site[p]] {
			id[p] = int32(len(h.URL))
			h.URL, h.Site = append(h.URL, w.URL[p]), append(h.Site, w.Site[p])
		}
	}
	if len(h.URL) == 0 {
		return nil, fmt.Errorf("no site kept of %d", w.Sites)
	}
	var b rank.Builder
	b.AddNode(uint32(len(h.URL) - 1))
	for p := range id {
		if id[p] < 0 {
			continue
		}
		for _, v := range w.Out.In(uint32(p)) {
			if id[v] >= 0 {
				b.AddEdge(uint32(id[v]), uint32(id[p]))
			}
		}
	}
	var err error
	if h.Out, err = b.Build(rank.BuildOptions{}); err != nil {
		return nil, err
	}
	for s := range keep {
		if keep[s] {
			h.Sites++
		}
	}
	h.index()
	return h, nil
}

// Partition returns the partition of each page under p: the production
// partitioner, fed the page's URL.
func (w *World) Partition(p cluster.Partitioner) []int32 {
	part := make([]int32, w.Pages())
	for v, u := range w.URL {
		part[v] = int32(p.Of(u))
	}
	return part
}
