package datadir

import "github.com/freshcrawl/freshcrawl/internal/rank"

// LinkGraph is the link graph a crawl has recorded: every page fetched
// with content and the pages it links to (in scope, within the trap
// limits, nofollow left out unless followed), over dense node ids, with
// the other URLs the crawl knows (pages without links, queued URLs) as
// nodes without out-links.
type LinkGraph struct {
	rank.Builder
	// URLs[v] is node v's URL, from its page row or its queue entry; ""
	// for a URL linked to whose row is gone and which is not queued (a
	// URL dropped by a host's URL limit, say).
	URLs []string
	// Held[v] says whether node v is in the collection.
	Held []bool
	// Fetched is how many nodes have recorded out-links: the pages whose
	// links are known. The others are the frontier, and pages that link
	// nowhere.
	Fetched int
}

// ReadLinkGraph reads the link graph of the data directory dir of a crawl
// that is not running, as the ranking module does when a crawl starts.
// Errors are as Open's.
func ReadLinkGraph(dir string) (*LinkGraph, error) {
	s, err := Open(dir)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var r rank.Recorded
	if err := r.Load(s); err != nil {
		return nil, err
	}
	g := &LinkGraph{Builder: *r.Builder(), URLs: r.URLs, Held: make([]bool, len(r.URLs))}
	for v, out := range r.Out {
		if len(out) > 0 {
			g.Fetched++
		}
		g.Held[v] = r.State[v] == rank.Held
	}
	return g, nil
}
