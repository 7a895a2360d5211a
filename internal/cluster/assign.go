package cluster

import (
	"encoding/binary"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// Owner returns the node that should own partition p among nodes, by
// rendezvous (highest random weight) hashing: each node scores each
// partition and the highest score wins. When a node leaves, only the
// partitions it owned move, each to the survivor that scored next, and a
// node that joins takes about 1/len(nodes) of the partitions from the
// others; every node computes the same answer from the same list. It
// returns "" if nodes is empty. Ties, of probability 2^−64, go to the
// lesser name.
func Owner(p int, nodes []string) string {
	best, bestScore := "", uint64(0)
	for _, n := range nodes {
		s := score(n, p)
		if best == "" || s > bestScore || s == bestScore && n < best {
			best, bestScore = n, s
		}
	}
	return best
}

// Assign returns the owner of each partition 0 … n−1 among nodes.
func Assign(n int, nodes []string) []string {
	owners := make([]string, n)
	for p := range owners {
		owners[p] = Owner(p, nodes)
	}
	return owners
}

// Owned returns the partitions of 0 … n−1 that node owns among nodes, in
// increasing order.
func Owned(node string, n int, nodes []string) []int {
	var ps []int
	if !slices.Contains(nodes, node) {
		return nil
	}
	for p := range n {
		if Owner(p, nodes) == node {
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
