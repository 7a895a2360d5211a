package rank

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Dangling says what PageRank does with the rank of a page without
// out-links.
type Dangling uint8

const (
	// DanglingUniform treats a page without out-links as linking to every
	// page, itself included (dissertation §2.2.1 / spec 1.3): the surfer
	// at a dead end jumps anywhere. Σ IR stays the number of pages.
	DanglingUniform Dangling = iota
	// DanglingSink lets a page without out-links pass nothing on: its
	// rank leaves the system. The choice for the frontier of a partial
	// crawl, whose out-links are not known yet (spec 1.3, "IR' on a
	// partial crawl"): a frontier URL's IR' comes from its known in-links
	// alone. Σ IR falls below the number of pages.
	DanglingSink
)

// String names the rule as the rank command's -dangling flag does.
func (d Dangling) String() string {
	switch d {
	case DanglingUniform:
		return "uniform"
	case DanglingSink:
		return "sink"
	}
	return fmt.Sprintf("Dangling(%d)", uint8(d))
}

// ParseDangling reads "uniform" or "sink".
func ParseDangling(s string) (Dangling, error) {
	switch s {
	case "uniform":
		return DanglingUniform, nil
	case "sink":
		return DanglingSink, nil
	}
	return 0, fmt.Errorf("dangling rule %q: want uniform or sink", s)
}

// Defaults of PageRank's options.
const (
	// DefaultDamping is d of every experiment in dissertation ch. 2: the
	// surfer follows a link with probability 0.9 and jumps with 0.1.
	DefaultDamping       = 0.9
	DefaultTolerance     = 1e-10
	DefaultMaxIterations = 200
)

// Options steer PageRank. Zero fields take the defaults.
type Options struct {
	// Damping is d in IR(p) = (1 − d) + d · Σ IR(t_i)/c_i, in (0, 1).
	// Zero means DefaultDamping.
	Damping float64
	// Tolerance stops the iteration once the L1 distance between two
	// successive normalised rank vectors (each summing to about 1) is
	// below it. Zero means DefaultTolerance.
	Tolerance float64
	// MaxIterations bounds the iterations when the tolerance is not met.
	// Zero means DefaultMaxIterations.
	MaxIterations int
	// Iterations, if positive, runs exactly that many iterations and
	// ignores Tolerance: for timing, and for a crawler that refreshes its
	// ranks a step at a time.
	Iterations int
	Dangling   Dangling
	// Start, if given, is the vector to iterate from (unnormalised, as
	// Result.Rank), e.g. the ranks of an earlier snapshot; nodes past its
	// end start at 1. Nil starts every node at 1, as the dissertation does.
	Start []float64
	// Workers is how many goroutines share each iteration. Zero means
	// GOMAXPROCS.
	Workers int
	// Inflow, if given, is the rank flowing into each node from pages
	// outside the graph, Σ IR(t)/c_t over its in-links from them: IR(p) =
	// (1 − d) + d · (Inflow[p] + Σ IR(t)/c_t). A cluster's partition knows
	// only the number of such links, from the others' [URL, count]
	// messages, and counts each as from a page of average rank (IR 1)
	// with its own pages' mean out-degree. Nodes past its end have none.
	Inflow []float64
}

// Result is a PageRank solution.
type Result struct {
	// Rank is IR, the dissertation's unnormalised PageRank: under
	// DanglingUniform it sums to the number of pages, so the average page
	// has 1 and a threshold G means G times the average. Rank[v]/Nodes is
	// the normalised PageRank, the surfer's probability of being at v.
	Rank       []float64
	Iterations int
	Delta      float64 // L1 distance of the last step, normalised
	Converged  bool    // Delta fell below the tolerance
}

// Normalised returns Rank scaled to sum to 1 over the nodes (under
// DanglingUniform; less under DanglingSink), as most PageRank software
// reports it.
func (r *Result) Normalised() []float64 {
	out := make([]float64, len(r.Rank))
	n := float64(len(r.Rank))
	for i, x := range r.Rank {
		out[i] = x / n
	}
	return out
}

// ErrDamping is returned for a damping factor outside (0, 1).
var ErrDamping = errors.New("rank: damping must be in (0, 1)")

// PageRank solves IR(p) = (1 − d) + d · Σ_{t → p} IR(t)/c_t over g by power
// iteration from IR ≡ 1 (dissertation §2.2.1), pulling each node's sum
// over its in-links, the nodes shared among workers.
func PageRank(g *Graph, opts Options) (*Result, error) {
	d, tol, maxIter, err := opts.settings()
	if err != nil {
		return nil, err
	}
	n := g.Nodes()
	res := &Result{Rank: make([]float64, n)}
	if n == 0 {
		res.Converged = true
		return res, nil
	}
	cur := res.Rank
	for v := range cur {
		cur[v] = 1
	}
	if opts.Start != nil {
		copy(cur, opts.Start[:min(len(opts.Start), n)])
	}
	next := make([]float64, n)
	pw := newPower(g, d, opts)
	inv := 1 / float64(n)
	for it := 1; it <= maxIter; it++ {
		delta := pw.step(cur, next)
		cur, next = next, cur
		res.Iterations = it
		res.Delta = delta * inv
		if opts.Iterations <= 0 && res.Delta < tol {
			res.Converged = true
			break
		}
	}
	if &cur[0] != &res.Rank[0] {
		copy(res.Rank, cur)
	}
	if opts.Iterations > 0 {
		res.Converged = res.Delta < tol
	}
	return res, nil
}

// settings returns the damping, tolerance and iteration bound opts ask
// for, the defaults filled in.
func (opts Options) settings() (d, tol float64, maxIter int, err error) {
	d = opts.Damping
	if d == 0 {
		d = DefaultDamping
	}
	if !(d > 0 && d < 1) {
		return 0, 0, 0, fmt.Errorf("%w: %g", ErrDamping, d)
	}
	tol = opts.Tolerance
	if tol == 0 {
		tol = DefaultTolerance
	}
	if tol < 0 || math.IsNaN(tol) {
		return 0, 0, 0, fmt.Errorf("rank: tolerance %g", tol)
	}
	maxIter = opts.MaxIterations
	if maxIter == 0 {
		maxIter = DefaultMaxIterations
	}
	if opts.Iterations > 0 {
		maxIter = opts.Iterations
	}
	return d, tol, maxIter, nil
}

// power is the power iteration's working state over one graph.
type power struct {
	g        *Graph
	d        float64
	dangling Dangling
	workers  int
	// chunks are the node ranges the workers share. They do not depend
	// on the workers, so neither do the sums: any number of workers
	// gives the same vector, bit for bit.
	chunks  []int
	contrib []float64 // IR(t)/c_t, or 0 for a dangling t
	inflow  []float64 // Options.Inflow
}

func newPower(g *Graph, d float64, opts Options) *power {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &power{g: g, d: d, dangling: opts.Dangling, workers: workers, chunks: g.chunks(256),
		contrib: make([]float64, g.Nodes()), inflow: opts.Inflow}
}

// step computes next from cur and returns the L1 distance between them.
func (pw *power) step(cur, next []float64) float64 {
	g, d, contrib := pw.g, pw.d, pw.contrib
	// Pass 1: contributions, and the rank held by dangling pages.
	dangling := parallelSum(pw.workers, pw.chunks, func(lo, hi int) float64 {
		s := 0.0
		for u := lo; u < hi; u++ {
			if c := g.outDeg[u]; c > 0 {
				contrib[u] = cur[u] / float64(c)
			} else {
				contrib[u] = 0
				s += cur[u]
			}
		}
		return s
	})
	base := 1 - d
	if pw.dangling == DanglingUniform {
		base += d * dangling * (1 / float64(len(cur)))
	}
	// Pass 2: pull, and the L1 change.
	return parallelSum(pw.workers, pw.chunks, func(lo, hi int) float64 {
		s := 0.0
		for v := lo; v < hi; v++ {
			sum := 0.0
			for _, u := range g.inSrc[g.inStart[v]:g.inStart[v+1]] {
				sum += contrib[u]
			}
			if v < len(pw.inflow) {
				sum += pw.inflow[v]
			}
			x := base + d*sum
			s += math.Abs(x - cur[v])
			next[v] = x
		}
		return s
	})
}

// chunks splits the nodes into about k ranges of about equal work (nodes
// plus in-links), as boundaries lo_0 = 0 < lo_1 < ... < lo_m = n.
func (g *Graph) chunks(k int) []int {
	n := g.Nodes()
	total := int64(n) + g.Edges()
	bounds := []int{0}
	per := max(total/int64(k), 1024)
	next := per
	for v := 0; v < n; v++ {
		if int64(v)+g.inStart[v] >= next {
			bounds = append(bounds, v)
			next += per
		}
	}
	return append(bounds, n)
}

// parallelSum runs fn over the ranges of bounds on workers goroutines and
// returns the sum of its results.
func parallelSum(workers int, bounds []int, fn func(lo, hi int) float64) float64 {
	m := len(bounds) - 1
	if workers <= 1 || m <= 1 {
		s := 0.0
		for i := 0; i < m; i++ {
			s += fn(bounds[i], bounds[i+1])
		}
		return s
	}
	sums := make([]float64, m)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, m) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= m {
					return
				}
				sums[i] = fn(bounds[i], bounds[i+1])
			}
		}()
	}
	wg.Wait()
	s := 0.0
	for _, x := range sums { // in range order: the same sum every run
		s += x
	}
	return s
}
