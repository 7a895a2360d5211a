package schedule

import (
	"fmt"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// CappedGreedy solves paper 002's discrete allocation problem p
// (policy.DiscreteProblem: integers x_i in [Min_i, Max_i] summing to Total,
// minimising Σ Cost(i, x_i), each Cost convex) with host caps as well:
// Σ_{i∈h} x_i ≤ caps[h] crawls per period for every host h, of[i] being
// page i's host (NoHost for none; nil for all). The paper bounds each page
// by M_i to protect small sites (§4.2); a host's cap protects the site
// whatever number of pages it has.
//
// It is Fox's marginal analysis, as policy.Greedy: hand out the crawls one
// at a time to the page whose next crawl lowers the cost most, skipping
// pages whose host is full. Per-page and per-host upper bounds form a
// laminar family, so the allocations with Σx = R are the integer points of
// a polymatroid's base, over which greedy is exact for separable convex
// costs (Federgruen and Groenevelt, 1986), and each prefix of the greedy
// is optimal for its own total. So when the caps allow fewer than Total
// crawls it returns the optimum for as many as they allow; the caller sees
// Σx < Total. It takes O(N + (R + N) log N) time.
func CappedGreedy(p policy.DiscreteProblem, of []int32, caps []int) ([]int, error) {
	if of != nil && len(of) != p.N {
		return nil, fmt.Errorf("%w: hosts for %d pages, want %d", policy.ErrInput, len(of), p.N)
	}
	x, hi, left := make([]int, p.N), make([]int, p.N), p.Total
	room := make([]int, len(caps)) // crawls each host can still take
	copy(room, caps)
	for i := range p.N {
		hi[i] = p.Total
		if p.Min != nil {
			x[i] = p.Min[i]
		}
		if p.Max != nil {
			hi[i] = min(p.Max[i], x[i]+p.Total)
		}
		if x[i] < 0 || hi[i] < x[i] {
			return nil, fmt.Errorf("%w: page %d bounded to [%d, %d]", policy.ErrInfeasible, i, x[i], hi[i])
		}
		left -= x[i]
		if of != nil && of[i] >= 0 {
			if int(of[i]) >= len(caps) {
				return nil, fmt.Errorf("%w: page %d on host %d of %d", policy.ErrInput, i, of[i], len(caps))
			}
			room[of[i]] -= x[i]
		}
	}
	if left < 0 {
		return nil, fmt.Errorf("%w: minimums exceed %d crawls", policy.ErrInfeasible, p.Total)
	}
	for h, r := range room {
		if r < 0 {
			return nil, fmt.Errorf("%w: host %d's minimums exceed its cap %d", policy.ErrInfeasible, h, caps[h])
		}
	}
	host := func(i int32) int {
		if of == nil {
			return -1
		}
		return int(of[i])
	}
	// h is a min-heap of pages by their next marginal d[i].
	d := make([]float64, p.N)
	h := make([]int32, 0, p.N)
	for i := range p.N {
		if x[i] < hi[i] && (host(int32(i)) < 0 || room[host(int32(i))] > 0) {
			d[i] = p.Cost(i, x[i]+1) - p.Cost(i, x[i])
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
	for left > 0 && len(h) > 0 {
		i := h[0]
		g := host(i)
		if g >= 0 && room[g] == 0 { // host full: the page is done
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
			down(0)
			continue
		}
		x[i]++
		left--
		if g >= 0 {
			room[g]--
		}
		if x[i] < hi[i] {
			d[i] = p.Cost(int(i), x[i]+1) - p.Cost(int(i), x[i])
		} else {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
	return x, nil
}
