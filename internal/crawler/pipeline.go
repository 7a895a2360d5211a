package crawler

import "github.com/freshcrawl/freshcrawl/internal/store"

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
//     and a queue read starts after the items taken (host.nextSeq); a
//     revisit's URL is in flight from the moment it is chosen, and a row
//     a sweep or signal pulled is until that pull commits;
//   - no sweep or sitemap signal moves its row (hostRows);
//   - the host's outcomes are committed in the order they were handed
//     back (host.handed), so its queue items leave the queue in order;
//   - a task that found nothing to do stalls its host until an outcome of
//     the host commits (host.stalled): its view of the host was stale,
//     and only a commit brings a fresh one.
//
// One request per host is in flight at a time, as before: a host is busy
// from its dispatch until its answer is read.

// handBack returns o's host to the scheduler once its request has been
// answered.
func (c *Crawler) handBack(o *outcome) {
	h := o.t.h
	taken := o.take()
	mark := ""
	if pr := o.page; pr != nil && !o.retry && !o.aborted && o.err == nil {
		mark = pr.item.URL // its commit writes the row
	}
	if mark != o.marked {
		h.mu.Lock()
		if o.marked != "" {
			delete(h.inflight, o.marked)
		}
		if mark != "" {
			h.fly(mark)
		}
		o.marked = mark
		h.mu.Unlock()
	}
	s := c.sched
	s.mu.Lock()
	h.busy = false
	s.inFly--
	s.uncommitted++
	c.settlePoliteness(h, o, c.now())
	before := h.queued
	h.queued = max(h.queued-taken, 0)
	s.queued.Add(int64(h.queued - before))
	noteQueue(h, before, c.now())
	o.seq = h.handed
	h.handed++
	o.taken = taken
	h.pending++
	h.consumed += taken
	if o.err == nil && idle(o) {
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
	seqs := o.skipped // staged as done whatever else happened
	if pr := o.page; pr != nil && !o.retry && !o.aborted && o.err == nil && pr.fromDue.IsZero() && !pr.promoted {
		seqs = append(seqs[:len(seqs):len(seqs)], pr.seq)
	}
	for _, q := range seqs {
		h.nextSeq = max(h.nextSeq, q+1)
	}
	h.head = store.DropThrough(h.head, seqs...)
	if idle(o) {
		h.head = nil
	}
	return len(seqs)
}

// fly marks u in flight. The caller holds h.mu.
func (h *host) fly(u string) {
	if h.inflight == nil {
		h.inflight = map[string]struct{}{}
	}
	h.inflight[u] = struct{}{}
}

// hostRows is what a sweep or a sitemap's signal on h, staged in txn, must
// leave alone (refresh.Rows): the rows of URLs in flight, whose outcomes
// will write them, and those txn writes already. A row it pulls is in
// flight until the commit, since a task reading the store before it would
// see the row's old due entry; pulled lists them for release. The caller
// holds h.mu.
type hostRows struct {
	h      *host
	txn    *store.Txn
	pulled *[]pulledRow
}

// pulledRow is a URL of h whose pull a batch stages.
type pulledRow struct {
	h   *host
	url string
}

func (r hostRows) Skip(u string) bool { return r.h.flying(u) || r.txn.Staged(u) }

func (r hostRows) Pulled(u string) {
	r.h.fly(u)
	*r.pulled = append(*r.pulled, pulledRow{r.h, u})
}

// rowsOf is what a sweep or signal on h staged in txn leaves alone.
func (c *Crawler) rowsOf(h *host, txn *store.Txn) hostRows {
	return hostRows{h: h, txn: txn, pulled: &c.cm.pulled}
}
