package rank

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func edgesOf(b *Builder) [][2]uint32 {
	out := make([][2]uint32, b.Edges())
	for i := range out {
		u, v := b.Edge(int64(i))
		out[i] = [2]uint32{u, v}
	}
	return out
}

func TestReadEdgeList(t *testing.T) {
	in := "# Directed graph (each unordered pair of nodes is saved once): web-Google.txt\n" +
		"# FromNodeId\tToNodeId\n" +
		"10\t30\n" +
		"  30 10  \r\n" +
		"\n" +
		"10\t\t20\n" +
		"#20 10\n" +
		"20 20" // no final newline
	el, err := ReadEdgeList(strings.NewReader(in), "g.txt")
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint64{10, 20, 30}; !slices.Equal(el.IDs, want) {
		t.Errorf("ids %v, want %v", el.IDs, want)
	}
	want := [][2]uint32{{0, 2}, {2, 0}, {0, 1}, {1, 1}}
	if got := edgesOf(&el.Builder); !slices.Equal(got, want) {
		t.Errorf("edges %v, want %v", got, want)
	}
	if el.Nodes() != 3 {
		t.Errorf("%d nodes, want 3", el.Nodes())
	}
}

// TestReadEdgeListSparse: ids far apart go through a map; ids past 32
// bits through 64-bit pairs; both keep the ids' order.
func TestReadEdgeListSparse(t *testing.T) {
	for _, ids := range [][]uint64{{5, 3_000_000_000, 17}, {1 << 40, 7, 1<<40 + 1}} {
		in := fmt.Sprintf("%d %d\n%d %d\n%d %d\n", ids[0], ids[1], ids[1], ids[2], ids[2], ids[0])
		el, err := ReadEdgeList(strings.NewReader(in), "g")
		if err != nil {
			t.Fatal(err)
		}
		sorted := slices.Sorted(slices.Values(ids))
		if !slices.Equal(el.IDs, sorted) {
			t.Errorf("ids %v, want %v", el.IDs, sorted)
		}
		for i, e := range edgesOf(&el.Builder) {
			if el.IDs[e[0]] != ids[i] || el.IDs[e[1]] != ids[(i+1)%3] {
				t.Errorf("edge %d maps back to %d → %d", i, el.IDs[e[0]], el.IDs[e[1]])
			}
		}
	}
}

func TestReadEdgeListErrors(t *testing.T) {
	for in, want := range map[string]string{
		"1 2\n3\n":                 "g:2: want two non-negative integer node ids",
		"1 2 3\n":                  "g:1: more than two fields",
		"1 -2\n":                   "g:1: want two",
		"a b\n":                    "g:1: want two",
		"1 2x\n":                   "g:1: want two",
		"99999999999999999999 1\n": "g:1: node id out of range",
	} {
		_, err := ReadEdgeList(strings.NewReader(in), "g")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
	el, err := ReadEdgeList(strings.NewReader("# nothing\n\n"), "g")
	if err != nil || el.Nodes() != 0 || el.Edges() != 0 {
		t.Errorf("empty file: %d nodes, %d edges, %v", el.Nodes(), el.Edges(), err)
	}
}

// TestSyntheticRoundTrip: a synthetic graph written in SNAP format reads
// back as the same edges, its ids kept.
func TestSyntheticRoundTrip(t *testing.T) {
	b, err := Synthetic(DefaultSynthetic(5000, 40000, 1))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteEdgeList(&buf, b); err != nil {
		t.Fatal(err)
	}
	el, err := ReadEdgeList(&buf, "synthetic")
	if err != nil {
		t.Fatal(err)
	}
	for v, id := range el.IDs {
		if uint64(v) != id {
			t.Fatalf("dense id %d is file id %d", v, id)
		}
	}
	if !slices.Equal(edgesOf(b), edgesOf(&el.Builder)) {
		t.Error("edges differ after the round trip")
	}
}

// TestSynthetic checks the generator's promises: exactly the edges asked
// for, no self-links or repeated links, the same graph from the same seed,
// about Intra of the links within sites, and in-degrees concentrated as a
// power law makes them.
func TestSynthetic(t *testing.T) {
	cfg := DefaultSynthetic(20000, 200000, 7)
	b, err := Synthetic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if b.Edges() != cfg.Edges || b.Nodes() != cfg.Nodes {
		t.Fatalf("%d nodes, %d edges; asked %d, %d", b.Nodes(), b.Edges(), cfg.Nodes, cfg.Edges)
	}
	seen := map[[2]uint32]bool{}
	intra := 0
	for _, e := range edgesOf(b) {
		if e[0] == e[1] {
			t.Fatalf("self-link %v", e)
		}
		if seen[e] {
			t.Fatalf("repeated link %v", e)
		}
		seen[e] = true
		if int(e[0])/cfg.SiteSize == int(e[1])/cfg.SiteSize {
			intra++
		}
	}
	if share := float64(intra) / float64(b.Edges()); share < 0.7 || share > 0.85 {
		t.Errorf("%.3f of links within sites, want about %.2f", share, cfg.Intra)
	}
	again, _ := Synthetic(cfg)
	if !slices.Equal(edgesOf(b), edgesOf(again)) {
		t.Error("the same config gave another graph")
	}
	g, _ := b.Build(BuildOptions{})
	in := g.Backlinks()
	slices.Sort(in)
	slices.Reverse(in)
	top := 0
	for _, x := range in[:len(in)/100] {
		top += x
	}
	if share := float64(top) / float64(b.Edges()); share < 0.1 {
		t.Errorf("the top 1%% of pages hold %.3f of the in-links: not heavy-tailed", share)
	}
	// A graph too small for its degrees still comes out whole.
	tiny, err := Synthetic(SyntheticConfig{Nodes: 4, Edges: 12, Seed: 1})
	if err != nil || tiny.Edges() != 12 {
		t.Fatalf("complete graph on 4 nodes: %v edges, %v", tiny.Edges(), err)
	}
	if _, err := Synthetic(SyntheticConfig{Nodes: 4, Edges: 13}); err == nil {
		t.Error("13 edges on 4 nodes accepted")
	}
}

func FuzzReadEdgeList(f *testing.F) {
	f.Add([]byte("# c\n1 2\n2\t3\r\n\n3 1"))
	f.Add([]byte("4294967296 1\n1 0\n"))
	f.Add([]byte("1 2 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		el, err := ReadEdgeList(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		if len(el.IDs) != el.Nodes() || !slices.IsSorted(el.IDs) {
			t.Fatalf("%d ids for %d nodes, sorted %v", len(el.IDs), el.Nodes(), slices.IsSorted(el.IDs))
		}
		g, err := el.Build(BuildOptions{Dedupe: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := PageRank(g, Options{Iterations: 3}); err != nil {
			t.Fatal(err)
		}
	})
}
