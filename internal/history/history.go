// Package history holds the change history of a site's pages: for every
// page (a URL path, its key), the instants it was created, modified and
// deleted. A history is read from the dataset format of the repository's
// change-history files (Parse, in parse.go), written back (WriteTSV, in
// write.go), or generated (Bursty, in bursty.go); the replay server
// (internal/simweb/replay) serves one as a live site, and Evaluate scores a
// crawler's copies against it.
//
// Times are unix seconds. At an instant t a page exists if and only if its
// last event at or before t is plain, and its version number is the count
// of plain events at or before t.
package history

import (
	"fmt"
	"math"
	"sort"
)

// Event is one event of a page: from Time on, the page exists in a new
// version, or, if Deleted, does not exist.
type Event struct {
	Time    int64
	Deleted bool
}

// Page is one page's events, in strictly increasing time; the first is
// plain (the creation) and a deletion always follows a plain event.
type Page struct {
	Key    string
	Events []Event
	plain  []uint32 // plain[i]: plain events in Events[:i+1], the version from Events[i] on
}

// Header is one header line, "# Name: Value".
type Header struct{ Name, Value string }

// History is the pages of a site, sorted by key, and the header of the
// file they came from. End is the end of the observation window (the
// "end:" header; 0 if there is none): pages are unchanged from their last
// event until then.
type History struct {
	Headers []Header
	End     int64
	Pages   []Page
}

// New checks pages (sorted by key, events in order, as Page says) and
// returns their history, each page indexed for the queries.
func New(headers []Header, end int64, pages []Page) (*History, error) {
	for i := range pages {
		p := &pages[i]
		if i > 0 && pages[i-1].Key >= p.Key {
			return nil, fmt.Errorf("history: key %q after %q: keys must be sorted and distinct", p.Key, pages[i-1].Key)
		}
		if err := checkEvents(p.Events); err != nil {
			return nil, fmt.Errorf("history: %s: %w", p.Key, err)
		}
		p.index()
	}
	return &History{Headers: headers, End: end, Pages: pages}, nil
}

// NewPage checks a page's events, as Page says they must be, and returns
// the page indexed for the queries.
func NewPage(key string, events []Event) (Page, error) {
	if err := checkEvents(events); err != nil {
		return Page{}, fmt.Errorf("history: %s: %w", key, err)
	}
	p := Page{Key: key, Events: events}
	p.index()
	return p, nil
}

// checkEvents reports the first breach of the rules on a page's events.
func checkEvents(ev []Event) error {
	if len(ev) == 0 {
		return fmt.Errorf("no events")
	}
	for i, e := range ev {
		if i > 0 && e.Time <= ev[i-1].Time {
			return fmt.Errorf("event %d at %d is not after %d", i+1, e.Time, ev[i-1].Time)
		}
		if e.Deleted && (i == 0 || ev[i-1].Deleted) {
			return fmt.Errorf("event %d: a deletion must follow a plain event", i+1)
		}
	}
	return nil
}

func (p *Page) index() {
	p.plain = make([]uint32, len(p.Events))
	n := uint32(0)
	for i, e := range p.Events {
		if !e.Deleted {
			n++
		}
		p.plain[i] = n
	}
}

// Lookup returns the page of a key, or nil.
func (h *History) Lookup(key string) *Page {
	i := sort.Search(len(h.Pages), func(i int) bool { return h.Pages[i].Key >= key })
	if i < len(h.Pages) && h.Pages[i].Key == key {
		return &h.Pages[i]
	}
	return nil
}

// Drop removes the page of a key and reports whether there was one. The
// dataset's README asks for /pep-0000/ to be dropped, as its state after
// 2009 is unknown.
func (h *History) Drop(key string) bool {
	i := sort.Search(len(h.Pages), func(i int) bool { return h.Pages[i].Key >= key })
	if i == len(h.Pages) || h.Pages[i].Key != key {
		return false
	}
	h.Pages = append(h.Pages[:i:i], h.Pages[i+1:]...)
	return true
}

// Span returns the first and the last event time of the history (0, 0 if
// it has no pages).
func (h *History) Span() (first, last int64) {
	if len(h.Pages) == 0 {
		return 0, 0
	}
	first, last = math.MaxInt64, math.MinInt64
	for i := range h.Pages {
		ev := h.Pages[i].Events
		first, last = min(first, ev[0].Time), max(last, ev[len(ev)-1].Time)
	}
	return first, last
}

// State is a page at one instant.
type State struct {
	Exists  bool
	Version uint32 // plain events at or before the instant
	Since   int64  // the last event at or before it: when the live version appeared, or the deletion
	Next    int64  // the first event after it (math.MaxInt64 if none)
}

// last returns the index of the last event at or before t, or -1.
func (p *Page) last(t int64) int {
	return sort.Search(len(p.Events), func(i int) bool { return p.Events[i].Time > t }) - 1
}

// At returns the page's state at t.
func (p *Page) At(t int64) State {
	i := p.last(t)
	s := State{Next: math.MaxInt64}
	if i+1 < len(p.Events) {
		s.Next = p.Events[i+1].Time
	}
	if i < 0 {
		return s
	}
	s.Exists = !p.Events[i].Deleted
	s.Version = p.plain[i]
	s.Since = p.Events[i].Time
	return s
}

// Created returns when the page was first created.
func (p *Page) Created() int64 { return p.Events[0].Time }

// plainIndex returns the index of the v-th plain event (v ≥ 1), or -1.
func (p *Page) plainIndex(v uint32) int {
	i := sort.Search(len(p.plain), func(i int) bool { return p.plain[i] >= v })
	if i == len(p.plain) || v == 0 {
		return -1
	}
	return i
}

// VersionTime returns when version v (v ≥ 1) appeared, and false if the
// page never had it.
func (p *Page) VersionTime(v uint32) (int64, bool) {
	i := p.plainIndex(v)
	if i < 0 {
		return 0, false
	}
	return p.Events[i].Time, true
}

// StaleSince returns when a copy of version v stopped being the live page:
// the event after the v-th plain one (the next version or the deletion,
// whichever came first), math.MaxInt64 if there is none yet in the whole
// history. A copy of version 0, or of a version the page never had, is
// stale since the creation, as nothing the page ever served matches it.
func (p *Page) StaleSince(v uint32) int64 {
	i := p.plainIndex(v)
	switch {
	case i < 0:
		return p.Events[0].Time
	case i+1 < len(p.Events):
		return p.Events[i+1].Time
	}
	return math.MaxInt64
}

// Modifications returns the plain events after the first (modifications
// and re-creations) and the seconds the page existed up to end.
func (p *Page) Modifications(end int64) (n int, alive int64) {
	for i, e := range p.Events {
		if i > 0 && !e.Deleted {
			n++
		}
		if !e.Deleted {
			next := end
			if i+1 < len(p.Events) {
				next = min(end, p.Events[i+1].Time)
			}
			alive += max(0, next-e.Time)
		}
	}
	return n, alive
}
