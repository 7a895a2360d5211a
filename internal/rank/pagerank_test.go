package rank

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func build(t testing.TB, n int, edges [][2]uint32, opts BuildOptions) *Graph {
	t.Helper()
	var b Builder
	if n > 0 {
		b.AddNode(uint32(n - 1))
	}
	for _, e := range edges {
		b.AddEdge(e[0], e[1])
	}
	g, err := b.Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func solve(t testing.TB, g *Graph, opts Options) *Result {
	t.Helper()
	r, err := PageRank(g, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCycle: on a directed cycle every page has IR = 1, the fixed point
// of IR = (1 − d) + d · IR, from the first iteration on.
func TestCycle(t *testing.T) {
	var edges [][2]uint32
	for i := range uint32(7) {
		edges = append(edges, [2]uint32{i, (i + 1) % 7})
	}
	r := solve(t, build(t, 7, edges, BuildOptions{}), Options{})
	for v, x := range r.Rank {
		if x != 1 {
			t.Errorf("IR(%d) = %v, want 1", v, x)
		}
	}
	if !r.Converged || r.Iterations != 1 {
		t.Errorf("converged %v after %d iterations, want at once", r.Converged, r.Iterations)
	}
}

// TestStarClosedForm: k pages link to a centre that links nowhere. The
// centre is dangling, so under the dissertation's rule it links to all N =
// k + 1 pages, and with base b = (1 − d) + d·IR(c)/N the equations are
// IR(leaf) = b and IR(c) = b + d·k·b; Σ IR = N gives b = N/(N + d·k).
// Under the sink rule the centre passes nothing on: IR(leaf) = 1 − d and
// IR(c) = (1 − d)(1 + d·k).
func TestStarClosedForm(t *testing.T) {
	for _, k := range []int{1, 3, 10, 1000} {
		var edges [][2]uint32
		for i := 1; i <= k; i++ {
			edges = append(edges, [2]uint32{uint32(i), 0})
		}
		g := build(t, k+1, edges, BuildOptions{})
		for _, d := range []float64{0.5, 0.85, 0.9} {
			N := float64(k + 1)
			b := N / (N + d*float64(k))
			r := solve(t, g, Options{Damping: d, Tolerance: 1e-14})
			if got, want := r.Rank[0], b*(1+d*float64(k)); math.Abs(got-want) > 1e-9*want {
				t.Errorf("k=%d d=%g uniform: IR(centre) = %.12g, want %.12g", k, d, got, want)
			}
			if got := r.Rank[1]; math.Abs(got-b) > 1e-9 {
				t.Errorf("k=%d d=%g uniform: IR(leaf) = %.12g, want %.12g", k, d, got, b)
			}
			r = solve(t, g, Options{Damping: d, Tolerance: 1e-14, Dangling: DanglingSink})
			if got, want := r.Rank[0], (1-d)*(1+d*float64(k)); math.Abs(got-want) > 1e-9*want {
				t.Errorf("k=%d d=%g sink: IR(centre) = %.12g, want %.12g", k, d, got, want)
			}
			if got := r.Rank[1]; math.Abs(got-(1-d)) > 1e-12 {
				t.Errorf("k=%d d=%g sink: IR(leaf) = %.12g, want %.12g", k, d, got, 1-d)
			}
		}
	}
}

// randomGraph has dangling pages, self-links and repeated links.
func randomGraph(rng *rand.Rand, n, m int) [][2]uint32 {
	var edges [][2]uint32
	for range m {
		u := uint32(rng.IntN(n))
		if u%5 == 0 {
			continue // a fifth of the pages link nowhere
		}
		edges = append(edges, [2]uint32{u, uint32(rng.IntN(n))})
	}
	return edges
}

// exact solves the PageRank equations as a linear system, (I − d·P)·IR =
// (1 − d)·1, where P[v][u] is the share of u's rank that goes to v: the
// number of u → v links over u's out-degree, or 1/N for a dangling u
// under the uniform rule.
func exact(g *Graph, d float64, rule Dangling) []float64 { return exactInflow(g, d, rule, nil) }

// exactInflow is exact with rank flowing in from outside the graph: the
// right-hand side (1 − d) + d·inflow[v].
func exactInflow(g *Graph, d float64, rule Dangling, inflow []float64) []float64 {
	n := g.Nodes()
	a := mat.NewDense(n, n, nil)
	for v := range n {
		a.Set(v, v, 1)
	}
	for v := range n {
		for _, u := range g.In(uint32(v)) {
			a.Set(v, int(u), a.At(v, int(u))-d/float64(g.OutDegree(u)))
		}
	}
	if rule == DanglingUniform {
		for u := range n {
			if g.OutDegree(uint32(u)) == 0 {
				for v := range n {
					a.Set(v, u, a.At(v, u)-d/float64(n))
				}
			}
		}
	}
	rhs := mat.NewVecDense(n, nil)
	for v := range n {
		rhs.SetVec(v, 1-d)
		if v < len(inflow) {
			rhs.SetVec(v, 1-d+d*inflow[v])
		}
	}
	var x mat.VecDense
	if err := x.SolveVec(a, rhs); err != nil {
		panic(err)
	}
	return x.RawVector().Data
}

// TestBruteForce checks power iteration against the exact solution of the
// linear system on random graphs, under both dangling rules, with and
// without deduplication, and checks spec claim U4: under the
// dissertation's rule (unnormalised, d = 0.9, from 1, dangling pages link
// to all) Σ IR = T, the number of pages.
func TestBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 60 {
		n := 2 + rng.IntN(40)
		edges := randomGraph(rng, n, rng.IntN(4*n))
		for _, dedupe := range []bool{false, true} {
			g := build(t, n, edges, BuildOptions{Dedupe: dedupe})
			for _, rule := range []Dangling{DanglingUniform, DanglingSink} {
				d := []float64{0.5, 0.85, 0.9}[trial%3]
				r := solve(t, g, Options{Damping: d, Dangling: rule, Tolerance: 1e-15, MaxIterations: 2000, Workers: 1 + trial%3})
				want := exact(g, d, rule)
				sum := 0.0
				for v := range want {
					if math.Abs(r.Rank[v]-want[v]) > 1e-9 {
						t.Fatalf("trial %d n=%d dedupe=%v %v d=%g: IR(%d) = %.12g, exact %.12g", trial, n, dedupe, rule, d, v, r.Rank[v], want[v])
					}
					sum += r.Rank[v]
				}
				if rule == DanglingUniform && math.Abs(sum-float64(n)) > 1e-9 {
					t.Errorf("trial %d: Σ IR = %.12g, want T = %d", trial, sum, n)
				}
				if rule == DanglingSink && sum > float64(n)+1e-9 {
					t.Errorf("trial %d: Σ IR = %.12g under the sink rule, more than T = %d", trial, sum, n)
				}
			}
		}
	}
}

// TestInflow checks PageRank with rank flowing in from outside the graph
// (Options.Inflow: a cluster partition's links from the others) against
// the exact solution of IR = (1 − d) + d·(inflow + Σ IR(t)/c_t) on random
// graphs, and on pages with no links at all against the closed form
// (1 − d) + d·inflow.
func TestInflow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 30 {
		n := 2 + rng.IntN(30)
		g := build(t, n, randomGraph(rng, n, rng.IntN(3*n)), BuildOptions{Dedupe: true})
		inflow := make([]float64, n-1) // the last node has none
		for v := range inflow {
			if rng.IntN(3) == 0 {
				inflow[v] = 4 * rng.Float64()
			}
		}
		r := solve(t, g, Options{Dangling: DanglingSink, Inflow: inflow, Tolerance: 1e-15, MaxIterations: 2000})
		for v, want := range exactInflow(g, DefaultDamping, DanglingSink, inflow) {
			if math.Abs(r.Rank[v]-want) > 1e-9 {
				t.Fatalf("trial %d: IR(%d) = %.12g, exact %.12g", trial, v, r.Rank[v], want)
			}
		}
	}
	r := solve(t, build(t, 3, nil, BuildOptions{}), Options{Damping: 0.5, Dangling: DanglingSink, Inflow: []float64{0, 2, 6}})
	for v, want := range []float64{0.5, 1.5, 3.5} {
		if math.Abs(r.Rank[v]-want) > 1e-12 {
			t.Errorf("unlinked page %d: IR %g, want %g", v, r.Rank[v], want)
		}
	}
}

// TestDedupe: repeated links count once with Dedupe, in IB and in c.
func TestDedupe(t *testing.T) {
	edges := [][2]uint32{{0, 1}, {0, 1}, {0, 2}, {2, 1}, {2, 1}, {2, 1}, {1, 1}}
	multi := build(t, 3, edges, BuildOptions{})
	simple := build(t, 3, edges, BuildOptions{Dedupe: true})
	if got := []int{multi.InDegree(1), multi.OutDegree(0), multi.OutDegree(2)}; got[0] != 6 || got[1] != 3 || got[2] != 3 {
		t.Errorf("multigraph: IB(1), c(0), c(2) = %v, want [6 3 3]", got)
	}
	if got := []int{simple.InDegree(1), simple.OutDegree(0), simple.OutDegree(2)}; got[0] != 3 || got[1] != 2 || got[2] != 1 {
		t.Errorf("deduplicated: IB(1), c(0), c(2) = %v, want [3 2 1]", got)
	}
	if simple.Edges() != 4 {
		t.Errorf("deduplicated graph has %d edges, want 4", simple.Edges())
	}
	// Build leaves the builder as it was: a later snapshot sees new edges.
	var b Builder
	b.AddEdge(0, 1)
	g1, _ := b.Build(BuildOptions{})
	b.AddEdge(2, 1)
	g2, _ := b.Build(BuildOptions{})
	if g1.Nodes() != 2 || g2.Nodes() != 3 || g2.InDegree(1) != 2 {
		t.Errorf("snapshots: %d nodes then %d, IB(1) = %d", g1.Nodes(), g2.Nodes(), g2.InDegree(1))
	}
}

// TestWorkersAgree: the workers split nodes, not sums, so any number of
// them gives the same vector bit for bit.
func TestWorkersAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	edges := randomGraph(rng, 50000, 400000)
	g := build(t, 50000, edges, BuildOptions{})
	one := solve(t, g, Options{Workers: 1, Iterations: 20})
	for _, w := range []int{2, 3, 8} {
		r := solve(t, g, Options{Workers: w, Iterations: 20})
		for v := range r.Rank {
			if r.Rank[v] != one.Rank[v] {
				t.Fatalf("%d workers: IR(%d) = %v, one worker %v", w, v, r.Rank[v], one.Rank[v])
			}
		}
		if r.Delta != one.Delta {
			t.Errorf("%d workers: delta %v, one worker %v", w, r.Delta, one.Delta)
		}
	}
}

// TestWarmStart: started from the solution, the iteration stops at once;
// a Start shorter than the graph starts the new nodes at 1.
func TestWarmStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	g := build(t, 300, randomGraph(rng, 300, 2000), BuildOptions{})
	r := solve(t, g, Options{Tolerance: 1e-13})
	again := solve(t, g, Options{Tolerance: 1e-12, Start: r.Rank})
	if again.Iterations != 1 || !again.Converged {
		t.Errorf("from the solution: %d iterations, converged %v", again.Iterations, again.Converged)
	}
	part := solve(t, g, Options{Tolerance: 1e-13, Start: r.Rank[:100]})
	for v := range part.Rank {
		if math.Abs(part.Rank[v]-r.Rank[v]) > 1e-9 {
			t.Fatalf("from a partial start: IR(%d) = %v, want %v", v, part.Rank[v], r.Rank[v])
		}
	}
}

func TestOptionsErrors(t *testing.T) {
	g := build(t, 2, [][2]uint32{{0, 1}}, BuildOptions{})
	for _, d := range []float64{-0.1, 1, 1.5, math.NaN()} {
		if _, err := PageRank(g, Options{Damping: d}); !errors.Is(err, ErrDamping) {
			t.Errorf("damping %v: err %v, want ErrDamping", d, err)
		}
	}
	if _, err := PageRank(g, Options{Tolerance: -1}); err == nil {
		t.Error("negative tolerance accepted")
	}
	r, err := PageRank(&Graph{inStart: []int64{0}}, Options{})
	if err != nil || len(r.Rank) != 0 || !r.Converged {
		t.Errorf("empty graph: %v, %v", r, err)
	}
	if _, err := ParseDangling("all"); err == nil {
		t.Error(`ParseDangling("all") accepted`)
	}
	for _, d := range []Dangling{DanglingUniform, DanglingSink} {
		if got, err := ParseDangling(d.String()); err != nil || got != d {
			t.Errorf("ParseDangling(%q) = %v, %v", d.String(), got, err)
		}
	}
}
