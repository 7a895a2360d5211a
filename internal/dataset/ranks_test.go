package dataset

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestTopLinked checks the k most linked nodes against a full sort of a
// random ranks file (ties broken by file order), for several k.
func TestTopLinked(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	b.WriteString("# node\tpagerank\tIR\tbacklinks\n")
	type row struct {
		node  string
		links int
	}
	var rows []row
	for i := range 500 {
		r := row{fmt.Sprintf("http://h%d.test/p%d", i%7, i), rng.IntN(40)}
		rows = append(rows, r)
		fmt.Fprintf(&b, "%s\t%g\t%g\t%d\n", r.node, 0.001, 0.5, r.links)
	}
	slices.SortStableFunc(rows, func(a, b row) int { return b.links - a.links })
	for _, k := range []int{0, 1, 10, 499, 500, 600} {
		got, err := TopLinked(strings.NewReader(b.String()), k)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, r := range rows[:min(k, len(rows))] {
			want = append(want, r.node)
		}
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("k=%d: got %d nodes, first %v; want first %v", k, len(got), got[:min(3, len(got))], want[:min(3, len(want))])
		}
	}
	if got, err := TopLinked(strings.NewReader("\t1\t2\t99\nb\t1\t2\t3\n"), 5); err != nil || !slices.Equal(got, []string{"b"}) {
		t.Errorf("a nameless node: %q, %v; want it passed over", got, err)
	}
	for _, bad := range []string{"a\t1\t2\n", "a\t1\t2\tx\n", "a\t1\t2\t-1\n"} {
		if _, err := TopLinked(strings.NewReader(bad), 5); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
