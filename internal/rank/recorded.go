package rank

import (
	"slices"
	"sync"

	"github.com/freshcrawl/freshcrawl/internal/store"
)

// NodeState is where a URL of a crawl stands for the ranking.
type NodeState uint8

// The states of a URL.
const (
	Frontier NodeState = iota // found, never fetched
	Held                      // in the collection
	Evicted                   // left a full collection: may come back
	Gone                      // fetched and not kept (an error, a redirect, not HTML), or disallowed
)

// RowState is the ranking's view of a stored page row: held, evicted
// (fetched with content but not held: it may come back), or gone.
func RowState(p *store.Page) NodeState {
	switch {
	case p.Held:
		return Held
	case p.LastFetch.IsZero():
		return Frontier
	case p.Status >= 200 && p.Status < 300 && p.Evicted:
		return Evicted
	}
	return Gone
}

// Recorded is the link graph a crawl records as it goes, over dense node
// ids: a node per URL the crawl knows, the out-links of the pages it
// fetched with content (those in scope, within the trap limits), and each
// URL's state. A URL's id is found by the hash the store keys it by, so
// that links stored as hashes and rows read later meet at one node.
type Recorded struct {
	// idsMu guards ids against readers outside the goroutine that grows
	// the graph (Ranker.Weight).
	idsMu sync.RWMutex
	ids   map[store.Hash]uint32
	// URLs[v] is node v's URL; "" for a URL only linked to whose row is
	// gone and which is not queued (a URL dropped by a host's URL limit).
	URLs []string
	// Out[v] is node v's out-links, sorted.
	Out [][]uint32
	// State[v] is node v's state.
	State []NodeState
	// Named[v] says a link to v names the topic; Hot[v] that the page,
	// fetched, was found hot for it (topic ordering only).
	Named, Hot []bool
	// Inlinks[v] counts the links to v from pages outside the crawl: in a
	// cluster, those other partitions found (store.CounterInlinks).
	Inlinks []float64
}

// node returns the id of the URL of hash h, adding a node if it is new.
// url may be "" when only the hash is known.
func (g *Recorded) node(h store.Hash, url string) uint32 {
	v, ok := g.ids[h]
	if !ok {
		v = uint32(len(g.URLs))
		g.idsMu.Lock()
		if g.ids == nil {
			g.ids = map[store.Hash]uint32{}
		}
		g.ids[h] = v
		g.idsMu.Unlock()
		g.URLs = append(g.URLs, url)
		g.Out = append(g.Out, nil)
		g.State = append(g.State, Frontier)
		g.Named = append(g.Named, false)
		g.Hot = append(g.Hot, false)
		g.Inlinks = append(g.Inlinks, 0)
	} else if g.URLs[v] == "" {
		g.URLs[v] = url
	}
	return v
}

// id returns the node of url, if there is one; safe beside the graph's
// growth.
func (g *Recorded) id(url string) (uint32, bool) {
	g.idsMu.RLock()
	v, ok := g.ids[store.HashURL(url)]
	g.idsMu.RUnlock()
	return v, ok
}

// Load reads the graph store s holds: the recorded links, every page row's
// state, and the queued URLs (which the ranking may order before their
// links are known).
func (g *Recorded) Load(s *store.Store) error {
	err := s.ForEachLinks(func(page store.Hash, targets []store.Hash) error {
		u := g.node(page, "")
		out := make([]uint32, len(targets))
		for i, t := range targets {
			out[i] = g.node(t, "")
		}
		g.Out[u] = out
		return nil
	})
	if err != nil {
		return err
	}
	err = s.ForEachPage(func(p store.Page) error {
		if p.Kind == store.KindPage {
			g.State[g.node(store.HashURL(p.URL), p.URL)] = RowState(&p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = s.ForEachInlinks(func(h store.Hash, n int64) error {
		g.Inlinks[g.node(h, "")] = float64(n)
		return nil
	})
	if err != nil {
		return err
	}
	return s.Hosts(func(host string, _ int) error {
		for from := uint64(0); ; {
			items, err := s.Peek(host, from, 4096)
			if err != nil || len(items) == 0 {
				return err
			}
			for _, it := range items {
				if it.Kind == store.KindPage {
					g.node(store.HashURL(it.URL), it.URL)
				}
			}
			from = items[len(items)-1].Seq + 1
		}
	})
}

// Update is what a commit changed about one page of the crawl.
type Update struct {
	URL   string
	State NodeState
	// SetLinks replaces the page's out-links by Links (new content was
	// read); Named says, under topic ordering, which of them name the
	// topic, and Hot whether the page is hot for it.
	SetLinks bool
	Links    []string
	Named    []bool
	Hot      bool
	// Inlinks, if not zero, is the number of links to the URL from pages
	// outside the crawl (a cluster's other partitions), as the store now
	// counts them; such an update changes nothing else.
	Inlinks int64
}

// apply folds u into the graph.
func (g *Recorded) apply(u Update) {
	v := g.node(store.HashURL(u.URL), u.URL)
	if u.Inlinks != 0 {
		g.Inlinks[v] = float64(u.Inlinks)
		return
	}
	g.State[v] = u.State
	if !u.SetLinks {
		return
	}
	g.Hot[v] = u.Hot
	out := g.Out[v][:0]
	for i, l := range u.Links {
		t := g.node(store.HashURL(l), l)
		out = append(out, t)
		if i < len(u.Named) && u.Named[i] {
			g.Named[t] = true
		}
	}
	slices.Sort(out)
	g.Out[v] = slices.Compact(out)
}

// Builder returns a builder of the graph's links over all its nodes.
func (g *Recorded) Builder() *Builder {
	var b Builder
	if n := len(g.URLs); n > 0 {
		b.AddNode(uint32(n - 1))
	}
	for u, out := range g.Out {
		for _, v := range out {
			b.AddEdge(uint32(u), v)
		}
	}
	return &b
}
