package rank

import (
	"fmt"
	"slices"
)

// Ordering is how a crawler picks the next URL to visit among those it has
// found and not yet visited (dissertation §2.3, Fig. 2.2). Its value is its
// name, as flags and configuration files spell it.
//
// Not every consumer takes every ordering: the crawler (crawl -ordering)
// takes all but OrderRandom, a baseline for figures, not a way to crawl;
// the virtual crawls of freshcrawl reproduce take breadth-first, backlink,
// pagerank and random, and run topic as the two-queue crawl of Algorithm
// 2.5.2 with one of the other three inside each queue.
type Ordering string

// The orderings of dissertation ch. 2.
const (
	OrderBreadthFirst Ordering = "breadth-first" // first found, first visited
	OrderBacklink     Ordering = "backlink"      // most links from the pages visited so far (IB')
	OrderPageRank     Ordering = "pagerank"      // highest PageRank over the graph visited so far (IR')
	// OrderTopic is §2.5.4's similarity crawler for a topic word: URLs
	// whose link text or URL names the word come first; a page is hot for
	// it by TopicHot.
	OrderTopic  Ordering = "topic"
	OrderRandom Ordering = "random" // any found URL, uniformly: the baseline diagonal of Figs. 2.3–2.7
)

// Orderings returns every ordering, in the order above.
func Orderings() []Ordering {
	return []Ordering{OrderBreadthFirst, OrderBacklink, OrderPageRank, OrderTopic, OrderRandom}
}

// String returns the ordering's name.
func (o Ordering) String() string { return string(o) }

// ParseOrdering reads an ordering's name; it accepts every ordering, and
// each consumer refuses those it cannot run.
func ParseOrdering(s string) (Ordering, error) {
	if o := Ordering(s); slices.Contains(Orderings(), o) {
		return o, nil
	}
	return "", fmt.Errorf("ordering %q (want breadth-first, backlink, pagerank, topic or random)", s)
}
