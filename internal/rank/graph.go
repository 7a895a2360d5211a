// Package rank holds the link graph a crawl discovers and the importance
// metrics of dissertation ch. 2 computed over it: PageRank IR (and IR' on
// a partial crawl), backlink counts IB (IB'), and their combinations; the
// orderings a crawler picks new URLs by (Ordering), and the hot test of
// the topic ordering (TopicHot).
//
// The graph is compressed sparse rows over dense node ids 0..n-1, stored
// as the transpose: each node's in-links, which is what PageRank's pull
// step and the backlink count read. A Builder collects edges as they are
// found and builds a Graph snapshot on demand; building is linear in the
// edges, so a crawler can keep adding links and rank a fresh snapshot
// whenever it likes.
package rank

import (
	"fmt"
	"math"
	"slices"
)

// Graph is an immutable directed graph in compressed sparse rows over its
// in-links. Node ids are dense, 0..Nodes()-1.
type Graph struct {
	inStart []int64  // node v's in-links are inSrc[inStart[v]:inStart[v+1]]
	inSrc   []uint32 // sources of in-links, grouped by target
	outDeg  []uint32 // out-degree c of each node, as its in-links count it
}

// Nodes returns the number of nodes.
func (g *Graph) Nodes() int { return len(g.outDeg) }

// Edges returns the number of edges.
func (g *Graph) Edges() int64 { return int64(len(g.inSrc)) }

// In returns the sources of v's in-links. The slice is the graph's own.
func (g *Graph) In(v uint32) []uint32 { return g.inSrc[g.inStart[v]:g.inStart[v+1]] }

// InDegree returns v's number of in-links: its backlink count IB(v), or
// IB'(v) when the graph is what a crawl has seen so far.
func (g *Graph) InDegree(v uint32) int { return int(g.inStart[v+1] - g.inStart[v]) }

// OutDegree returns v's number of out-links, c in the PageRank equation.
func (g *Graph) OutDegree(v uint32) int { return int(g.outDeg[v]) }

// Backlinks returns the in-degree of every node.
func (g *Graph) Backlinks() []int {
	out := make([]int, g.Nodes())
	for v := range out {
		out[v] = int(g.inStart[v+1] - g.inStart[v])
	}
	return out
}

// Builder collects the edges of a graph. The zero value is an empty
// builder. Nodes are the ids used, 0..max; AddNode makes a node without
// links exist.
type Builder struct {
	src, dst []uint32
	nodes    int
}

// MaxNodes is the most nodes a graph holds: ids are uint32.
const MaxNodes = math.MaxUint32

// AddEdge adds the link u → v.
func (b *Builder) AddEdge(u, v uint32) {
	b.src = append(b.src, u)
	b.dst = append(b.dst, v)
	b.nodes = max(b.nodes, int(u)+1, int(v)+1)
}

// AddNode makes node v exist, with or without links.
func (b *Builder) AddNode(v uint32) { b.nodes = max(b.nodes, int(v)+1) }

// Grow makes room for n more edges.
func (b *Builder) Grow(n int) {
	b.src = slices.Grow(b.src, n)
	b.dst = slices.Grow(b.dst, n)
}

// Nodes returns the number of nodes so far.
func (b *Builder) Nodes() int { return b.nodes }

// Edges returns the number of edges added so far.
func (b *Builder) Edges() int64 { return int64(len(b.src)) }

// Edge returns the i-th edge added.
func (b *Builder) Edge(i int64) (u, v uint32) { return b.src[i], b.dst[i] }

// BuildOptions steer Build.
type BuildOptions struct {
	// Dedupe counts a link from u to v once however often it was added:
	// a page that links to another twice casts one vote, and its
	// out-degree c counts distinct targets. Off, every edge counts, as
	// in a multigraph.
	Dedupe bool
}

// Build returns the graph of the edges added so far. The builder is left
// as it was, so more edges can be added and another snapshot built.
func (b *Builder) Build(opts BuildOptions) (*Graph, error) {
	n := b.nodes
	if n > MaxNodes {
		return nil, fmt.Errorf("rank: %d nodes, more than %d", n, MaxNodes)
	}
	g := &Graph{inStart: make([]int64, n+1), outDeg: make([]uint32, n)}
	// Counting sort by target: count, prefix sums, place.
	for _, v := range b.dst {
		g.inStart[v+1]++
	}
	for v := 1; v <= n; v++ {
		g.inStart[v] += g.inStart[v-1]
	}
	g.inSrc = make([]uint32, len(b.src))
	next := make([]int64, n)
	copy(next, g.inStart[:n])
	for i, v := range b.dst {
		g.inSrc[next[v]] = b.src[i]
		next[v]++
	}
	if opts.Dedupe {
		g.dedupe()
	}
	for _, u := range g.inSrc {
		g.outDeg[u]++
	}
	return g, nil
}

// dedupe removes repeated sources from each node's in-links, in place.
func (g *Graph) dedupe() {
	w := int64(0)
	for v := range g.outDeg {
		in := g.inSrc[g.inStart[v]:g.inStart[v+1]]
		g.inStart[v] = w
		if len(in) > 1 {
			slices.Sort(in)
			in = slices.Compact(in)
		}
		w += int64(copy(g.inSrc[w:], in))
	}
	g.inStart[len(g.outDeg)] = w
	g.inSrc = slices.Clip(g.inSrc[:w])
}
