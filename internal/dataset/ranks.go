package dataset

import (
	"bufio"
	"cmp"
	"container/heap"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// TopLinked reads a ranks file, as `freshcrawl rank -out` writes it (a
// "# node pagerank IR backlinks" header, then node, PageRank, IR and
// backlink count, tab-separated, a line a node), and returns the k nodes
// with the most backlinks, most first (ties in file order): the popular
// URLs of a previous crawl that a cluster replicates at every node
// (dissertation §3.8, which takes them by in-link count). Nodes without a
// name (a crawl's link target whose URL it no longer knows) are passed
// over. A malformed line is an error naming it.
func TopLinked(r io.Reader, k int) ([]string, error) {
	h := &linkedHeap{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("ranks line %d: want node, pagerank, IR and backlinks, tab-separated", n)
		}
		links, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil || links < 0 {
			return nil, fmt.Errorf("ranks line %d: backlinks %q", n, f[3])
		}
		if k <= 0 || f[0] == "" {
			continue // a node whose URL the crawl no longer knows cannot be replicated
		}
		e := linked{node: f[0], links: links, line: n}
		switch {
		case h.Len() < k:
			heap.Push(h, e)
		case e.better((*h)[0]):
			(*h)[0] = e
			heap.Fix(h, 0)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("ranks: %w", err)
	}
	top := slices.Clone(*h)
	slices.SortFunc(top, func(a, b linked) int {
		return cmp.Or(cmp.Compare(b.links, a.links), cmp.Compare(a.line, b.line))
	})
	out := make([]string, len(top))
	for i, e := range top {
		out[i] = e.node
	}
	return out, nil
}

// linked is a node and its backlinks; line breaks ties (earlier first).
type linked struct {
	node  string
	links int64
	line  int
}

func (a linked) better(b linked) bool {
	return a.links > b.links || a.links == b.links && a.line < b.line
}

// linkedHeap is a min-heap of the best k: its root is the worst kept.
type linkedHeap []linked

func (h linkedHeap) Len() int           { return len(h) }
func (h linkedHeap) Less(i, j int) bool { return h[j].better(h[i]) }
func (h linkedHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *linkedHeap) Push(x any)        { *h = append(*h, x.(linked)) }
func (h *linkedHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
