package crawler

import (
	"time"

	"github.com/freshcrawl/freshcrawl/internal/clock"
)

// This file is the last step of a commit (commit.go): the scheduler
// (sched.go) learns what the batch's outcomes found, and their URLs are no
// longer in flight. Their hosts were handed back before (pipeline.go),
// with their politeness settled and the queue items they took gone from
// their in-memory view; what needed the commit waits for it: the URLs
// found, the next due times, a fresh view where a task found nothing.

// release tells the scheduler what the batch's outcomes found: new queue
// lengths and due times. With enq nil (a failed commit), nothing was
// recorded and the hosts only wait.
func (c *Crawler) release(batch []outcome, recs []*record, enq map[string]int) {
	views := c.freshViews(batch, enq)
	for i := range batch {
		if u := batch[i].marked; u != "" {
			h := batch[i].t.h
			h.mu.Lock()
			delete(h.inflight, u)
			h.mu.Unlock()
		}
	}
	for _, p := range c.cm.pulled {
		p.h.mu.Lock()
		delete(p.h.inflight, p.url)
		p.h.mu.Unlock()
	}
	c.cm.pulled = c.cm.pulled[:0]
	if c.ranker != nil {
		for i := range batch {
			if batch[i].t.claimed {
				c.ranker.Unclaim() // its victim, if it needed one, has left
			}
		}
	}
	s := c.sched
	s.mu.Lock()
	now := c.now()
	for i := range batch {
		o := &batch[i]
		h := o.t.h
		s.uncommitted--
		if o.t.reserved {
			s.reserved--
		}
		h.pending--
		h.consumed -= o.taken
		h.stalled = false
	}
	// The store's views were read after the whole batch committed.
	for i := range batch {
		o := &batch[i]
		h := o.t.h
		if enq == nil {
			h.ready = clock.Later(h.ready, now.Add(time.Second+h.Delay))
		}
		before := h.queued
		if enq != nil && !o.aborted && o.err == nil {
			settleWork(h, o, recOf(recs, i), views[i], enq[h.Name])
		}
		h.queued = max(h.queued, 0)
		s.queued.Add(int64(h.queued - before))
		noteQueue(h, before, now)
		s.update(h)
	}
	c.noteFound(enq, now)
	s.setFullLocked(c.cfg.MaxPages > 0 && c.held.Load() >= int64(c.cfg.MaxPages))
	s.mu.Unlock()
	s.signal()
}

// noteFound tells the scheduler of the URLs a commit queued, by host.
// The caller holds its lock.
func (c *Crawler) noteFound(enq map[string]int, now time.Time) {
	s := c.sched
	for name, n := range enq {
		if n == 0 {
			continue
		}
		h := s.get(name, c.cfg.Delay)
		h.queued += n
		s.queued.Add(int64(n))
		noteQueue(h, h.queued-n, now)
		s.update(h)
	}
}

// noteQueue keeps h.newAt, the scheduler's key for h's new URLs, in step
// with its queue, which held before URLs and holds h.queued now: now when
// the queue fills from empty; when URLs leave it, moved towards now by
// the share of the queue they were, as though its URLs had been found
// evenly between newAt and now. A host with ten times the queue thus ages
// ten times slower per URL taken, and gets ten times the picks.
func noteQueue(h *host, before int, now time.Time) {
	switch {
	case h.queued == 0:
		h.newAt = time.Time{}
	case before == 0 || h.newAt.IsZero():
		h.newAt = now
	case h.queued < before:
		took := float64(before-h.queued) / float64(before)
		h.newAt = h.newAt.Add(time.Duration(float64(now.Sub(h.newAt)) * took))
	}
}

// view is what the store says of a host after a commit, where its
// in-memory state cannot tell: its next due time and queue length.
type view struct {
	nextDue time.Time
	queued  int
}

// freshViews reads, outside the scheduler's lock, the next due time of
// each host whose revisit was consumed, and a fresh view of each host
// whose task found nothing to do (its in-memory view was stale).
func (c *Crawler) freshViews(batch []outcome, enq map[string]int) []view {
	views := make([]view, len(batch))
	for i := range batch {
		o := &batch[i]
		if enq == nil || o.aborted || o.err != nil {
			continue
		}
		revisited := o.page != nil && (!o.page.fromDue.IsZero() || o.page.promoted) && !o.retry
		if revisited || idle(o) {
			due, err := c.store.Due(o.t.h.Name, maxTime, 1)
			if err != nil {
				c.log.Error("read due index", "host", o.t.h.Name, "err", err)
			} else if len(due) > 0 {
				views[i].nextDue = due[0].Due
			}
		}
		if idle(o) {
			n, err := c.store.Len(o.t.h.Name)
			if err != nil {
				c.log.Error("read queue length", "host", o.t.h.Name, "err", err)
			}
			views[i].queued = n
		}
	}
	return views
}

// settlePoliteness sets when h may next be asked, after o: its delay
// after the request, longer after a failure (back-off, Retry-After), a
// robots.txt that could not be read, or a failed read of the crawl state.
// (A failed commit holds its hosts back in release.) The caller holds the
// scheduler's lock and owns h's task.
func (c *Crawler) settlePoliteness(h *host, o *outcome, now time.Time) {
	if o.delay > 0 && o.delay != h.Delay {
		h.mu.Lock() // the committer reads it too
		h.Delay = o.delay
		h.mu.Unlock()
	}
	if !o.end.IsZero() {
		h.ready = o.end.Add(h.Delay)
	}
	switch {
	case o.err != nil:
		c.log.Error("crawl state read failed", "host", h.Name, "err", o.err)
		h.ready = clock.Later(h.ready, now.Add(time.Second+h.Delay))
	case o.aborted:
	case !o.waitUntil.IsZero():
		h.ready = clock.Later(h.ready, o.waitUntil)
	case o.transient != "":
		c.settleFailure(h, o, now)
	default:
		if !o.end.IsZero() {
			h.fails, h.attempts = 0, 0
		}
	}
}

// settleFailure backs h off after a request that failed transiently, and
// counts the attempt.
func (c *Crawler) settleFailure(h *host, o *outcome, now time.Time) {
	h.fails++
	h.ready = clock.Later(h.ready, o.end.Add(c.backoff(h)))
	if o.retryAfter > 0 {
		h.ready = clock.Later(h.ready, o.end.Add(o.retryAfter))
	}
	if o.retry {
		h.attempts++
	} else {
		h.attempts = 0
	}
	c.stats.failures.Add(1)
	c.log.Warn("fetch failed", "host", h.Name, "url", o.url, "reason", o.transient,
		"attempt", o.t.attempts+1, "retry_after", o.retryAfter, "next", h.ready.Sub(now).Round(time.Millisecond))
}

// settleWork brings h's view of its work up to date after o's commit: its
// next due time, and, where its task found nothing to do, the store's
// view v, less the queue items taken by outcomes not yet committed and
// the n URLs the batch queued on h, which release adds after. (The items
// o took left h.queued when h was handed back.) A due time read from the
// store may be one of a URL in flight, earlier than the next the host may
// take: early is safe, the task finds out.
func settleWork(h *host, o *outcome, r *record, v view, n int) {
	if pr := o.page; pr != nil && !o.retry && (!pr.fromDue.IsZero() || pr.promoted) {
		h.due = v.nextDue
	}
	if r != nil && !r.page.NextDue.IsZero() {
		h.due = clock.Earliest(h.due, r.page.NextDue)
	}
	if idle(o) {
		h.queued, h.due = max(v.queued-h.consumed-n, 0), v.nextDue
	}
}

// idle reports whether a task found nothing to do: no request, no
// candidate, which means the scheduler's view of the host was stale.
func idle(o *outcome) bool {
	return o.page == nil && len(o.skipped) == 0 && o.robots == nil && o.end.IsZero() && o.waitUntil.IsZero()
}

func recOf(recs []*record, i int) *record {
	if recs == nil {
		return nil
	}
	return recs[i]
}

// maxTime is later than any due time.
var maxTime = time.Unix(1<<62, 0)

// backoff is the wait after h's fails-th consecutive failure: the host's
// delay (at least a second) doubled per failure, up to DefaultMaxBackoff.
func (c *Crawler) backoff(h *host) time.Duration {
	d := max(h.Delay, time.Second)
	for i := 1; i < h.fails && d < DefaultMaxBackoff; i++ {
		d *= 2
	}
	return min(d, DefaultMaxBackoff)
}
