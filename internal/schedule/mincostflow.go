package schedule

import (
	"errors"
	"fmt"
	"math"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// Network is a min-cost flow problem with integer capacities, costs and
// supplies: route every node's supply to the nodes with demand at least
// total cost, no arc over its capacity. It is the solver behind
// AssignCrawls, paper 002's crawler scheduling as a transportation problem
// (spec B.6), which the paper solved with IBM's OSL network code; no such
// solver is in the module proxy, so this one is written here.
//
// Solve runs successive shortest paths with Johnson potentials, one supply
// node at a time, as the Hungarian method adds one row at a time: the flow
// routed so far is always optimal for the supplies added so far, and each
// new unit takes a shortest path in the residual network, found by
// Dijkstra's algorithm on reduced costs, stopped as soon as it reaches a
// node with unmet demand. On the scheduling networks, whose shortest paths
// are short, each search stays near its source.
type Network struct {
	head   []int32 // first arc out of each node, −1 for none
	next   []int32 // next arc out of the same node
	to     []int32
	res    []int64 // residual capacity; arc a's reverse is a^1
	cost   []int64
	supply []int64
	solved bool
}

// ErrInfeasible reports supplies that the network cannot route to the
// demands: a demand node out of reach of some supply, or more supply than
// demand.
var ErrInfeasible = errors.New("schedule: flow is infeasible")

// NewNetwork returns a network of n nodes, numbered from 0, and no arcs.
func NewNetwork(n int) *Network {
	g := &Network{head: make([]int32, n), supply: make([]int64, n)}
	for v := range g.head {
		g.head[v] = -1
	}
	return g
}

// AddArc adds an arc from one node to another of the given capacity and
// cost per unit of flow (both ≥ 0) and returns its index, for Flow.
func (g *Network) AddArc(from, to int, capacity, cost int64) int {
	a := len(g.to)
	g.to = append(g.to, int32(to), int32(from))
	g.res = append(g.res, capacity, 0)
	g.cost = append(g.cost, cost, -cost)
	g.next = append(g.next, g.head[from], g.head[to])
	g.head[from], g.head[to] = int32(a), int32(a+1)
	return a
}

// SetSupply sets node v's supply: positive for a source, negative for a
// demand of −b.
func (g *Network) SetSupply(v int, b int64) { g.supply[v] = b }

// Flow returns the flow on the arc AddArc numbered a, after Solve.
func (g *Network) Flow(a int) int64 { return g.res[a^1] }

// Solve routes all supply at least total cost and returns the cost. Demand
// left unmet is allowed (the supplies bound the flow); supply that cannot
// reach a demand is an error wrapping ErrInfeasible. A network is solved
// once.
func (g *Network) Solve() (int64, error) {
	if g.solved {
		return 0, fmt.Errorf("%w: network already solved", policy.ErrInput)
	}
	g.solved = true
	for a := 0; a < len(g.to); a += 2 {
		if g.res[a] < 0 || g.cost[a] < 0 {
			return 0, fmt.Errorf("%w: arc %d has capacity %d, cost %d", policy.ErrInput, a/2, g.res[a], g.cost[a])
		}
	}
	// Demands become arcs into a sink t.
	n := len(g.head)
	t := n
	g.head = append(g.head, -1)
	for v := range n {
		if b := g.supply[v]; b < 0 {
			g.AddArc(v, t, -b, 0)
		}
	}
	n++
	s := &pathSearch{
		pot:  make([]int64, n),
		dist: make([]int64, n),
		via:  make([]int32, n),
		done: make([]bool, n),
	}
	for v := range s.dist {
		s.dist[v] = unreached
	}
	var total int64
	for src := range n - 1 {
		for left := g.supply[src]; left > 0; {
			d := g.shortest(s, src, t)
			if d == unreached {
				return 0, fmt.Errorf("%w: %d units at node %d reach no demand", ErrInfeasible, left, src)
			}
			push := left
			for v := t; v != src; v = int(g.to[s.via[v]^1]) {
				push = min(push, g.res[s.via[v]])
			}
			for v := t; v != src; v = int(g.to[s.via[v]^1]) {
				a := s.via[v]
				g.res[a] -= push
				g.res[a^1] += push
				total += push * g.cost[a]
			}
			left -= push
		}
	}
	return total, nil
}

// unreached is the distance of a node a search has not reached.
const unreached = math.MaxInt64

// pathSearch is Dijkstra's state, kept between searches: only the nodes a
// search touched are reset.
type pathSearch struct {
	pot     []int64 // Johnson potentials: reduced costs c + pot[u] − pot[v] ≥ 0
	dist    []int64
	via     []int32 // the arc a shortest path enters a node by
	done    []bool
	touched []int32
	heap    []heapItem
}

type heapItem struct {
	d int64
	v int32
}

// shortest finds a shortest residual path from src to t on reduced costs
// and returns its reduced length, or unreached. It then updates the
// potentials so that reduced costs stay non-negative and are zero along the
// path: each node settled at distance d < D = dist(t) gets pot += d − D,
// which is pot += min(d, D) for every node less a constant shift.
func (g *Network) shortest(s *pathSearch, src, t int) int64 {
	for _, v := range s.touched {
		s.dist[v], s.done[v] = unreached, false
	}
	s.touched, s.heap = s.touched[:0], s.heap[:0]
	s.dist[src] = 0
	s.touched = append(s.touched, int32(src))
	s.push(heapItem{0, int32(src)})
	for len(s.heap) > 0 {
		it := s.pop()
		u := int(it.v)
		if s.done[u] || it.d > s.dist[u] {
			continue
		}
		s.done[u] = true
		if u == t {
			break
		}
		for a := g.head[u]; a >= 0; a = g.next[a] {
			if g.res[a] == 0 {
				continue
			}
			v := g.to[a]
			nd := it.d + g.cost[a] + s.pot[u] - s.pot[v]
			if nd < s.dist[v] {
				if s.dist[v] == unreached {
					s.touched = append(s.touched, v)
				}
				s.dist[v], s.via[v] = nd, a
				s.push(heapItem{nd, v})
			}
		}
	}
	d := s.dist[t]
	if d == unreached {
		return d
	}
	for _, v := range s.touched {
		if s.done[v] {
			s.pot[v] += s.dist[v] - d
		}
	}
	return d
}

func (s *pathSearch) push(it heapItem) {
	h := append(s.heap, it)
	for k := len(h) - 1; k > 0; {
		p := (k - 1) / 2
		if h[p].d <= h[k].d {
			break
		}
		h[p], h[k] = h[k], h[p]
		k = p
	}
	s.heap = h
}

func (s *pathSearch) pop() heapItem {
	h := s.heap
	top := h[0]
	h[0] = h[len(h)-1]
	h = h[:len(h)-1]
	for k := 0; ; {
		c := 2*k + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h[c+1].d < h[c].d {
			c++
		}
		if h[k].d <= h[c].d {
			break
		}
		h[k], h[c] = h[c], h[k]
		k = c
	}
	s.heap = h
	return top
}
