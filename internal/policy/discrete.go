package policy

import (
	"errors"
	"fmt"
	"slices"
)

// DiscreteProblem is paper 002's discrete separable convex resource
// allocation problem (eqs. 5–7 and 19–21): choose integers x_i in
// [Min_i, Max_i] with Σ x_i = Total that minimise Σ Cost(i, x_i), where each
// Cost(i, ·) is convex (its first differences are non-decreasing).
type DiscreteProblem struct {
	// N is the number of pages.
	N int
	// Cost is F_i(x), e.g. w_i·𝒜_i(x). It is called with x in [Min_i, Max_i].
	Cost func(i, x int) float64
	// Min and Max bound each x_i; nil means 0 and Total.
	Min, Max []int
	// Total is R, the number of crawls to hand out.
	Total int
}

// ErrInfeasible reports bounds that admit no allocation: Σ Min > Total or
// Σ Max < Total (paper 002 §4.2).
var ErrInfeasible = errors.New("policy: no allocation meets the bounds")

// ErrNotConvex reports costs whose first differences are NaN or not
// non-decreasing, which Threshold detects when its search stops shrinking.
var ErrNotConvex = errors.New("policy: costs are not convex")

// pageBounds returns each page's bounds with the defaults filled in,
// after checking that each admits a value.
func (p DiscreteProblem) pageBounds() (lo, hi []int, err error) {
	lo, hi = make([]int, p.N), make([]int, p.N)
	for i := range p.N {
		hi[i] = p.Total
		if p.Min != nil {
			lo[i] = p.Min[i]
		}
		if p.Max != nil {
			hi[i] = min(p.Max[i], lo[i]+p.Total)
		}
		if lo[i] < 0 || hi[i] < lo[i] {
			return nil, nil, fmt.Errorf("%w: page %d bounded to [%d, %d]", ErrInfeasible, i, lo[i], hi[i])
		}
	}
	return lo, hi, nil
}

// bounds is pageBounds, after checking that the bounds admit an
// allocation of exactly Total crawls.
func (p DiscreteProblem) bounds() (lo, hi []int, err error) {
	lo, hi, err = p.pageBounds()
	if err != nil {
		return nil, nil, err
	}
	var slo, shi int
	for i := range lo {
		slo += lo[i]
		shi += hi[i]
	}
	if p.Total < 0 || slo > p.Total || shi < p.Total {
		return nil, nil, fmt.Errorf("%w: %d crawls, bounds sum to [%d, %d]", ErrInfeasible, p.Total, slo, shi)
	}
	return lo, hi, nil
}

// delta is the first difference D_{i,j} = F_i(j+1) − F_i(j).
func (p DiscreteProblem) delta(i, j int) float64 { return p.Cost(i, j+1) - p.Cost(i, j) }

// Greedy solves p by Fox's marginal analysis (paper 002 §4.2, eqs. 19–21):
// start every x_i at its minimum and hand out the crawls one at a time to
// the page whose next crawl lowers the cost most, kept in a binary heap.
// It is exact for convex costs and takes O(N + R log N) time.
func Greedy(p DiscreteProblem) ([]int, error) {
	x, hi, err := p.bounds()
	if err != nil {
		return nil, err
	}
	need := p.Total
	for _, v := range x {
		need -= v
	}
	marginal(p, x, hi, need, nil, nil)
	return x, nil
}

// GreedyCapped solves p with host caps as well: Σ_{i∈h} x_i ≤ caps[h]
// crawls per period for every host h, of[i] being page i's host (negative
// for none; of nil for all). The paper bounds each page by M_i to protect
// small sites (§4.2); a host's cap protects the site whatever number of
// pages it has.
//
// It is Greedy skipping pages whose host is full. Per-page and per-host
// upper bounds form a laminar family, so the allocations with Σx = R are
// the integer points of a polymatroid's base, over which greedy is exact
// for separable convex costs (Federgruen and Groenevelt, 1986), and each
// prefix of the greedy is optimal for its own total. So when the bounds
// and caps allow fewer than Total crawls it returns the optimum for as
// many as they allow, and the caller sees Σx < Total. It takes
// O(N + (R + N) log N) time.
func GreedyCapped(p DiscreteProblem, of []int32, caps []int) ([]int, error) {
	if of != nil && len(of) != p.N {
		return nil, fmt.Errorf("%w: hosts for %d pages, want %d", ErrInput, len(of), p.N)
	}
	x, hi, err := p.pageBounds()
	if err != nil {
		return nil, err
	}
	left := p.Total
	room := slices.Clone(caps) // crawls each host can still take
	for i := range p.N {
		left -= x[i]
		if of != nil && of[i] >= 0 {
			if int(of[i]) >= len(caps) {
				return nil, fmt.Errorf("%w: page %d on host %d of %d", ErrInput, i, of[i], len(caps))
			}
			room[of[i]] -= x[i]
		}
	}
	if left < 0 {
		return nil, fmt.Errorf("%w: minimums exceed %d crawls", ErrInfeasible, p.Total)
	}
	for h, r := range room {
		if r < 0 {
			return nil, fmt.Errorf("%w: host %d's minimums exceed its cap %d", ErrInfeasible, h, caps[h])
		}
	}
	marginal(p, x, hi, left, of, room)
	return x, nil
}

// marginal is Fox's marginal analysis from x: it hands out up to need
// crawls one at a time to the page below its bound hi whose next crawl
// lowers the cost most, kept in a binary heap, skipping pages whose host
// (of, if not nil) has no room left, and counting each crawl off its
// host's room.
func marginal(p DiscreteProblem, x, hi []int, need int, of []int32, room []int) {
	host := func(i int32) int {
		if of == nil {
			return -1
		}
		return int(of[i])
	}
	// h is a min-heap of pages by their next marginal d[i].
	h := make([]int32, 0, p.N)
	d := make([]float64, p.N)
	for i := range p.N {
		if x[i] < hi[i] && (host(int32(i)) < 0 || room[host(int32(i))] > 0) {
			d[i] = p.delta(i, x[i])
			h = append(h, int32(i))
		}
	}
	less := func(a, b int32) bool { return d[a] < d[b] || d[a] == d[b] && a < b }
	down := func(k int) {
		for {
			c := 2*k + 1
			if c >= len(h) {
				return
			}
			if c+1 < len(h) && less(h[c+1], h[c]) {
				c++
			}
			if !less(h[c], h[k]) {
				return
			}
			h[k], h[c] = h[c], h[k]
			k = c
		}
	}
	for k := len(h)/2 - 1; k >= 0; k-- {
		down(k)
	}
	for need > 0 && len(h) > 0 {
		i := h[0]
		g := host(i)
		if g >= 0 && room[g] == 0 { // host full: the page is done
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
			down(0)
			continue
		}
		x[i]++
		need--
		if g >= 0 {
			room[g]--
		}
		if x[i] < hi[i] {
			d[i] = p.delta(int(i), x[i])
		} else {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
}
