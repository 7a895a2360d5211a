package crawler

import (
	"slices"
	"strings"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/refresh"
	"github.com/freshcrawl/freshcrawl/internal/robots"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// This file is what an operator's view of a running crawl (internal/ui)
// reads besides Stats: the parts the crawler runs on, and its hosts.

// Refresh returns the crawl's refresh module: its plan, estimates and
// expectations.
func (c *Crawler) Refresh() *refresh.Module { return c.refresh }

// Store returns the crawl's state, for reads while the crawl runs.
func (c *Crawler) Store() *store.Store { return c.store }

// Robots returns the crawl's robots.txt cache.
func (c *Crawler) Robots() *robots.Cache { return c.robots }

// HostView is one host as the scheduler sees it.
type HostView struct {
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

// HostCounts counts the hosts by what they are doing: Busy with a request
// in flight; else BackingOff after failed requests, Waiting on their
// delay (or a Retry-After) with work to do, Ready with work they may
// start now, or Idle without work.
type HostCounts struct {
	All        int `json:"all"`
	Busy       int `json:"busy"`
	BackingOff int `json:"backing_off"`
	Waiting    int `json:"waiting"`
	Ready      int `json:"ready"`
	Idle       int `json:"idle"`
}

// Hosts returns the top hosts with the most new URLs queued (ties to the
// earliest revisit due), most first, and the counts of all hosts by
// state at now. It takes the scheduler's lock for one pass over the
// hosts.
func (c *Crawler) Hosts(top int, now time.Time) ([]HostView, HostCounts) {
	var n HostCounts
	views := make([]HostView, 0, top+1)
	c.sched.mu.Lock()
	defer c.sched.mu.Unlock()
	for _, h := range c.sched.hosts {
		v := HostView{Name: h.Name, Queued: h.queued, Due: h.due, Ready: h.ready, Delay: h.Delay, Fails: h.fails, Busy: h.busy}
		n.All++
		switch v.State(now) {
		case hostBusy:
			n.Busy++
		case hostBackingOff:
			n.BackingOff++
		case hostIdle:
			n.Idle++
		case hostWaiting:
			n.Waiting++
		default:
			n.Ready++
		}
		if top <= 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(views, v, before)
		if i < top {
			views = slices.Insert(views, i, v)
			views = views[:min(len(views), top)]
		}
	}
	return views, n
}

// The states of a host (HostView.State).
const (
	hostBusy       = "busy"        // a request of it in flight
	hostBackingOff = "backing_off" // after failed requests
	hostIdle       = "idle"        // no work to do
	hostWaiting    = "waiting"     // work, held back by its delay or a Retry-After
	hostReady      = "ready"       // work it may start now
)

// State is what the host is doing at now: "busy", "backing_off", "idle",
// "waiting" or "ready", in that order of precedence.
func (v HostView) State(now time.Time) string {
	switch {
	case v.Busy:
		return hostBusy
	case v.Fails > 0:
		return hostBackingOff
	case v.Queued == 0 && (v.Due.IsZero() || v.Due.After(now)):
		return hostIdle
	case v.Ready.After(now):
		return hostWaiting
	}
	return hostReady
}

// before orders host views for Hosts: more queued first, then the earlier
// revisit due (none last), then by name.
func before(a, b HostView) int {
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
