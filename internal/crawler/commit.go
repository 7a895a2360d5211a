package crawler

import (
	"fmt"
	"net/http"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/crawler/batch"
	"github.com/freshcrawl/freshcrawl/internal/crawler/pagerow"
	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/rank"
	"github.com/freshcrawl/freshcrawl/internal/refresh"
	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// This file is the committer: the one goroutine that records the workers'
// outcomes (work.go, pipeline.go), in batches, each host's in the order
// they were handed back, in this order:
//
//	capture (capture.go)   the WARC records, then one fsync for the batch
//	rows (pagerow)         each page's new state row, a pure function
//	refresh decisions      the refresh module observes and plans revisits
//	one store transaction  rows, visits, due index, plan counters, the
//	                       queue items consumed, what was found (admit.go),
//	                       refinement (refine.go); then one fsync
//	release (release.go)   the scheduler learns what the batch found
//
// A kill between any two steps loses nothing: the state points only to
// records already on disk, and a queue item leaves its queue only in the
// transaction that records its outcome.

// maxBatch bounds the outcomes committed together. Batches form by
// themselves: while one commits (WARC fsync, then state fsync), the next
// outcomes queue up, so the fsyncs are shared by whatever arrived
// meanwhile, from every host, several of a host's among them. A batch
// smaller than groupSize also waits up to commitWindow from its first
// outcome for more: the hosts do not wait for commits (pipeline.go), so
// the wait costs them nothing, and on the rust-doc crawl (one host, ~1,000
// pages/s) it took the outcomes an fsync pair from 3.6 to 11.
const (
	maxBatch     = 512
	groupSize    = 64
	commitWindow = 5 * time.Millisecond
)

// committerState is the state only the committer touches.
type committerState struct {
	// inBatch holds the URLs of the batch being staged, and evicted the
	// pages it evicted; gone holds the pages evicted in this run and not
	// taken back (refine.go).
	inBatch map[string]bool
	evicted []string
	gone    map[string]bool
	// pulled holds the rows the batch's sweeps and signals pulled, in
	// flight until its release (hostRows).
	pulled []pulledRow
	// urlLimited holds the hosts whose MaxURLsPerHost was reached in this
	// run, so that it is logged once (admit.go).
	urlLimited map[string]bool
	// run is the budget account each batch records; marks[0] is its
	// Mark, marks[1] the next one (store.Run).
	run   store.Run
	marks [2]runMark
}

// runMark is a moment of the run and the requests made by then.
type runMark struct {
	at       time.Time
	requests int64
}

// stageRun stages the run's budget account as of now: its requests, and
// a mark between one and two store.RunWindows old.
func (c *Crawler) stageRun(txn *store.Txn, now time.Time) error {
	r, m := &c.cm.run, &c.cm.marks
	if r.Started.IsZero() {
		r.Started = time.Unix(0, c.started.Load())
		m[0].at, m[1].at = r.Started, r.Started
	}
	r.At, r.Requests, r.Budget = now, c.stats.requests.Load(), c.limiter.Rate()
	if now.Sub(m[1].at) >= store.RunWindow {
		m[0], m[1] = m[1], runMark{now, r.Requests}
	}
	r.Mark, r.MarkRequests = m[0].at, m[0].requests
	return txn.SetRun(*r)
}

// commitLoop records outcomes in batches until results is closed. A
// failure to write WARC or state is fatal: it is returned and the crawl
// stops, since going on would fetch pages it cannot keep.
func (c *Crawler) commitLoop(results <-chan outcome) error {
	var fatal error
	var order batch.Reorder[*host, outcome]
	add := func(o outcome, b []outcome) []outcome { return order.Add(o.t.h, &o.t.h.committed, o.seq, o, b) }
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for o := range results {
		b := batch.Gather(results, add(o, nil), add, maxBatch, groupSize, commitWindow, timer)
		if len(b) == 0 { // An outcome waits for one of its host's before it.
			continue
		}
		if fatal != nil { // Drain, so workers never block on a dead committer.
			c.release(b, nil, nil)
			freeBodies(b)
			continue
		}
		c.admitMu.Lock()
		if err := c.commit(b); err != nil {
			fatal = err
			c.fail(err)
			c.release(b, nil, nil)
		}
		c.admitMu.Unlock()
		freeBodies(b)
	}
	return fatal
}

// freeBodies gives the batch's page bodies back to the fetcher's pool once
// nothing refers to them: their records are written, their links staged
// and OnFetch has been told.
func freeBodies(batch []outcome) {
	for i := range batch {
		if pr := batch[i].page; pr != nil && pr.resp != nil {
			pr.resp.Release()
		}
	}
}

// record is the state change staged for one outcome's page.
type record struct {
	page  store.Page
	visit *store.Visit
	event bool // a fetch was made: OnFetch hears of it
	// sweep is the share of the host's pages a sweep has changed, found by
	// this comparison (refresh.Sampled); 0 if none.
	sweep float64
}

// commit writes the batch's WARC records, syncs them, then commits every
// state change of the batch in one transaction, then frees the hosts.
func (c *Crawler) commit(batch []outcome) error {
	now := c.now()
	recs := make([]*record, len(batch))
	for i := range batch {
		h := batch[i].t.h
		h.mu.Lock()
		r, err := c.record(&batch[i], now)
		h.mu.Unlock()
		if err != nil {
			return err
		}
		recs[i] = r
	}
	if err := c.syncArchive(); err != nil {
		return fmt.Errorf("warc: %w", err)
	}
	enq := map[string]int{}
	ranked, err := c.stageBatch(batch, recs, enq)
	if err != nil {
		return err
	}
	if c.ranker != nil {
		c.ranker.Observe(ranked)
	}
	c.stats.commits.Add(1)
	c.release(batch, recs, enq)
	for i := range batch {
		if r := recs[i]; r != nil && r.event {
			c.tell(&batch[i], r)
		}
	}
	return nil
}

// warcBuffer is the WARC writer's buffer: the records of a batch go out
// in a write or two, not two writes a page, and the sync before the
// commit writes them.
const warcBuffer = 1 << 20

// syncArchive makes the batch's records durable; with NoSync it only
// writes out what the archive buffers, so that the state never points
// past the file.
func (c *Crawler) syncArchive() error {
	if !c.cfg.NoSync {
		return c.archive.Sync()
	}
	if f, ok := c.archive.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

// stageBatch stages every state change of the batch in one transaction
// and commits it; it returns what the ranking is to learn of it.
func (c *Crawler) stageBatch(batch []outcome, recs []*record, enq map[string]int) ([]rank.Update, error) {
	txn := c.store.Begin()
	var ranked []rank.Update
	if c.ranker != nil {
		c.cm.inBatch = map[string]bool{}
		for i := range batch {
			if pr := batch[i].page; pr != nil {
				c.cm.inBatch[pr.item.URL] = true
			}
		}
	}
	for i := range batch {
		h := batch[i].t.h
		h.mu.Lock()
		err := c.stage(txn, &batch[i], recs[i], enq)
		if o := &batch[i]; err == nil && !o.end.IsZero() {
			err = txn.SetLastAnswer(h.Name, o.end, h.Delay)
		}
		h.mu.Unlock()
		if err != nil {
			txn.Abort()
			return nil, err
		}
		ranked = c.rankUpdates(ranked, &batch[i], recs[i])
	}
	for _, ev := range c.cm.evicted {
		ranked = append(ranked, rank.Update{URL: ev, State: rank.Evicted})
	}
	c.cm.evicted = c.cm.evicted[:0]
	if err := c.stageRun(txn, c.now()); err != nil {
		txn.Abort()
		return nil, err
	}
	return ranked, txn.Commit()
}

// record writes o's WARC records and works out the page's new state row
// and the refresh module's decisions on it; nil if o changes no row.
func (c *Crawler) record(o *outcome, now time.Time) (*record, error) {
	for _, enc := range o.robots {
		if _, err := enc.Write(c.archive); err != nil {
			return nil, err
		}
	}
	pr := o.page
	if o.aborted || o.err != nil || pr == nil {
		return nil, nil
	}
	if !o.end.IsZero() {
		// The visit is as of its answer, not its later commit: a change
		// in between is the next visit's, not a validator's miss.
		now = o.end
	}
	// The records go in whatever the status; a new 200 capture becomes
	// the copy the row points to. An error answer that will be retried
	// is archived, and the state waits for the retry.
	cp, err := pr.enc.Write(c.archive)
	if err != nil || o.retry {
		return nil, err
	}
	in := pagerow.Input{Item: pr.item, Disallowed: pr.disallowed, Postpone: pr.postpone,
		Changed: pr.changed, Checksum: pr.checksum, Capture: cp}
	if r := pr.resp; r != nil {
		in.Resp = &pagerow.Answer{Status: r.Status, ETag: r.Header.Get("ETag"), LastModified: r.Header.Get("Last-Modified"), Location: r.Location}
	}
	if c.ranker != nil && pr.item.Kind == store.KindPage {
		in.Weight, in.Weighed = c.ranker.Weight(pr.item.URL), true
	}
	tr := pagerow.Next(pr.prev, pr.known, in, now)
	sweep := c.decide(o.t.h, pr, &tr, now)
	return &record{page: tr.Row, visit: tr.Visit, event: tr.Event, sweep: sweep}, nil
}

// decide takes the refresh module's decisions on a row pagerow.Next worked
// out: the host's response time, the page's change estimate, and when it
// is due again. It returns the share of the host's pages a sweep has
// changed, if this comparison found one.
func (c *Crawler) decide(h *host, pr *pageResult, tr *pagerow.Transition, now time.Time) (sweep float64) {
	if pr.resp != nil && tr.Visit != nil {
		h.NoteService(pr.resp.Duration)
	}
	wasHeld := pr.known && pr.prev.Held
	if tr.Observe {
		if wasHeld && !pr.prev.Checked.IsZero() {
			sweep = c.refresh.Sampled(&h.Host, pr.prev.Rate, now.Sub(pr.prev.Checked).Seconds(), tr.Visit.Changed, now)
		}
		c.refresh.Observe(&h.Host, &pr.prev, wasHeld, answerOf(pr.resp), tr.Visit.Changed, &tr.Row, tr.Visit, now)
	}
	switch tr.Wait {
	case pagerow.Revisit:
		c.refresh.Revisit(&h.Host, &tr.Row, wasHeld, tr.Visit, tr.Visit.Changed, now)
	case pagerow.Retry:
		tr.Row.NextDue = now.Add(c.refresh.Retry(&tr.Row))
	}
	return sweep
}

// answerOf is what the refresh module reads of a response.
func answerOf(r *fetch.Response) refresh.Answer {
	return refresh.Answer{Status: r.Status, LastModified: r.Header.Get("Last-Modified"),
		ETag: r.Header.Get("ETag"), Date: r.Header.Get("Date")}
}

// stage adds o's state changes to txn and counts, per host, the URLs it
// queues.
func (c *Crawler) stage(txn *store.Txn, o *outcome, r *record, enq map[string]int) error {
	host := o.t.h.Name
	for _, seq := range o.skipped {
		if err := txn.Done(host, seq); err != nil {
			return err
		}
	}
	if err := c.stageSitemaps(txn, o.sitemaps, enq); err != nil {
		return err
	}
	if r == nil {
		return nil
	}
	pr := o.page
	if pr.fromDue.IsZero() && !pr.promoted {
		if err := txn.Done(host, pr.seq); err != nil {
			return err
		}
	}
	if err := c.membership(txn, o, r); err != nil {
		return err
	}
	// What the page led to goes first: the URLs it revealed are its
	// discovery value, which may bring its next visit forward.
	found, err := c.stageFound(txn, pr, enq)
	if err != nil {
		return err
	}
	if pr.item.Kind == store.KindSitemap && len(pr.entries) > 0 {
		n, err := c.refresh.Signalled(txn, &o.t.h.Host, answerOf(pr.resp), signals(pr), pr.prev.LastFetch, c.now(), c.rowsOf(o.t.h, txn))
		if err != nil {
			return err
		}
		found += n // changes revealed count with the new URLs
	}
	if r.visit != nil && pr.known {
		c.refresh.Discovered(&r.page, found, pr.prev.LastFetch, r.page.LastFetch)
	}
	if r.sweep > 0 {
		moved, err := c.refresh.Sweep(txn, o.t.h.Name, pr.item.URL, r.sweep, o.t.h.Delay, c.rowsOf(o.t.h, txn))
		if err != nil {
			return err
		}
		c.log.Debug("sweep: revisits brought forward", "host", o.t.h.Name, "share", r.sweep, "moved", moved)
	}
	return c.stageRow(txn, o.t.h, pr, r)
}

// stageRow stages the page's row and visit, its host's change record, its
// move in the due index and the plan, and the collection's size.
func (c *Crawler) stageRow(txn *store.Txn, h *host, pr *pageResult, r *record) error {
	if err := txn.PutPage(r.page, r.visit); err != nil {
		return err
	}
	if err := c.refresh.Stage(txn, &h.Host); err != nil {
		return err
	}
	// The due entry to move: the one this revisit came from, else the one
	// the row had.
	old := pr.prev.NextDue
	if !pr.fromDue.IsZero() {
		old = pr.fromDue
	}
	if !old.Equal(r.page.NextDue) {
		if err := txn.Schedule(h.Name, pr.item.URL, old, r.page.NextDue); err != nil {
			return err
		}
	}
	if pr.item.Kind == store.KindSitemap {
		h.NoteSitemap(pr.item.URL, r.page.NextDue)
	}
	wasHeld := pr.known && pr.prev.Held
	c.refresh.StagePlan(txn, &h.Host, &pr.prev, wasHeld, &r.page)
	if pr.item.Kind == store.KindPage {
		if d := b2i(r.page.Held) - b2i(wasHeld); d != 0 {
			txn.AddHeld(d)
			c.held.Add(d)
		}
	}
	return nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// tell counts a committed fetch and tells OnFetch of it.
func (c *Crawler) tell(o *outcome, r *record) {
	c.stats.pages.Add(1)
	if r.visit != nil && r.visit.Changed {
		c.stats.changed.Add(1)
	}
	if r.visit != nil && r.visit.Status == http.StatusNotModified {
		c.stats.notModified.Add(1)
	}
	if c.cfg.OnFetch == nil {
		return
	}
	pr := o.page
	e := Event{
		URL: pr.item.URL, Time: r.page.LastFetch, Status: r.page.Status, Sitemap: pr.item.Kind == store.KindSitemap,
		Changed: r.visit != nil && r.visit.Changed, Held: r.page.Held,
		Fetches: r.page.Fetches, Rate: r.page.Rate,
	}
	if pr.fetchErr != nil {
		e.Err = fetch.Reason(pr.fetchErr)
	}
	if pr.resp != nil {
		e.Bytes, e.Started, e.Took = len(pr.resp.Raw), pr.resp.Started, pr.resp.Duration
	}
	if pr.resp != nil && pr.resp.Status >= 200 && pr.resp.Status < 300 {
		e.Body = pr.resp.Body
	}
	c.cfg.OnFetch(e)
}

// signals are the sitemap's entries of pages of its own host that carry a
// lastmod.
func signals(pr *pageResult) []refresh.Signal {
	host := urlx.Authority(pr.item.URL)
	var out []refresh.Signal
	for _, e := range pr.entries {
		if !e.LastMod.IsZero() && urlx.Authority(e.Loc) == host {
			out = append(out, refresh.Signal{URL: e.Loc, LastMod: e.LastMod})
		}
	}
	return out
}
