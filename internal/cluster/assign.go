package cluster

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// Assign returns the owner of each partition 0 … n−1 among nodes, by
// rendezvous (highest random weight) hashing with bounded loads: every
// node scores every partition, and the (partition, node) pairs are taken
// from the highest score down, each partition going to the first node
// that still has room: ⌊n/k⌋ partitions for each of the k nodes, and one
// more for the first n mod k nodes to need it. Every node
// computes the same answer from the same list (in any order). Plain
// rendezvous hashing moves only a leaving node's partitions, but with few
// partitions a node may get twice its share; the bound keeps the shares
// within one partition of each other, and a node that leaves or joins
// still moves few others' (TestAssignMovesLittle). Without nodes every
// owner is "". Ties of score, of probability 2^−64, go to the lesser
// name.
func Assign(n int, nodes []string) []string {
	owners := make([]string, n)
	nodes = slices.Compact(slices.Sorted(slices.Values(nodes)))
	if len(nodes) == 0 || n == 0 {
		return owners
	}
	type pair struct {
		score uint64
		p     int
		node  int
	}
	pairs := make([]pair, 0, n*len(nodes))
	for p := range n {
		for i, nd := range nodes {
			pairs = append(pairs, pair{score(nd, p), p, i})
		}
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.node, b.node), cmp.Compare(a.p, b.p))
	})
	r := rooms{base: n / len(nodes), extra: n % len(nodes), load: make([]int, len(nodes))}
	left := n
	for _, x := range pairs {
		if owners[x.p] == "" && r.take(x.node) {
			owners[x.p] = nodes[x.node]
			if left--; left == 0 {
				break
			}
		}
	}
	return owners
}

// rooms bounds the nodes' loads: n/k partitions each, and one more for
// the first n mod k nodes to reach n/k.
type rooms struct {
	base, extra int
	load        []int
}

// take gives node i one partition more, if it has room.
func (r *rooms) take(i int) bool {
	switch {
	case r.load[i] < r.base:
	case r.load[i] == r.base && r.extra > 0:
		r.extra--
	default:
		return false
	}
	r.load[i]++
	return true
}

// Owned returns the partitions of 0 … n−1 that node owns among nodes, in
// increasing order.
func Owned(node string, n int, nodes []string) []int {
	var ps []int
	for p, o := range Assign(n, nodes) {
		if o == node {
			ps = append(ps, p)
		}
	}
	return ps
}

// score is node's weight for partition p: xxhash64 of the node's name and
// the partition number (8 bytes, big-endian). It is part of the cluster's
// wire contract, as urlx.Partition is; the tests pin it.
func score(node string, p int) uint64 {
	var b [64]byte
	buf := append(b[:0], node...)
	buf = binary.BigEndian.AppendUint64(buf, uint64(p))
	return xxhash.Sum64(buf)
}
