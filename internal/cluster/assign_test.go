package cluster

import (
	"fmt"
	"slices"
	"testing"
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
	}
}

// TestAssignMovesLittle checks rendezvous hashing's two properties against
// a brute-force count: with 256 partitions and 5 nodes, each node owns
// 256/5 ± 40 %, and removing a node moves exactly its partitions, each
// to the survivor that scores it next; adding it back restores the first
// assignment.
func TestAssignMovesLittle(t *testing.T) {
	nodes := []string{"n0", "n1", "n2", "n3", "n4"}
	const n = 256
	before := Assign(n, nodes)
	for _, node := range nodes {
		owned := Owned(node, n, nodes)
		if len(owned) < 30 || len(owned) > 72 {
			t.Errorf("%s owns %d of %d partitions, want about %d", node, len(owned), n, n/5)
		}
		for _, p := range owned {
			if before[p] != node {
				t.Fatalf("Owned(%s) has %d, owned by %s", node, p, before[p])
			}
		}
	}
	survivors := slices.DeleteFunc(slices.Clone(nodes), func(s string) bool { return s == "n2" })
	after := Assign(n, survivors)
	for p := range n {
		if before[p] != "n2" && after[p] != before[p] {
			t.Errorf("partition %d moved from %s to %s when n2 left", p, before[p], after[p])
		}
		if before[p] == "n2" {
			// Brute force: the survivor with the highest score.
			best := survivors[0]
			for _, s := range survivors[1:] {
				if score(s, p) > score(best, p) {
					best = s
				}
			}
			if after[p] != best {
				t.Errorf("partition %d went to %s, want %s", p, after[p], best)
			}
		}
	}
	if again := Assign(n, append(slices.Clone(survivors), "n2")); !slices.Equal(again, before) {
		t.Error("adding n2 back did not restore the assignment")
	}
	if Owner(0, nil) != "" || Owned("n9", n, nodes) != nil {
		t.Error("an owner among no nodes, or partitions for a node not in the list")
	}
}

func ExampleAssign() {
	fmt.Println(Assign(8, []string{"a", "b", "c"}))
	// Output: [a a a a a b a c]
}
