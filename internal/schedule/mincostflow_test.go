package schedule

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// flowBrute is the min-cost flow of a tiny network by enumeration: every
// vector of integer arc flows within the capacities, kept if it routes each
// node's supply (a demand node may take less than its demand, as Solve
// allows), the cheapest kept. ok is false when none routes the supply.
func flowBrute(n int, arcs [][4]int64, supply []int64) (best int64, ok bool) {
	flow := make([]int64, len(arcs))
	best = math.MaxInt64
	var rec func(k int)
	rec = func(k int) {
		if k == len(arcs) {
			net := make([]int64, n) // outflow − inflow
			var cost int64
			for a, f := range flow {
				net[arcs[a][0]] += f
				net[arcs[a][1]] -= f
				cost += f * arcs[a][3]
			}
			for v := range n {
				switch b := supply[v]; {
				case b >= 0 && net[v] != b:
					return
				case b < 0 && (net[v] > 0 || net[v] < b):
					return
				}
			}
			if cost < best {
				best, ok = cost, true
			}
			return
		}
		for f := int64(0); f <= arcs[k][2]; f++ {
			flow[k] = f
			rec(k + 1)
		}
	}
	rec(0)
	return best, ok
}

// TestNetworkBruteForce solves 3 000 random networks of 3 to 5 nodes and up
// to 6 arcs of capacity ≤ 2 and compares the cost with flowBrute, and
// infeasibility with its finding none; the flows Solve reports must
// themselves route the supplies at the reported cost.
func TestNetworkBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	feasible := 0
	for trial := range 3000 {
		n := 3 + rng.IntN(3)
		var arcs [][4]int64
		for range 1 + rng.IntN(6) {
			u, v := rng.IntN(n), rng.IntN(n)
			if u != v {
				arcs = append(arcs, [4]int64{int64(u), int64(v), int64(rng.IntN(3)), int64(rng.IntN(10))})
			}
		}
		supply := make([]int64, n)
		for v := range supply {
			supply[v] = int64(rng.IntN(5)) - 2
		}
		g := NewNetwork(n)
		ids := make([]int, len(arcs))
		for a, arc := range arcs {
			ids[a] = g.AddArc(int(arc[0]), int(arc[1]), arc[2], arc[3])
		}
		for v, b := range supply {
			g.SetSupply(v, b)
		}
		want, ok := flowBrute(n, arcs, supply)
		got, err := g.Solve()
		if !ok {
			if !errors.Is(err, ErrInfeasible) {
				t.Fatalf("trial %d: brute force finds no flow, Solve: %d, %v\narcs %v supply %v", trial, got, err, arcs, supply)
			}
			continue
		}
		feasible++
		if err != nil || got != want {
			t.Fatalf("trial %d: Solve %d, %v; brute force %d\narcs %v supply %v", trial, got, err, want, arcs, supply)
		}
		net := make([]int64, n)
		var cost int64
		for a, id := range ids {
			f := g.Flow(id)
			if f < 0 || f > arcs[a][2] {
				t.Fatalf("trial %d: arc %d carries %d of %d", trial, a, f, arcs[a][2])
			}
			net[arcs[a][0]] += f
			net[arcs[a][1]] -= f
			cost += f * arcs[a][3]
		}
		for v, b := range supply {
			if b >= 0 && net[v] != b || b < 0 && (net[v] > 0 || net[v] < b) {
				t.Fatalf("trial %d: node %d supply %d, net outflow %d", trial, v, b, net[v])
			}
		}
		if cost != got {
			t.Fatalf("trial %d: flows cost %d, Solve says %d", trial, cost, got)
		}
	}
	if feasible < 500 {
		t.Errorf("only %d feasible instances: the test needs more", feasible)
	}
}

// assignBipartite solves the assignment problem of an n×n cost matrix as a
// network: rows supply 1, columns demand 1.
func assignBipartite(t *testing.T, c [][]int64) int64 {
	n := len(c)
	g := NewNetwork(2 * n)
	for i := range n {
		g.SetSupply(i, 1)
		g.SetSupply(n+i, -1)
		for j := range n {
			g.AddArc(i, n+j, 1, c[i][j])
		}
	}
	cost, err := g.Solve()
	if err != nil {
		t.Fatal(err)
	}
	return cost
}

// permBrute is the cheapest assignment by enumerating all permutations.
func permBrute(c [][]int64) int64 {
	n := len(c)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	best := int64(math.MaxInt64)
	var rec func(k int, cost int64)
	rec = func(k int, cost int64) {
		if k == n {
			best = min(best, cost)
			return
		}
		for j := k; j < n; j++ {
			perm[k], perm[j] = perm[j], perm[k]
			rec(k+1, cost+c[k][perm[k]])
			perm[k], perm[j] = perm[j], perm[k]
		}
	}
	rec(0, 0)
	return best
}

// hungarian is the O(n³) Hungarian algorithm (Kuhn–Munkres with row
// potentials, as in Jonker and Volgenant's shortest augmenting path form),
// written independently of Network as the reference for medium sizes.
func hungarian(c [][]int64) int64 {
	n := len(c)
	const inf = math.MaxInt64 / 4
	u, v := make([]int64, n+1), make([]int64, n+1)
	p, way := make([]int, n+1), make([]int, n+1) // p[j]: row matched to column j (1-based)
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		minv := make([]int64, n+1)
		used := make([]bool, n+1)
		for j := range minv {
			minv[j] = inf
		}
		for {
			used[j0] = true
			i0, delta, j1 := p[j0], int64(inf), 0
			for j := 1; j <= n; j++ {
				if !used[j] {
					if cur := c[i0-1][j-1] - u[i0] - v[j]; cur < minv[j] {
						minv[j], way[j] = cur, j0
					}
					if minv[j] < delta {
						delta, j1 = minv[j], j
					}
				}
			}
			for j := 0; j <= n; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	var cost int64
	for j := 1; j <= n; j++ {
		cost += c[p[j]-1][j-1]
	}
	return cost
}

// TestNetworkAssignment checks Network on assignment problems: against
// permBrute for n ≤ 7 and against hungarian for n = 30 and 80, random
// integer costs.
func TestNetworkAssignment(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	random := func(n int) [][]int64 {
		c := make([][]int64, n)
		for i := range c {
			c[i] = make([]int64, n)
			for j := range c[i] {
				c[i][j] = int64(rng.IntN(1000))
			}
		}
		return c
	}
	for trial := range 300 {
		c := random(1 + trial%7)
		if got, want := assignBipartite(t, c), permBrute(c); got != want {
			t.Fatalf("n=%d: %d, brute force %d\n%v", len(c), got, want, c)
		}
	}
	for _, n := range []int{30, 80} {
		for range 5 {
			c := random(n)
			if got, want := assignBipartite(t, c), hungarian(c); got != want {
				t.Fatalf("n=%d: %d, Hungarian %d", n, got, want)
			}
		}
	}
}
