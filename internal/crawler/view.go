package crawler

import (
	"time"

	"github.com/freshcrawl/freshcrawl/internal/crawler/hostview"
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

// Hosts returns the top hosts (as the scheduler sees them) with the most new URLs queued (ties to the
// earliest revisit due), most first, and the counts of all hosts by
// state at now. It takes the scheduler's lock for one pass over the
// hosts.
func (c *Crawler) Hosts(top int, now time.Time) ([]hostview.Host, hostview.Counts) {
	var n hostview.Counts
	t := hostview.NewTop(top)
	c.sched.mu.Lock()
	defer c.sched.mu.Unlock()
	for _, h := range c.sched.hosts {
		v := hostview.Host{Name: h.Name, Queued: h.queued, Due: h.due, Ready: h.ready, Delay: h.Delay, Fails: h.fails, Busy: h.busy}
		n.Count(v.State(now))
		t.Add(v)
	}
	return t.Hosts(), n
}
