package crawler

// This file is the middle of a fetch's way through the crawler, between
// its request (work.go) and its commit (commit.go). Once the answer has
// been read, the worker hands the host back to the scheduler (handBack):
// its politeness is settled from the answer's end, the queue items the
// outcome took leave the host's in-memory view, and its URL is marked in
// flight. The host's next request may then go out as soon as its delay
// allows, while the worker reads the answer and encodes its WARC records
// (process) and the committer records it. Until that commit:
//
//   - no task takes a URL in flight again: candidates skip host.inflight,
//     and a queue read starts after the items taken (host.nextSeq);
//   - no sweep or sitemap signal moves its row (sweepSkip);
//   - the host's outcomes are committed in the order they were handed
//     back (host.handed), so its queue items leave the queue in order;
//   - a task that found nothing to do while some are pending stalls its
//     host until one of them commits, since what it saw may be their
//     state before the commit (host.stalled).
//
// One request per host is in flight at a time, as before: a host is busy
// from its dispatch until its answer is read.

// handBack returns o's host to the scheduler once its request has been
// answered.
func (c *Crawler) handBack(o *outcome) {
	h := o.t.h
	taken := o.take()
	counted := o.err != nil || !idle(o)
	if pr := o.page; pr != nil && !o.retry && !o.aborted && o.err == nil {
		h.mu.Lock()
		if h.inflight == nil {
			h.inflight = map[string]struct{}{}
		}
		h.inflight[pr.item.URL] = struct{}{}
		h.mu.Unlock()
	}
	s := c.sched
	s.mu.Lock()
	h.busy = false
	s.inFly--
	s.uncommitted++
	c.settlePoliteness(h, o, false, c.now())
	before := h.queued
	h.queued = max(h.queued-taken, 0)
	s.queued.Add(int64(h.queued - before))
	noteQueue(h, before, c.now())
	o.seq = h.handed
	h.handed++
	if counted {
		o.counted, o.taken = true, taken
		h.pending++
		h.consumed += taken
	} else if h.pending > 0 {
		h.stalled = true
	}
	s.update(h)
	s.mu.Unlock()
	s.signal()
}

// take drops from the host's head buffer the queue items o took, which
// leave its queue when o commits, and returns how many. A task that found
// nothing to do empties the buffer: the store may hold what it missed.
// The worker owns the buffer while the host is busy.
func (o *outcome) take() int {
	h := o.t.h
	if o.err != nil || o.aborted {
		return 0
	}
	seqs := o.skipped
	if pr := o.page; pr != nil && !o.retry && pr.fromDue.IsZero() && !pr.promoted {
		seqs = append(seqs[:len(seqs):len(seqs)], pr.seq)
	}
	for _, q := range seqs {
		h.nextSeq = max(h.nextSeq, q+1)
	}
	h.head = dropThrough(h.head, seqs...)
	if idle(o) {
		h.head = nil
	}
	return len(seqs)
}

// sweepSkip is the rows of h a sweep or a sitemap's signal must leave
// alone while txn is staged: those of URLs in flight, whose outcomes will
// write them, and those txn already writes. The caller holds h.mu.
func sweepSkip(h *host, txn interface{ Staged(string) bool }) func(string) bool {
	return func(u string) bool { return h.flying(u) || txn.Staged(u) }
}
