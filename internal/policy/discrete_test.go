package policy

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// bruteForce solves p by dynamic programming over pages and crawls used,
// O(N R²) (the reference of paper 002 §4.2 and spec B.10 item 2).
func bruteForce(p DiscreteProblem) (float64, bool) {
	lo, hi, err := p.bounds()
	if err != nil {
		return 0, false
	}
	inf := math.Inf(1)
	best := make([]float64, p.Total+1)
	for k := range best {
		best[k] = inf
	}
	best[0] = 0
	for i := range p.N {
		next := make([]float64, p.Total+1)
		for k := range next {
			next[k] = inf
			for x := lo[i]; x <= hi[i] && x <= k; x++ {
				if best[k-x] < inf {
					next[k] = min(next[k], best[k-x]+p.Cost(i, x))
				}
			}
		}
		best = next
	}
	return best[p.Total], best[p.Total] < inf
}

// total is Σ Cost(i, x_i), after checking the bounds and the sum.
func total(t *testing.T, p DiscreteProblem, x []int) float64 {
	t.Helper()
	lo, hi, _ := p.bounds()
	var s float64
	n := 0
	for i, v := range x {
		if v < lo[i] || v > hi[i] {
			t.Fatalf("x[%d] = %d outside [%d, %d]", i, v, lo[i], hi[i])
		}
		n += v
		s += p.Cost(i, v)
	}
	if n != p.Total {
		t.Fatalf("Σx = %d, want %d", n, p.Total)
	}
	return s
}

// randomConvex is a random convex cost table: first differences drawn and
// sorted, from a few integers so that ties are common.
func randomConvex(rng *rand.Rand, n, size int) [][]float64 {
	c := make([][]float64, n)
	for i := range c {
		d := make([]float64, size)
		for j := range d {
			d[j] = float64(rng.IntN(9) - 6)
		}
		for j := 1; j < size; j++ { // sort ascending: convex
			for k := j; k > 0 && d[k] < d[k-1]; k-- {
				d[k], d[k-1] = d[k-1], d[k]
			}
		}
		c[i] = make([]float64, size+1)
		for j := range d {
			c[i][j+1] = c[i][j] + d[j]
		}
	}
	return c
}

// TestDiscreteBruteForce checks Greedy and Threshold against dynamic
// programming on 400 tiny random instances with ties and bounds; costs are
// small integers, so the optima must agree exactly.
func TestDiscreteBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 400 {
		n, r := 1+rng.IntN(5), rng.IntN(13)
		table := randomConvex(rng, n, r+3)
		p := DiscreteProblem{N: n, Total: r, Cost: func(i, x int) float64 { return table[i][x] }}
		if trial%2 == 1 {
			p.Min, p.Max = make([]int, n), make([]int, n)
			for i := range n {
				p.Min[i] = rng.IntN(2)
				p.Max[i] = p.Min[i] + rng.IntN(r+2)
			}
		}
		want, ok := bruteForce(p)
		for _, solve := range []struct {
			name string
			fn   func(DiscreteProblem) ([]int, error)
		}{{"greedy", Greedy}, {"threshold", Threshold}} {
			x, err := solve.fn(p)
			if !ok {
				if !errors.Is(err, ErrInfeasible) {
					t.Fatalf("trial %d %s: %v, want ErrInfeasible", trial, solve.name, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("trial %d %s: %v", trial, solve.name, err)
			}
			if got := total(t, p, x); got != want {
				t.Fatalf("trial %d %s: cost %g, brute force %g (x = %v)", trial, solve.name, got, want, x)
			}
		}
	}
}

// TestGreedyVsThreshold checks that both solvers reach the same objective
// (relative 1e-12: they sum the same marginals in different orders) on
// larger Poisson staleness instances (paper 002 eq. 14), with and without
// a per-page cap.
func TestGreedyVsThreshold(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, tt := range []struct {
		n, perPage, cap int
	}{{2000, 2, 0}, {2000, 20, 0}, {500, 5, 8}, {3000, 1, 0}} {
		t.Run(fmt.Sprintf("N=%d,R/N=%d,cap=%d", tt.n, tt.perPage, tt.cap), func(t *testing.T) {
			pages := randomPages(rng, tt.n, true)
			e := Embarrassment{MaxPerPage: tt.cap}
			p, err := e.Problem(pages, float64(tt.n*tt.perPage)/day)
			if err != nil {
				t.Fatal(err)
			}
			xg, err := Greedy(p)
			if err != nil {
				t.Fatal(err)
			}
			xt, err := Threshold(p)
			if err != nil {
				t.Fatal(err)
			}
			if g, th := total(t, p, xg), total(t, p, xt); relErr(th, g) > 1e-12 {
				t.Errorf("greedy %.15g, threshold %.15g", g, th)
			}
		})
	}
	// Bounds that admit nothing (spec B.10 item 4).
	p := DiscreteProblem{N: 2, Total: 3, Cost: func(i, x int) float64 { return 0 }, Min: []int{2, 2}}
	if _, err := Threshold(p); !errors.Is(err, ErrInfeasible) {
		t.Errorf("Σ Min > R: %v", err)
	}
	p = DiscreteProblem{N: 2, Total: 3, Cost: func(i, x int) float64 { return 0 }, Max: []int{1, 1}}
	if _, err := Greedy(p); !errors.Is(err, ErrInfeasible) {
		t.Errorf("Σ Max < R: %v", err)
	}
}
