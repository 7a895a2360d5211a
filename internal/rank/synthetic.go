package rank

import (
	"fmt"
	"math"
	"slices"

	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// SyntheticConfig shapes a synthetic web graph.
type SyntheticConfig struct {
	Nodes int
	Edges int64
	Seed  uint64
	// SiteSize is the number of pages of a site, consecutive ids.
	SiteSize int
	// Intra is the share of links to the same site (ch. 2's Stanford
	// crawl is one site; the web at large keeps most links within sites).
	Intra float64
}

// DefaultSynthetic returns the shape Synthetic uses for zero fields:
// sites of 100 pages, 80 % of links within the site.
func DefaultSynthetic(nodes int, edges int64, seed uint64) SyntheticConfig {
	return SyntheticConfig{Nodes: nodes, Edges: edges, Seed: seed, SiteSize: 100, Intra: 0.8}
}

// Synthetic generates a web-like graph: out-degrees heavy-tailed (a page's
// share of the links is Pareto with shape 2), summing to exactly
// cfg.Edges; a link is drawn within its site with probability cfg.Intra
// (a little less of them end there, since a page with many links runs out
// of pages of its site, and a repeat is drawn again) and then
// goes to a page chosen with a strong bias to the site's first pages (its
// home and section pages); otherwise it goes anywhere, to a page chosen by
// a global popularity whose in-degrees fall off as a power law (rank r
// gets about r^-0.75 of them), the popular pages spread over all sites. No
// page links to itself or to the same page twice. The same config gives
// the same graph.
func Synthetic(cfg SyntheticConfig) (*Builder, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	n := cfg.Nodes
	site := min(cfg.SiteSize, n)
	degree := outDegrees(cfg)
	stride := popularityStride(n)
	b := &Builder{}
	b.Grow(int(cfg.Edges))
	b.AddNode(uint32(n - 1))
	var t targets
	for u := range n {
		lo := u / site * site
		t.draw(cfg, u, int(degree[u]), lo, min(site, n-lo), stride)
		for _, v := range t.list {
			b.src = append(b.src, uint32(u))
			b.dst = append(b.dst, v)
		}
	}
	return b, nil
}

// check refuses a config Synthetic cannot honour and fills in SiteSize.
func (cfg *SyntheticConfig) check() error {
	n := cfg.Nodes
	if n < 2 || n > MaxNodes {
		return fmt.Errorf("rank: synthetic graph of %d nodes: want 2 to %d", n, MaxNodes)
	}
	if cfg.Edges < 0 || cfg.Edges > int64(n)*int64(n-1) {
		return fmt.Errorf("rank: synthetic graph of %d nodes cannot have %d edges", n, cfg.Edges)
	}
	if cfg.SiteSize <= 0 {
		cfg.SiteSize = 100
	}
	if cfg.Intra < 0 || cfg.Intra > 1 {
		return fmt.Errorf("rank: intra-site share %g not in [0, 1]", cfg.Intra)
	}
	return nil
}

// outDegrees draws every page's out-degree: its share of the links is
// Pareto(2), w = 1/sqrt(U), and the degrees are the differences of the
// rounded cumulative shares, so that they sum to cfg.Edges.
func outDegrees(cfg SyntheticConfig) []uint32 {
	n := cfg.Nodes
	weights := make([]float64, n)
	total := 0.0
	for u := range weights {
		w := 1 / math.Sqrt(splitmix.Open(splitmix.Hash2(cfg.Seed^0x5851f42d4c957f2d, uint64(u))))
		weights[u] = w
		total += w
	}
	// A page cannot link to more than the n − 1 others; the rest of its
	// share goes round to the next pages.
	degree := make([]uint32, n)
	cum, carried := 0.0, int64(0)
	for u, w := range weights {
		cum += w
		upto := int64(math.Round(cum / total * float64(cfg.Edges)))
		if u == n-1 {
			upto = cfg.Edges
		}
		d := upto - carried
		d = min(d, int64(n-1))
		degree[u] = uint32(d)
		carried += d
	}
	// What the cap left over goes to the pages with room, in turn.
	for u := 0; carried < cfg.Edges; u = (u + 1) % n {
		if int(degree[u]) < n-1 {
			degree[u]++
			carried++
		}
	}
	return degree
}

// popularityStride maps global popularity rank r to page r·stride mod n:
// a stride coprime to n spreads the popular pages over the sites.
func popularityStride(n int) uint64 {
	stride := uint64(n)/2 + 1
	for gcd(stride, uint64(n)) != 1 {
		stride++
	}
	return stride
}

// targets are the link targets of one page, kept in a set too once
// there are many of them.
type targets struct {
	list []uint32
	have map[uint32]struct{}
}

// taken says whether v is a target already.
func (t *targets) taken(v uint32) bool {
	if len(t.list) <= 32 {
		return slices.Contains(t.list, v)
	}
	if len(t.have) == 0 {
		for _, x := range t.list {
			t.have[x] = struct{}{}
		}
	}
	_, ok := t.have[v]
	return ok
}

// draw draws the d distinct targets of page u, whose site is the size
// pages from lo: within the site with probability cfg.Intra, towards
// its first pages; otherwise anywhere, by global popularity.
func (t *targets) draw(cfg SyntheticConfig, u, d, lo, size int, stride uint64) {
	n := cfg.Nodes
	t.list = t.list[:0]
	if t.have == nil {
		t.have = map[uint32]struct{}{}
	}
	clear(t.have)
	for k := uint64(0); len(t.list) < d; k++ {
		x := splitmix.Hash3(cfg.Seed, uint64(u), k)
		var v int
		if size > 1 && splitmix.Unit(x) < cfg.Intra && len(t.list) < size-1 {
			// Within the site: P(index ≤ i) = (i/size)^(1/3).
			f := splitmix.Unit(splitmix.Mix(x ^ 0x9e3779b97f4a7c15))
			v = lo + int(float64(size)*f*f*f)
		} else {
			// Rank r gets about r^-0.75 of the links.
			f := splitmix.Unit(splitmix.Mix(x ^ 0xbf58476d1ce4e5b9))
			r := uint64(float64(n) * math.Pow(f, 4))
			v = int((r * stride) % uint64(n))
		}
		if v == u || t.taken(uint32(v)) {
			if k <= uint64(64*d+1024) {
				continue
			}
			v = freeTarget(u, n, t.list) // a tiny graph nearly full: take any free page
		}
		t.list = append(t.list, uint32(v))
		if len(t.have) > 0 {
			t.have[uint32(v)] = struct{}{}
		}
	}
}

// freeTarget returns the first page other than u not in targets.
func freeTarget(u, n int, targets []uint32) int {
	for v := range n {
		if v != u && !slices.Contains(targets, uint32(v)) {
			return v
		}
	}
	panic("rank: no free target") // degree ≤ n − 1 rules this out
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
