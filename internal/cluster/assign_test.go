package cluster

import (
	"encoding/binary"
	"fmt"
	"slices"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// TestScoreStable pins the rendezvous weights: nodes of different
// releases must agree on who owns what.
func TestScoreStable(t *testing.T) {
	tests := []struct {
		node string
		p    int
		want uint64
	}{
		{"node-a", 0, 0x0da0a4ebdec3d3b3},
		{"node-a", 7, 0x5bcb9367ec381db2},
		{"n1", 63, 0xa883527731465138},
	}
	for _, tt := range tests {
		if got := score(tt.node, tt.p); got != tt.want {
			t.Errorf("score(%q, %d) = %#x, want %#x", tt.node, tt.p, got, tt.want)
		}
		// The documented layout, hashed by the library directly: the
		// pinned values are xxhash64 of the name and 8 big-endian bytes.
		if layout := xxhash.Sum64(binary.BigEndian.AppendUint64([]byte(tt.node), uint64(tt.p))); layout != tt.want {
			t.Errorf("xxhash64(%q ‖ BE8(%d)) = %#x, pinned %#x", tt.node, tt.p, layout, tt.want)
		}
	}
}

// bruteAssign is Assign by its definition, the slow way: partitions go,
// one at a time, to the (partition, node) pair of highest score among
// those whose partition is unassigned and whose node has room: under n/k,
// or at n/k while fewer than n mod k nodes have gone past it.
func bruteAssign(n int, nodes []string) []string {
	owners := make([]string, n)
	base, extra := n/len(nodes), n%len(nodes)
	load := map[string]int{}
	for range n {
		bp, bn, bs := -1, "", uint64(0)
		for p := range n {
			for _, nd := range nodes {
				if owners[p] != "" || load[nd] > base || load[nd] == base && extra == 0 {
					continue
				}
				if s := score(nd, p); bp < 0 || s > bs || s == bs && (nd < bn || nd == bn && p < bp) {
					bp, bn, bs = p, nd, s
				}
			}
		}
		if load[bn] == base {
			extra--
		}
		owners[bp] = bn
		load[bn]++
	}
	return owners
}

// TestAssign checks Assign against the brute-force definition on many
// partition and node counts, that its answer does not depend on the
// order of the list, and that loads are balanced: within one partition
// of each other.
func TestAssign(t *testing.T) {
	for _, n := range []int{1, 3, 12, 16, 64} {
		for k := 1; k <= 7; k++ {
			var nodes []string
			for i := range k {
				nodes = append(nodes, fmt.Sprintf("node%d", i))
			}
			got := Assign(n, nodes)
			if want := bruteAssign(n, nodes); !slices.Equal(got, want) {
				t.Fatalf("Assign(%d, %d nodes) = %v, brute force %v", n, k, got, want)
			}
			rev := slices.Clone(nodes)
			slices.Reverse(rev)
			if again := Assign(n, append(rev, nodes[0])); !slices.Equal(again, got) {
				t.Fatalf("Assign(%d, %d nodes) depends on the list's order", n, k)
			}
			load := map[string]int{}
			for _, o := range got {
				load[o]++
			}
			lo, hi := n, 0
			for _, nd := range nodes {
				lo, hi = min(lo, load[nd]), max(hi, load[nd])
			}
			if n >= k && hi-lo > 1 || hi > (n+k-1)/k {
				t.Errorf("Assign(%d, %d nodes): loads from %d to %d", n, k, lo, hi)
			}
		}
	}
	if got := Assign(4, nil); !slices.Equal(got, []string{"", "", "", ""}) || Owned("a", 4, nil) != nil {
		t.Error("owners among no nodes")
	}
}

// TestAssignMovesLittle: with 256 partitions, a node of five leaving moves
// its own partitions and few others (the survivors' room grows, so some
// of theirs shift to make loads even), and coming back restores the first
// assignment.
func TestAssignMovesLittle(t *testing.T) {
	nodes := []string{"n0", "n1", "n2", "n3", "n4"}
	const n = 256
	before := Assign(n, nodes)
	survivors := slices.DeleteFunc(slices.Clone(nodes), func(s string) bool { return s == "n2" })
	after := Assign(n, survivors)
	own, others := 0, 0
	for p := range n {
		switch {
		case before[p] == "n2":
			own++
		case after[p] != before[p]:
			others++
		}
	}
	t.Logf("n2 left: its %d partitions moved, and %d of the others'", own, others)
	if others > n/10 {
		t.Errorf("%d of the survivors' partitions moved when n2 left; want under a tenth", others)
	}
	if again := Assign(n, append(slices.Clone(survivors), "n2")); !slices.Equal(again, before) {
		t.Error("adding n2 back did not restore the assignment")
	}
	if got := Owned("n9", n, nodes); got != nil {
		t.Errorf("a node not in the list owns %v", got)
	}
}

func ExampleAssign() {
	fmt.Println(Assign(8, []string{"a", "b", "c"}))
	// Output: [a b a a c b c c]
}
