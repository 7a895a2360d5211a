package policy

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// discreteBrute is the best allocation of at most total crawls (exactly
// total if the caps allow it, else as many as they allow) by enumerating
// every vector within the bounds and caps.
func discreteBrute(p DiscreteProblem, of []int32, caps []int) (best float64, sum int) {
	x := make([]int, p.N)
	best, sum = math.Inf(1), -1
	var rec func(i, left int)
	rec = func(i, left int) {
		if i == p.N {
			used := make([]int, len(caps))
			for k, h := range of {
				if h >= 0 {
					used[h] += x[k]
				}
			}
			for h := range caps {
				if used[h] > caps[h] {
					return
				}
			}
			s, cost := p.Total-left, 0.0
			for k := range x {
				cost += p.Cost(k, x[k])
			}
			if s > sum || s == sum && cost < best {
				best, sum = cost, s
			}
			return
		}
		hi := left
		if p.Max != nil {
			hi = min(hi, p.Max[i])
		}
		for v := 0; v <= hi; v++ {
			x[i] = v
			rec(i+1, left-v)
		}
	}
	rec(0, p.Total)
	return best, sum
}

// TestGreedyCappedBruteForce compares GreedyCapped with discreteBrute on
// 500 random problems of 2 to 4 pages on up to 2 capped hosts (and pages on
// no host), with paper 002's Poisson staleness costs w_i·𝒜_i(x)
// (Embarrassment's Problem) and per-page maximums, up to 8 crawls:
// the same number of crawls handed out and the same cost within 1e-12.
func TestGreedyCappedBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 16))
	short := 0
	for trial := range 500 {
		n, nh := 2+rng.IntN(3), 1+rng.IntN(2)
		pages := make([]Page, n)
		of := make([]int32, n)
		for i := range pages {
			pages[i] = Page{Rate: math.Exp(rng.NormFloat64()) / day, Weight: math.Exp(rng.NormFloat64())}
			of[i] = int32(rng.IntN(nh+1)) - 1
		}
		caps := make([]int, nh)
		for h := range caps {
			caps[h] = rng.IntN(5)
		}
		total := 1 + rng.IntN(8)
		p, err := Embarrassment{MaxPerPage: 1 + rng.IntN(6)}.Problem(pages, float64(total)/day)
		if err != nil {
			t.Fatal(err)
		}
		x, err := GreedyCapped(p, of, caps)
		if err != nil {
			t.Fatal(err)
		}
		want, wantSum := discreteBrute(p, of, caps)
		var got float64
		sum := 0
		for i, v := range x {
			got += p.Cost(i, v)
			sum += v
		}
		if sum < total {
			short++
		}
		if sum != wantSum || math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Fatalf("trial %d: %v (%d crawls, cost %.15g); brute force %d crawls, cost %.15g\npages %v hosts %v caps %v max %v",
				trial, x, sum, got, wantSum, want, pages, of, caps, p.Max)
		}
	}
	if short == 0 || short > 400 {
		t.Errorf("%d of 500 problems could not spend their crawls: want some, not most", short)
	}
}

// TestGreedyCappedInfeasible checks that minimums over a host's cap are
// reported.
func TestGreedyCappedInfeasible(t *testing.T) {
	p := DiscreteProblem{N: 2, Total: 4, Min: []int{2, 2}, Cost: func(i, x int) float64 { return 0 }}
	if _, err := GreedyCapped(p, []int32{0, 0}, []int{3}); !errors.Is(err, ErrInfeasible) {
		t.Errorf("err = %v, want ErrInfeasible", err)
	}
}
