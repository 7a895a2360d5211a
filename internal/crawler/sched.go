package crawler

import (
	"container/heap"
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/clock"
	"github.com/freshcrawl/freshcrawl/internal/crawler/timeheap"
	"github.com/freshcrawl/freshcrawl/internal/rank"
	"github.com/freshcrawl/freshcrawl/internal/refresh"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// headBuffer is how many queue items a host keeps in memory: enough that
// three tasks in four read nothing from the store, few enough that a
// million hosts cost well under a gigabyte.
const headBuffer = 4

// host is the in-memory schedule state of one host (an authority: name
// and port). The URLs themselves stay on disk, in the store's per-host
// queue and due index; this holds only what the dispatcher needs to pick
// the next host: about 150 bytes a host.
type host struct {
	// Host is the refresh module's part: the host's name, its delay
	// between requests (the configured delay or the robots.txt
	// Crawl-delay, capped, whichever is longer), its capacity, and what
	// is known of its changes. The worker and the committer use it while
	// the host is busy.
	refresh.Host
	// ready is the earliest moment the next request may start: the end of
	// the last request plus the host's delay, or later after errors and
	// Retry-After.
	ready time.Time
	// busy is set from dispatch until the task's request has been
	// answered (handBack), so a host has at most one request in flight.
	// The outcome is then read, archived and committed off the host's
	// path while its next request goes out (pipeline.go).
	busy bool
	// pending counts the outcomes handed back but not yet released,
	// consumed the queue items they took, and stalled is set when a task
	// found nothing to do: its view was stale, so the host is not
	// dispatched again until an outcome of it is released with a fresh
	// one.
	pending, consumed int
	stalled           bool
	// handed numbers the host's outcomes as they are handed back; the
	// committer records them in that order (committed is its count).
	handed, committed uint64
	// queued counts the host's queued new URLs.
	queued int
	// due is the earliest revisit due time; zero if none is scheduled.
	due time.Time
	// fails counts consecutive failed requests, for back-off; attempts
	// counts tries of the task at the head of the host's work.
	fails, attempts int
	// head holds the first items of the host's queue as last read from the
	// store, oldest first, and nextSeq is the queue position after the
	// last item taken: items leave head when they are taken, before their
	// outcomes commit, and a read of the store starts at nextSeq. The task
	// owns both while the host is busy.
	head    []store.QueuedItem
	nextSeq uint64
	// mu guards what the worker choosing the host's next URL and the
	// committer recording its last ones both touch: the refresh module's
	// Host and inflight, the URLs whose outcomes are handed back but not
	// committed, which no task takes again, and no sweep or signal moves,
	// until they are. Lock order: the scheduler's mu, then this one.
	mu       sync.Mutex
	inflight map[string]struct{}
	// promoted holds the ranking's URLs of the host not yet fetched, most
	// important first (rank.Ranker); dispatch takes them before the queue.
	promoted []rank.Promotion
	// newRun counts the new URLs the host has fetched in a row while
	// revisits were due. New URLs go first: a page not yet held is worth
	// more than a fresher copy of one held (it counts as stale until
	// fetched), and the revisits' share of the budget is planned with the
	// queue taken out (refresh's revisit budget). But a host whose queue
	// outruns its politeness rate must not starve its revisits for ever:
	// after newPerRevisit new URLs, a due revisit takes a turn. The
	// worker owns it while the host is busy.
	newRun int

	// newAt stands for the time the host's first queued URL was found,
	// as its key among ready hosts (since): the queue's URLs are taken as
	// found evenly between newAt and now, which the store does not record.
	newAt time.Time

	wake  time.Time // waiting heap key: when the host next has work it may do
	since time.Time // ready heap key: how long its oldest work has waited
	in    *hostHeap // the heap idx indexes: the scheduler's waiting or ready one
	idx   int       // heap index, -1 when not in a heap
	pidx  int       // index in the heap of hosts with promoted URLs, -1 when not in it
}

// hostHeap orders idle hosts by a time. A host can be in two heaps at
// once (one of the scheduler's and the promoted hosts'), each keeping the
// host's position in its own field.
type hostHeap = timeheap.Heap[*host]

func wakeOf(h *host) time.Time  { return h.wake }
func sinceOf(h *host) time.Time { return h.since }

// scheduler is the dispatcher's state: every host known, and two heaps of
// the idle ones that have work: those that may not be asked yet, keyed by
// the time they may (wake), and those that may, keyed by how long their
// oldest work has waited (since). The hosts holding the ranking's URLs
// are in a third heap too, and of the hosts that may be asked now, those
// go first: an importance ordering orders hosts as well as each host's
// URLs.
//
// Of the ready hosts the one whose oldest work has waited longest goes
// first: its earliest due revisit, or for new URLs the time its queue's
// head stands for (host.newAt). This is earliest-deadline-first across
// hosts, and it makes the budget follow the backlog without counting it:
// a host with ten times the due pages has ten times as many due times in
// any stretch of the past, so while the budget binds it is picked ten
// times as often, and every host's oldest work waits about as long. A
// backlog-weighted lottery or deficit counter would need each host's
// count of due revisits, which the store's due index does not keep. A
// host held back by its delay is simply not ready, so the slots it cannot
// take go to the others.
type scheduler struct {
	now   func() time.Time
	mu    sync.Mutex
	hosts map[string]*host
	wait  hostHeap // idle hosts with work not yet ready, by idx
	ready hostHeap // idle hosts ready at the last pick, by idx
	promo hostHeap // those of them holding promoted URLs, by pidx
	full  bool     // the collection is at capacity: new URLs wait
	kick  chan struct{}
	inFly int
	// uncommitted counts the outcomes handed back and not yet released
	// (pipeline.go): what they found is not yet in queued.
	uncommitted int
	// queued counts the new URLs in the hosts' queues (Σ h.queued), read
	// without mu by the refresh module (size.Queued).
	queued atomic.Int64
	// reserved counts tasks in flight that may fetch a new URL, each of
	// which may add a page to the collection when it commits.
	reserved int
	// onFull, if set, is called (with mu held) when the collection fills;
	// unclaim gives back the victim a task not dispatched had reserved.
	onFull, unclaim func()
	// explore keeps new URLs flowing when the collection is full
	// (refinement: they are fetched, and kept only in a weaker page's
	// place).
	explore bool
	// notBefore is the earliest a host may be asked after the store was
	// opened: a request of the run before may have gone unrecorded.
	notBefore time.Time
}

func newScheduler(now func() time.Time) *scheduler {
	return &scheduler{
		now: now, hosts: map[string]*host{}, kick: make(chan struct{}, 1),
		wait:  hostHeap{Pos: func(h *host) *int { return &h.idx }, Key: wakeOf},
		ready: hostHeap{Pos: func(h *host) *int { return &h.idx }, Key: sinceOf},
		promo: hostHeap{Pos: func(h *host) *int { return &h.pidx }, Key: wakeOf},
	}
}

// get returns name's host, creating it. The caller holds s.mu.
func (s *scheduler) get(name string, delay time.Duration) *host {
	h, ok := s.hosts[name]
	if !ok {
		h = &host{Host: refresh.Host{Name: name, Delay: delay}, idx: -1, pidx: -1, ready: s.notBefore}
		s.hosts[name] = h
	}
	return h
}

// update recomputes h's wake time and key and puts it back among the
// waiting hosts (pick moves it to the ready ones when its time has come).
// The caller holds s.mu.
func (s *scheduler) update(h *host) {
	var work, since time.Time
	hasWork := false
	if h.queued > 0 && (!s.full || s.explore) {
		work, since, hasWork = h.ready, h.newAt, true
	}
	if len(h.promoted) > 0 && (!hasWork || h.ready.Before(since)) {
		work, since, hasWork = h.ready, h.ready, true
	}
	if !h.due.IsZero() {
		w := clock.Later(h.due, h.ready)
		if !hasWork || w.Before(work) {
			work = w
		}
		if !hasWork || h.due.Before(since) {
			since = h.due
		}
		hasWork = true
	}
	if h.idx >= 0 {
		heap.Remove(h.in, h.idx)
	}
	if !h.busy && !h.stalled && h.pending < maxPipeline && hasWork {
		h.wake, h.since, h.in = work, since, &s.wait
		heap.Push(&s.wait, h)
	}
	// A full collection's exploring URLs get no precedence: only those
	// that may enter it (all of them while it has room).
	switch promoted := h.idx >= 0 && len(h.promoted) > 0 && h.promoted[0].Enters; {
	case !promoted:
		if h.pidx >= 0 {
			heap.Remove(&s.promo, h.pidx)
		}
	case h.pidx >= 0:
		heap.Fix(&s.promo, h.pidx)
	default:
		heap.Push(&s.promo, h)
	}
}

// setPromoted hands the hosts the ranking's URLs, replacing the last
// ones.
func (s *scheduler) setPromoted(byHost map[string][]rank.Promotion) {
	s.mu.Lock()
	for name, h := range s.hosts {
		if len(h.promoted) > 0 && byHost[name] == nil {
			h.promoted = nil
			s.update(h)
		}
	}
	for name, urls := range byHost {
		if h, ok := s.hosts[name]; ok {
			h.promoted = urls
			s.update(h)
		}
	}
	s.mu.Unlock()
	s.signal()
}

// signal wakes the dispatcher to look at the heap again.
func (s *scheduler) signal() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// setFullLocked records whether the collection is full; when that changes,
// so does every host's wake time. The caller holds s.mu.
func (s *scheduler) setFullLocked(full bool) {
	if s.full == full {
		return
	}
	s.full = full
	for _, h := range s.hosts {
		if full {
			// Handed out before the collection filled: they were not
			// measured against the pages held. The next ranking is.
			h.promoted = nil
		}
		s.update(h)
	}
	if full && s.onFull != nil {
		s.onFull()
	}
}

// next blocks until a host may be asked for work, marks it busy and
// returns it, or returns nil when ctx is done.
func (s *scheduler) next(ctx context.Context) *host {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		s.mu.Lock()
		h, wait := s.pick(s.now())
		s.mu.Unlock()
		if h != nil {
			return h
		}
		var tc <-chan time.Time
		if wait >= 0 {
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			tc = timer.C
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.kick:
		case <-tc:
		}
	}
}

// pick hands out the host that may be asked for work at now, marked busy:
// of the hosts whose time has come, one holding the ranking's URLs if
// there is one, else the one whose oldest work has waited longest. With
// none, it returns how long until the first wakes (-1: no host has work).
// now never goes back between calls. The caller holds s.mu.
func (s *scheduler) pick(now time.Time) (*host, time.Duration) {
	for s.wait.Len() > 0 && !s.wait.Top().wake.After(now) {
		h := heap.Pop(&s.wait).(*host)
		h.in = &s.ready
		heap.Push(&s.ready, h)
	}
	var h *host
	switch {
	case s.promo.Len() > 0 && !now.Before(s.promo.Top().wake):
		h = heap.Pop(&s.promo).(*host)
		heap.Remove(h.in, h.idx)
	case s.ready.Len() > 0:
		h = heap.Pop(&s.ready).(*host)
		if h.pidx >= 0 {
			heap.Remove(&s.promo, h.pidx)
		}
	case s.wait.Len() == 0:
		return nil, -1
	default:
		return nil, s.wait.Top().wake.Sub(now)
	}
	h.busy = true
	s.inFly++
	return h, 0
}

// maxPipeline bounds a host's outcomes handed back but not committed: a
// host with that many waits for a commit before its next request. It
// bounds the memory a fast host holds in bodies and what a crash loses,
// and leaves room for the host's requests to run ahead of the commits by
// several (pipeline.go).
const maxPipeline = 16

// newPerRevisit is the new URLs a host fetches while revisits are due
// before one of them takes a turn.
const newPerRevisit = 3

// unbusy returns the host of a task that was made but not dispatched.
func (s *scheduler) unbusy(t task) {
	if t.claimed {
		s.unclaim()
	}
	s.mu.Lock()
	t.h.busy = false
	s.inFly--
	if t.reserved {
		s.reserved--
	}
	s.update(t.h)
	s.mu.Unlock()
}
