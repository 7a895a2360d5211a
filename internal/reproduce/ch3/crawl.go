package ch3

// The virtual parallel crawl of dissertation ch. 3: n C-procs, one a
// partition, crawl a World in rounds (each downloads one page a round, as
// C-procs of equal speed would) in firewall, cross-over or exchange mode
// (§3.3). The links a C-proc sends go through cluster.Batch, as the
// cluster's do, and the totals are a cluster.Counts.

import (
	"container/heap"
	"fmt"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
)

// Setup is one parallel crawl.
type Setup struct {
	Mode cluster.Mode
	// Part is each page's partition, 0 … len(Seeds)−1 (World.Partition);
	// C-proc i crawls partition i.
	Part []int32
	// Seeds are each C-proc's seeds, pages of its own partition.
	Seeds [][]uint32
	// Replicated holds the popular URLs every C-proc knows (§3.8): a link
	// to one is never exchanged, and those of a C-proc's partition are
	// among its seeds.
	Replicated *cluster.Replicated
	// Every is the number of rounds between two exchanges: 1 sends what a
	// page links to before the next page (the immediate transfer of §3.8),
	// more batches the links of that many pages a C-proc (§3.9).
	Every int
	// Budget stops the crawl after that many downloads in all; zero runs
	// it until no C-proc has anything left.
	Budget int
	// Exchanges, with a Budget, replaces Every: that many exchanges
	// spread evenly over the crawl's ⌈Budget/n⌉ rounds, the j-th after
	// round ⌊j·rounds/(Exchanges+1)⌋ (§3.9: x = 1 is one exchange in the
	// middle of the crawl).
	Exchanges int
	// Backlink orders each C-proc's queue by IB', the links to a page
	// seen in the C-proc's own downloads plus the counts other C-procs
	// sent (§3.9); otherwise the queue is breadth-first.
	Backlink bool
	// Observe, if set, is called after every round with the totals so
	// far.
	Observe func(cluster.Counts)
}

// Result is what a crawl did.
type Result struct {
	cluster.Counts
	// Order is the pages in the order first downloaded.
	Order []uint32
	// Exchanges is the number of exchanges held.
	Exchanges int
	// Merged counts the entries sent that carried more than one link
	// (a URL linked several times in one batch), Resent those whose URL
	// the sender had sent in an earlier exchange (claim 31).
	Merged, Resent int64
}

// Crawl runs the parallel crawl s of w.
func Crawl(w *World, s Setup) (*Result, error) {
	if len(s.Part) != w.Pages() {
		return nil, fmt.Errorf("partition of %d pages for a web of %d", len(s.Part), w.Pages())
	}
	c := newCrawl(w, s)
	for p, seeds := range s.Seeds {
		for _, v := range seeds {
			if int(v) >= w.Pages() || int(s.Part[v]) != p {
				return nil, fmt.Errorf("seed %d of C-proc %d is not in its partition", v, p)
			}
			c.discover(v)
		}
	}
	if s.Replicated.Len() > 0 {
		for v, u := range w.URL {
			if s.Replicated.Has(u) {
				c.discover(uint32(v))
			}
		}
	}
	for round := 1; ; round++ {
		moved := c.round()
		if s.Observe != nil {
			s.Observe(c.res.Counts)
		}
		if c.full() {
			break
		}
		if s.Mode == cluster.ModeExchange && (s.exchangeAfter(round) || !moved) && c.exchange() {
			continue
		}
		if !moved {
			break
		}
	}
	return &c.res, nil
}

// exchangeAfter reports whether the C-procs exchange after round.
func (s Setup) exchangeAfter(round int) bool {
	if s.Exchanges > 0 && s.Budget > 0 {
		n := len(s.Seeds)
		rounds := (s.Budget + n - 1) / n
		x := s.Exchanges + 1
		return round < rounds && round*x/rounds > (round-1)*x/rounds
	}
	return round%max(s.Every, 1) == 0
}

// crawl is a parallel crawl under way. A page's partition owner alone
// queues it, so seen, ib and the queues are shared arrays each C-proc
// writes only for its own pages; a C-proc in cross-over mode keeps the
// foreign pages it found in its own set.
type crawl struct {
	w       *World
	s       Setup
	procs   []proc
	seen    []bool  // queued by its owner
	done    []bool  // downloaded by its owner
	tie     []int32 // the order in which its owner found it
	ib      []int32 // IB': links to the page its owner saw or was sent
	fetched []uint8 // downloads of the page, saturating
	nFound  int32
	res     Result
}

// proc is one C-proc: its queue of own pages, and in cross-over mode the
// foreign pages it found, in the order found.
type proc struct {
	queue   queue
	foreign []uint32
	next    int      // foreign[next] is the next foreign page to try
	found   []uint64 // bit v: foreign page v found (cross-over mode)
	batch   cluster.Batch
	sent    []uint64 // bit v: page v sent in an earlier exchange (exchange mode), to count resends
}

func newCrawl(w *World, s Setup) *crawl {
	c := &crawl{w: w, s: s, procs: make([]proc, len(s.Seeds)), seen: make([]bool, w.Pages()),
		done: make([]bool, w.Pages()), tie: make([]int32, w.Pages()), ib: make([]int32, w.Pages()),
		fetched: make([]uint8, w.Pages())}
	c.res.Target = int64(w.Pages())
	for i := range c.procs {
		c.procs[i].queue.backlink = s.Backlink
		switch s.Mode {
		case cluster.ModeCrossOver:
			c.procs[i].found = make([]uint64, (w.Pages()+63)/64)
		case cluster.ModeExchange:
			c.procs[i].sent = make([]uint64, (w.Pages()+63)/64)
		}
	}
	return c
}

func (c *crawl) full() bool { return c.s.Budget > 0 && c.res.Downloads >= int64(c.s.Budget) }

// discover has v's owner queue it, if it has not yet.
func (c *crawl) discover(v uint32) {
	if !c.seen[v] {
		c.seen[v], c.tie[v] = true, c.nFound
		c.nFound++
		c.procs[c.s.Part[v]].queue.push(v, c.ib[v], c.tie[v])
	}
}

// raise re-queues v, whose IB' grew, if its owner has it queued.
func (c *crawl) raise(v uint32) {
	if c.s.Backlink && c.seen[v] && !c.done[v] {
		c.procs[c.s.Part[v]].queue.push(v, c.ib[v], c.tie[v])
	}
}

// round has each C-proc download its next page: its own queue's first,
// or in cross-over mode, when that is empty, the next foreign page it has
// not downloaded. It reports whether any C-proc downloaded a page.
func (c *crawl) round() bool {
	moved := false
	for i := range c.procs {
		if c.full() {
			return moved
		}
		pr := &c.procs[i]
		if v, ok := pr.queue.pop(c.ib, c.done); ok {
			c.done[v] = true
			c.download(i, v)
			moved = true
			continue
		}
		if pr.next < len(pr.foreign) {
			c.download(i, pr.foreign[pr.next])
			pr.next++
			moved = true
		}
	}
	return moved
}

// download has C-proc i download page p and deal with its links as its
// mode says.
func (c *crawl) download(i int, p uint32) {
	if c.fetched[p] == 0 {
		c.res.Unique++
		c.res.Order = append(c.res.Order, p)
	}
	c.fetched[p] = min(c.fetched[p]+1, 255)
	c.res.Downloads++
	pr := &c.procs[i]
	for _, v := range c.w.Out.In(p) {
		if int(c.s.Part[v]) == i {
			c.ib[v]++
			c.raise(v)
			c.discover(v)
			continue
		}
		switch c.s.Mode {
		case cluster.ModeCrossOver:
			if bit := uint64(1) << (v % 64); pr.found[v/64]&bit == 0 {
				pr.found[v/64] |= bit
				pr.foreign = append(pr.foreign, v)
			}
		case cluster.ModeExchange:
			if u := c.w.URL[v]; !c.s.Replicated.Has(u) {
				pr.batch.Add(int(c.s.Part[v]), u, 1)
			}
		}
	}
}

// exchange has every C-proc send its batch: each owner adds the counts to
// IB' and queues the pages new to it. It reports whether anything was
// sent.
func (c *crawl) exchange() bool {
	delivered := false
	for i := range c.procs {
		if c.procs[i].batch.Links() == 0 {
			continue
		}
		sent := c.procs[i].sent
		for _, parcel := range c.procs[i].batch.Take() {
			for _, e := range parcel.Entries {
				v := c.w.id[e.URL]
				c.res.Exchanged++
				c.tally(sent, v, e.Count)
				c.ib[v] += int32(e.Count)
				c.raise(v)
				c.discover(v)
				delivered = true
			}
		}
	}
	if delivered {
		c.res.Exchanges++
	}
	return delivered
}

// tally counts an entry of count links to v as merged or resent, and
// notes v as sent.
func (c *crawl) tally(sent []uint64, v uint32, count uint32) {
	if count > 1 {
		c.res.Merged++
	}
	bit := uint64(1) << (v % 64)
	if sent[v/64]&bit != 0 {
		c.res.Resent++
	}
	sent[v/64] |= bit
}

// queue is a C-proc's queue of own pages not yet downloaded: first in,
// first out, or by IB' (highest first, ties to the page queued first).
// A page whose IB' grows gets a fresh heap entry; the old one goes stale
// and pop skips it, as ch. 2's virtual crawler does.
type queue struct {
	backlink bool
	fifo     []uint32
	head     int
	heap     entries
}

// push queues v, found tie-th by its C-proc, with IB' ib; with the
// backlink order it also re-queues v when its IB' has grown.
func (q *queue) push(v uint32, ib, tie int32) {
	if q.backlink {
		heap.Push(&q.heap, entry{v: v, ib: ib, tie: tie})
		return
	}
	q.fifo = append(q.fifo, v)
}

// pop takes the next page: an entry is current if its page is not done
// and its IB' is still ib's.
func (q *queue) pop(ib []int32, done []bool) (uint32, bool) {
	if !q.backlink {
		if q.head == len(q.fifo) {
			return 0, false
		}
		q.head++
		return q.fifo[q.head-1], true
	}
	for q.heap.Len() > 0 {
		e := heap.Pop(&q.heap).(entry)
		if !done[e.v] && e.ib == ib[e.v] {
			return e.v, true
		}
	}
	return 0, false
}

// entry is a queued page with its IB' when queued.
type entry struct {
	v       uint32
	ib, tie int32
}

type entries []entry

func (h entries) Len() int { return len(h) }
func (h entries) Less(i, j int) bool {
	if h[i].ib != h[j].ib {
		return h[i].ib > h[j].ib
	}
	return h[i].tie < h[j].tie
}
func (h entries) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *entries) Push(x any)   { *h = append(*h, x.(entry)) }
func (h *entries) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
