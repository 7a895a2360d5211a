package ch3

// The experiments of ch. 3 (§3.6–3.9), each a set of parallel crawls of
// one World; claims.go sets what they measure against the paper.

import (
	"cmp"
	"slices"
	"sync"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
	"github.com/freshcrawl/freshcrawl/internal/rank"
)

// seedsPerProc is §3.6's: each C-proc starts from 5 random pages of its
// partition.
const seedsPerProc = 5

// lab runs the experiments on one web.
type lab struct {
	w     *World
	seed  uint64
	ib    []float64  // IB of each page
	mu    sync.Mutex // guards parts: experiments run at once
	parts map[cluster.Partitioner][]int32
}

func newLab(w *World, seed uint64) *lab {
	return &lab{w: w, seed: seed, ib: w.Backlinks(), parts: map[cluster.Partitioner][]int32{}}
}

// partition returns each page's partition under scheme with n
// partitions.
func (l *lab) partition(scheme cluster.Scheme, n int) []int32 {
	p := cluster.Partitioner{Scheme: scheme, N: n}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.parts[p] == nil {
		l.parts[p] = l.w.Partition(p)
	}
	return l.parts[p]
}

// firewall returns the coverage of a firewall crawl of w by n C-procs,
// site-hash, from s seeds in all (Fig. 3.4, 3.5), and its overlap.
func (l *lab) firewall(w *World, n, s int) (cov, overlap float64, err error) {
	var part []int32
	if w == l.w {
		part = l.partition(cluster.BySite, n)
	} else {
		part = w.Partition(cluster.Partitioner{Scheme: cluster.BySite, N: n})
	}
	r, err := Crawl(w, Setup{Mode: cluster.ModeFirewall, Part: part, Seeds: RandomSeeds(part, n, s, l.seed)})
	if err != nil {
		return 0, 0, err
	}
	return r.Coverage(), r.Overlap(), nil
}

// exchange runs an exchange crawl to the end with immediate transfer
// (§3.8): n C-procs under scheme, 5 seeds each, links to the top k pages
// by backlinks replicated.
func (l *lab) exchange(scheme cluster.Scheme, n, k int) (*Result, error) {
	part := l.partition(scheme, n)
	s := Setup{Mode: cluster.ModeExchange, Part: part, Seeds: RandomSeeds(part, n, seedsPerProc*n, l.seed), Every: 1}
	if k > 0 {
		var urls []string
		for _, v := range rank.TopK(l.ib, k) {
			urls = append(urls, l.w.URL[v])
		}
		s.Replicated = cluster.NewReplicated(urls)
	}
	return Crawl(l.w, s)
}

// crossCurve is what a cross-over crawl's overlap does as its coverage
// grows (Fig. 3.6).
type crossCurve struct {
	// Onset is the coverage when the overlap first leaves 0.
	Onset float64
	// Final is the coverage at the end, and Overlap the overlap when
	// coverage first reached it.
	Final, Overlap float64
	// End is the overlap at the end of the crawl.
	End float64
	// AtFirewall is the overlap when coverage first reached firewall's.
	AtFirewall float64
}

// crossOver runs a cross-over crawl to the end: n C-procs, site-hash, 5
// seeds each; firewall is the coverage of the firewall crawl from the
// same seeds.
func (l *lab) crossOver(n int, firewall float64) (crossCurve, error) {
	part := l.partition(cluster.BySite, n)
	var curve []cluster.Counts
	r, err := Crawl(l.w, Setup{Mode: cluster.ModeCrossOver, Part: part, Seeds: RandomSeeds(part, n, seedsPerProc*n, l.seed),
		Observe: func(c cluster.Counts) { curve = append(curve, c) }})
	if err != nil {
		return crossCurve{}, err
	}
	out := crossCurve{Onset: r.Coverage(), Final: r.Coverage(), End: r.Overlap(), Overlap: r.Overlap()}
	if i := slices.IndexFunc(curve, func(c cluster.Counts) bool { return c.Downloads > c.Unique }); i >= 0 {
		out.Onset = curve[max(i-1, 0)].Coverage()
	}
	if i := slices.IndexFunc(curve, func(c cluster.Counts) bool { return c.Unique == r.Unique }); i >= 0 {
		out.Overlap = curve[i].Overlap()
	}
	if i := slices.IndexFunc(curve, func(c cluster.Counts) bool { return c.Coverage() >= firewall }); i >= 0 {
		out.AtFirewall = curve[i].Overlap()
	}
	return out, nil
}

// qualityRun is one crawl of the quality experiments (§3.9).
type qualityRun struct {
	PCS       float64 // P_CS at the budget, I = IB
	Pairs     float64 // [URL, count] pairs sent per page downloaded
	Exchanges int
	// Merged and Resent are the shares of the pairs that carried merged
	// counts and that resent a URL (Result's).
	Merged, Resent float64
}

// quality runs n C-procs, site-hash, 5 seeds each, ordered by IB', to a
// budget of a share of the pages, exchanging [URL, count] batches x times
// spread evenly over the crawl (x = 0 is firewall mode); n = 1 is the
// single process, with the seeds of n C-procs given as seedsOf.
func (l *lab) quality(n, seedsOf int, budget float64, x int) (qualityRun, error) {
	part := l.partition(cluster.BySite, n)
	seeds := RandomSeeds(l.partition(cluster.BySite, seedsOf), seedsOf, seedsPerProc*seedsOf, l.seed)
	if n == 1 {
		seeds = [][]uint32{slices.Concat(seeds...)}
	}
	k := max(1, int(budget*float64(l.w.Pages())))
	s := Setup{Mode: cluster.ModeFirewall, Part: part, Seeds: seeds, Budget: k, Backlink: true}
	if x > 0 {
		s.Mode, s.Exchanges = cluster.ModeExchange, x
	}
	r, err := Crawl(l.w, s)
	if err != nil {
		return qualityRun{}, err
	}
	q := qualityRun{PCS: PCS(r.Order, l.ib, k), Pairs: r.Communication(), Exchanges: r.Exchanges}
	if r.Exchanged > 0 {
		q.Merged, q.Resent = float64(r.Merged)/float64(r.Exchanged), float64(r.Resent)/float64(r.Exchanged)
	}
	return q, nil
}

// PCS is Crawl & Stop's quality (dissertation §2.3, used by §3.9): of
// the k pages a crawler may download, the share it did download among the
// k most important, a page tied with the k-th counting as among them.
// visited holds the distinct pages downloaded.
func PCS(visited []uint32, importance []float64, k int) float64 {
	if k <= 0 {
		return 0
	}
	desc := slices.Clone(importance)
	slices.SortFunc(desc, func(a, b float64) int { return cmp.Compare(b, a) })
	hot := desc[min(k, len(desc))-1]
	m := 0
	for _, v := range visited {
		if importance[v] >= hot {
			m++
		}
	}
	return float64(m) / float64(k)
}
