package crawler

import (
	"github.com/freshcrawl/freshcrawl/internal/rank"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// LinkGraph is the link graph a crawl has recorded: every page fetched
// with content and the pages it links to (in scope, within the trap
// limits, nofollow left out unless followed), over dense node ids.
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
// that is not running. Errors are as ReadStatus's.
func ReadLinkGraph(dir string) (*LinkGraph, error) {
	s, err := openReadOnly(dir)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	g := &LinkGraph{}
	ids := map[store.Hash]uint32{}
	node := func(h store.Hash) uint32 {
		if v, ok := ids[h]; ok {
			return v
		}
		v := uint32(len(ids))
		ids[h] = v
		g.AddNode(v)
		return v
	}
	err = s.ForEachLinks(func(page store.Hash, targets []store.Hash) error {
		u := node(page)
		g.Fetched++
		for _, t := range targets {
			g.AddEdge(u, node(t))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	g.URLs = make([]string, len(ids))
	g.Held = make([]bool, len(ids))
	err = s.ForEachPage(func(p store.Page) error {
		if v, ok := ids[store.HashURL(p.URL)]; ok {
			g.URLs[v], g.Held[v] = p.URL, p.Held
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = s.Hosts(func(host string, _ int) error {
		for from := uint64(0); ; {
			items, err := s.Peek(host, from, 4096)
			if err != nil || len(items) == 0 {
				return err
			}
			for _, it := range items {
				if v, ok := ids[store.HashURL(it.URL)]; ok && g.URLs[v] == "" {
					g.URLs[v] = it.URL
				}
			}
			from = items[len(items)-1].Seq + 1
		}
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}
