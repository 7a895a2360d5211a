package rank

import "testing"

// TestParseOrdering checks every ordering reads back from its name, as
// flags and configuration files spell it, and that another name does not.
func TestParseOrdering(t *testing.T) {
	names := []string{"breadth-first", "backlink", "pagerank", "topic", "random"}
	for i, o := range Orderings() {
		if o.String() != names[i] {
			t.Errorf("ordering %d is %q, want %q", i, o, names[i])
		}
		if got, err := ParseOrdering(names[i]); err != nil || got != o {
			t.Errorf("ParseOrdering(%q) = %v, %v", names[i], got, err)
		}
	}
	for _, bad := range []string{"", "bfs", "PageRank", "random "} {
		if _, err := ParseOrdering(bad); err == nil {
			t.Errorf("ParseOrdering(%q) accepted", bad)
		}
	}
}
