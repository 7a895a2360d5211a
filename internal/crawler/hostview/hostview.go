// Package hostview is an operator's view of a crawl's hosts: what each is
// doing, counted by state, and the busiest of them (internal/crawler's
// Crawler.Hosts fills it; internal/ui shows it).
package hostview

import (
	"slices"
	"strings"
	"time"
)

// Host is one host as the scheduler sees it.
type Host struct {
	Name string
	// Queued is its new URLs waiting; Due its earliest revisit due (zero
	// if none); Ready the earliest moment its next request may start.
	Queued     int
	Due, Ready time.Time
	// Delay is its least gap between requests; Fails its consecutive
	// failed requests (it backs off while there are any); Busy whether a
	// request of it is in flight.
	Delay time.Duration
	Fails int
	Busy  bool
}

// Counts counts the hosts by what they are doing: Busy with a request in
// flight; else BackingOff after failed requests, Waiting on their delay
// (or a Retry-After) with work to do, Ready with work they may start
// now, or Idle without work.
type Counts struct {
	All        int `json:"all"`
	Busy       int `json:"busy"`
	BackingOff int `json:"backing_off"`
	Waiting    int `json:"waiting"`
	Ready      int `json:"ready"`
	Idle       int `json:"idle"`
}

// The states of a host (Host.State).
const (
	Busy       = "busy"        // a request of it in flight
	BackingOff = "backing_off" // after failed requests
	Idle       = "idle"        // no work to do
	Waiting    = "waiting"     // work, held back by its delay or a Retry-After
	Ready      = "ready"       // work it may start now
)

// Count counts a host in state.
func (n *Counts) Count(state string) {
	n.All++
	switch state {
	case Busy:
		n.Busy++
	case BackingOff:
		n.BackingOff++
	case Idle:
		n.Idle++
	case Waiting:
		n.Waiting++
	default:
		n.Ready++
	}
}

// State is what the host is doing at now: "busy", "backing_off", "idle",
// "waiting" or "ready", in that order of precedence.
func (v Host) State(now time.Time) string {
	switch {
	case v.Busy:
		return Busy
	case v.Fails > 0:
		return BackingOff
	case v.Queued == 0 && (v.Due.IsZero() || v.Due.After(now)):
		return Idle
	case v.Ready.After(now):
		return Waiting
	}
	return Ready
}

// Top keeps the n hosts with the most new URLs queued (ties to the
// earliest revisit due, none last, then by name), most first.
type Top struct {
	n     int
	views []Host
}

// NewTop returns an empty Top of n.
func NewTop(n int) *Top { return &Top{n: n, views: make([]Host, 0, max(n, 0)+1)} }

// Add offers v.
func (t *Top) Add(v Host) {
	if t.n <= 0 {
		return
	}
	i, _ := slices.BinarySearchFunc(t.views, v, before)
	if i < t.n {
		t.views = slices.Insert(t.views, i, v)
		t.views = t.views[:min(len(t.views), t.n)]
	}
}

// Hosts returns the hosts kept, most first.
func (t *Top) Hosts() []Host { return t.views }

// before orders hosts for Top.
func before(a, b Host) int {
	if a.Queued != b.Queued {
		return b.Queued - a.Queued
	}
	switch {
	case !a.Due.Equal(b.Due) && (b.Due.IsZero() || !a.Due.IsZero() && a.Due.Before(b.Due)):
		return -1
	case !a.Due.Equal(b.Due):
		return 1
	}
	return strings.Compare(a.Name, b.Name)
}
