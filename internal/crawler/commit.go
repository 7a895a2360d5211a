package crawler

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/refresh"
	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/urlx"
	"github.com/freshcrawl/freshcrawl/internal/warc"
)

// maxBatch bounds the outcomes committed together. Batches form by
// themselves: while one commits (WARC fsync, then state fsync), the next
// outcomes queue up, so the fsyncs are shared by whatever arrived meanwhile.
const maxBatch = 512

// commitLoop records outcomes in batches until results is closed. A
// failure to write WARC or state is fatal: it is returned and the crawl
// stops, since going on would fetch pages it cannot keep.
func (c *Crawler) commitLoop(results <-chan outcome) error {
	var fatal error
	for o := range results {
		batch := []outcome{o}
	gather:
		for len(batch) < maxBatch {
			select {
			case o, ok := <-results:
				if !ok {
					break gather
				}
				batch = append(batch, o)
			default:
				break gather
			}
		}
		if fatal != nil { // Drain, so workers never block on a dead committer.
			c.release(batch, nil, nil)
			freeBodies(batch)
			continue
		}
		if err := c.commit(batch); err != nil {
			fatal = err
			c.fail(err)
			c.release(batch, nil, nil)
		}
		freeBodies(batch)
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
}

// commit writes the batch's WARC records, syncs them, then commits every
// state change of the batch in one transaction, then frees the hosts.
func (c *Crawler) commit(batch []outcome) error {
	now := time.Now()
	recs := make([]*record, len(batch))
	for i := range batch {
		r, err := c.archive(&batch[i], now)
		if err != nil {
			return err
		}
		recs[i] = r
	}
	if !c.cfg.NoSync {
		if err := c.warc.Sync(); err != nil {
			return fmt.Errorf("warc: %w", err)
		}
	}
	txn := c.store.Begin()
	enq := map[string]int{}
	var ranked []rankUpdate
	if c.ranker != nil {
		c.inBatch = map[string]bool{}
		for i := range batch {
			if pr := batch[i].page; pr != nil {
				c.inBatch[pr.item.URL] = true
			}
		}
	}
	for i := range batch {
		if err := c.stage(txn, &batch[i], recs[i], enq); err != nil {
			txn.Abort()
			return err
		}
		ranked = c.rankUpdates(ranked, &batch[i], recs[i])
	}
	for _, ev := range c.evicted {
		ranked = append(ranked, rankUpdate{url: ev, state: stateEvicted})
	}
	c.evicted = c.evicted[:0]
	if err := txn.Commit(); err != nil {
		return err
	}
	if c.ranker != nil {
		c.ranker.observe(ranked)
	}
	c.release(batch, recs, enq)
	for i := range batch {
		r := recs[i]
		if r == nil || !r.event {
			continue
		}
		c.stats.pages.Add(1)
		if r.visit != nil && r.visit.Changed {
			c.stats.changed.Add(1)
		}
		if r.visit != nil && r.visit.Status == http.StatusNotModified {
			c.stats.notModified.Add(1)
		}
		if c.cfg.OnFetch != nil {
			c.cfg.OnFetch(c.event(&batch[i], r))
		}
	}
	return nil
}

// event describes a committed page outcome for OnFetch.
func (c *Crawler) event(o *outcome, r *record) Event {
	pr := o.page
	e := Event{
		URL: pr.item.URL, Time: r.page.LastFetch, Status: r.page.Status, Sitemap: pr.item.Kind == store.KindSitemap,
		Changed: r.visit != nil && r.visit.Changed, Held: r.page.Held,
		Fetches: r.page.Fetches, Rate: r.page.Rate,
	}
	if pr.fetchErr != nil {
		e.Err = reason(pr.fetchErr)
	}
	if pr.resp != nil && pr.resp.Status >= 200 && pr.resp.Status < 300 {
		e.Body = pr.resp.Body
	}
	return e
}

// archive writes o's WARC records and works out the page's new state row.
func (c *Crawler) archive(o *outcome, now time.Time) (*record, error) {
	for _, enc := range o.robots {
		if err := c.writeEncoded(enc, nil); err != nil {
			return nil, err
		}
	}
	pr := o.page
	if o.aborted || o.err != nil || pr == nil {
		return nil, nil
	}
	if o.retry { // Archive the error answer; the state waits for the retry.
		if err := c.writeEncoded(pr.enc, nil); err != nil {
			return nil, err
		}
		return nil, nil
	}
	r := &record{page: pr.prev, event: true}
	p := &r.page
	if !pr.known {
		p.URL, p.FirstSeen, p.Kind = pr.item.URL, now, pr.item.Kind
	}
	if pr.disallowed {
		p.Held, p.NextDue = false, time.Time{}
		r.event = false
		return r, nil
	}
	if !pr.postpone.IsZero() {
		p.NextDue = pr.postpone
		r.event = false
		return r, nil
	}
	p.LastFetch = now
	p.Fetches++
	p.Evicted = false
	if c.ranker != nil && pr.item.Kind == store.KindPage {
		p.Weight = c.ranker.weight(pr.item.URL)
	}
	v := &store.Visit{Time: now}
	r.visit = v
	resp := pr.resp
	if resp == nil { // A network failure, after the last attempt.
		p.Status, v.Status = 0, 0
		// A URL never held is tried again too, at the revisit interval:
		// a transient failure must not lose it for good.
		p.NextDue = now.Add(c.refresh.Retry(p))
		return r, nil
	}
	p.Status, v.Status = resp.Status, resp.Status
	v.ETag, v.LastModified = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	o.t.h.NoteService(resp.Duration)
	// The records go in whatever the status; a new 200 capture also
	// becomes the copy the row points to.
	if err := c.writeEncoded(pr.enc, p); err != nil {
		return nil, err
	}
	switch s := resp.Status; {
	case s == http.StatusNotModified:
		if v.ETag != "" {
			p.ETag = v.ETag
		}
		if v.LastModified != "" {
			p.LastModified = v.LastModified
		}
		if pr.item.Kind == store.KindPage {
			c.refresh.Observe(&o.t.h.Host, &pr.prev, pr.known && pr.prev.Held, answerOf(resp), false, p, v, now)
		}
	case s >= 200 && s < 300:
		v.Changed = pr.changed
		if pr.changed {
			p.Changes++
		}
		p.Checksum = pr.checksum
		p.ETag, p.LastModified = v.ETag, v.LastModified
		p.Held = true
		if pr.item.Kind == store.KindPage {
			c.refresh.Observe(&o.t.h.Host, &pr.prev, pr.known && pr.prev.Held, answerOf(resp), pr.changed, p, v, now)
		}
	case s >= 300 && s < 400:
		p.Held, p.Location = false, resp.Location
	case s >= 500 || s == http.StatusTooManyRequests:
		// The last attempt failed too: the page keeps what it held.
	default: // 4xx: gone.
		p.Held = false
	}
	p.NextDue = time.Time{}
	compared := resp.Status == http.StatusNotModified || resp.Status >= 200 && resp.Status < 300
	switch {
	case p.Held && compared && pr.item.Kind == store.KindPage:
		c.refresh.Revisit(&o.t.h.Host, p, pr.known && pr.prev.Held, v, v.Changed, now)
	case p.Held || resp.Status >= 500 || resp.Status == http.StatusTooManyRequests:
		// A URL never held whose last attempt failed transiently is tried
		// again at the revisit interval, not lost for good.
		p.NextDue = now.Add(c.refresh.Retry(p))
	}
	return r, nil
}

// answerOf is what the refresh module reads of a response.
func answerOf(r *fetch.Response) refresh.Answer {
	return refresh.Answer{Status: r.Status, LastModified: r.Header.Get("Last-Modified"),
		ETag: r.Header.Get("ETag"), Date: r.Header.Get("Date")}
}

// encoded is the WARC records of one HTTP exchange, compressed by the
// worker: a response or revisit record, then the request record.
type encoded struct {
	recs []*warc.Encoded
	// capture is set when recs[0] is a response record holding a new copy
	// of a 200 page, which the page row then points to.
	capture       bool
	payloadDigest string
	at            time.Time
}

// encodeExchange builds the WARC records of resp. If p, the page's stored
// row, holds content, the answer may be recorded as a revisit instead:
// server-not-modified for a 304, identical-payload-digest when the payload
// is the one p's capture holds.
func (c *Crawler) encodeExchange(resp *fetch.Response, p *store.Page) (*encoded, error) {
	reqID, respID := warc.NewRecordID(), warc.NewRecordID()
	ip := hostOf(resp.RemoteAddr)
	header := responseHeader(resp)
	out := &encoded{at: resp.Started}
	digest := ""
	if resp.Status == http.StatusOK && resp.Truncated == "" {
		digest = warc.PayloadDigest(header, resp.Raw)
	}
	held := p != nil && p.Held && p.RecordID != ""
	var rec *warc.Encoded
	var err error
	switch {
	case held && resp.Status == http.StatusNotModified:
		rec, err = c.warc.EncodeRevisit(warc.Revisit{
			ID: respID, Date: resp.Started, TargetURI: resp.URL, IPAddress: ip, ConcurrentTo: reqID,
			Profile: warc.ProfileServerNotModified, HTTPHeader: header, PayloadDigest: p.PayloadDigest,
			RefersTo: p.RecordID, RefersToTargetURI: p.URL, RefersToDate: p.CaptureTime,
		})
	case held && digest != "" && digest == p.PayloadDigest:
		rec, err = c.warc.EncodeRevisit(warc.Revisit{
			ID: respID, Date: resp.Started, TargetURI: resp.URL, IPAddress: ip, ConcurrentTo: reqID,
			Profile: warc.ProfileIdenticalPayloadDigest, HTTPHeader: header, PayloadDigest: p.PayloadDigest,
			RefersTo: p.RecordID, RefersToTargetURI: p.URL, RefersToDate: p.CaptureTime,
		})
		c.stats.revisits.Add(1)
	default:
		rec, err = c.warc.EncodeResponse(warc.Response{
			ID: respID, Date: resp.Started, TargetURI: resp.URL, IPAddress: ip, ConcurrentTo: reqID,
			HTTPHeader: header, Body: resp.Raw, Truncated: resp.Truncated,
		})
		if resp.Status == http.StatusOK {
			out.capture = true
			if digest == "" {
				digest = warc.PayloadDigest(header, resp.Raw)
			}
			out.payloadDigest = digest
		}
	}
	if err != nil {
		return nil, fmt.Errorf("warc record of %s: %w", resp.URL, err)
	}
	req, err := c.warc.EncodeRequest(warc.Request{
		ID: reqID, Date: resp.Started, TargetURI: resp.URL, IPAddress: ip, ConcurrentTo: respID,
		HTTPHeader: requestHeader(resp),
	})
	if err != nil {
		return nil, fmt.Errorf("warc record of %s: %w", resp.URL, err)
	}
	out.recs = []*warc.Encoded{rec, req}
	c.stats.bytes.Add(int64(len(resp.Raw)))
	return out, nil
}

// writeEncoded appends an exchange's records and, if it holds a new
// capture and p is given, points p at it.
func (c *Crawler) writeEncoded(e *encoded, p *store.Page) error {
	if e == nil {
		return nil
	}
	for i, r := range e.recs {
		loc, err := c.warc.WriteEncoded(r)
		if err != nil {
			return fmt.Errorf("warc: %w", err)
		}
		if i == 0 && e.capture && p != nil {
			p.RecordID, p.PayloadDigest, p.CaptureTime = r.RecordID(), e.payloadDigest, e.at
			p.WARCFile, p.WARCOffset = loc.File, loc.Offset
		}
	}
	return nil
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
	if len(o.sitemaps) > 0 {
		items := make([]discovered, 0, len(o.sitemaps))
		for _, s := range o.sitemaps {
			if u, err := urlx.Canonical(s); err == nil {
				items = append(items, discovered{url: u, kind: store.KindSitemap})
			}
		}
		if err := c.enqueue(txn, items, enq, ""); err != nil {
			return err
		}
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
	if c.ranker != nil && pr.item.Kind == store.KindPage {
		switch {
		case r.page.Held && !(pr.known && pr.prev.Held) && c.cfg.MaxPages > 0 && c.held.Load() >= int64(c.cfg.MaxPages):
			// A newcomer to the full collection: it takes the place of
			// the weaker page reserved for it, if that one can still
			// leave; else it was explored only: its links are kept, the
			// page is not, and it may come back when it ranks higher.
			evicted := false
			if o.t.claimed {
				var err error
				if evicted, err = c.evictOne(txn); err != nil {
					return err
				}
			}
			if !evicted {
				r.page.Held, r.page.Evicted, r.page.NextDue = false, true, time.Time{}
			}
		case !pr.fromDue.IsZero() && c.gone[pr.item.URL]:
			// The page left the collection while this revisit was in
			// flight, from the row it read: it stays out.
			r.page.Held, r.page.Evicted, r.page.NextDue = false, true, time.Time{}
			pr.prev.Held = false
		case r.page.Held:
			delete(c.gone, pr.item.URL)
		}
	}
	if err := txn.PutPage(r.page, r.visit); err != nil {
		return err
	}
	if err := c.refresh.Stage(txn, &o.t.h.Host); err != nil {
		return err
	}
	// The due entry to move: the one this revisit came from, else the one
	// the row had.
	old := pr.prev.NextDue
	if !pr.fromDue.IsZero() {
		old = pr.fromDue
	}
	if !old.Equal(r.page.NextDue) {
		if err := txn.Schedule(host, pr.item.URL, old, r.page.NextDue); err != nil {
			return err
		}
	}
	c.refresh.StagePlan(txn, &o.t.h.Host, &pr.prev, pr.known && pr.prev.Held, &r.page)
	if pr.item.Kind == store.KindPage {
		if d := b2i(r.page.Held) - b2i(pr.known && pr.prev.Held); d != 0 {
			txn.AddHeld(d)
			c.held.Add(d)
		}
	}
	return c.stageFound(txn, o, enq)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// discovered is a URL found in a page, a sitemap or a redirect.
type discovered struct {
	url     string
	kind    uint8
	hops    uint8
	checked bool // admissible already said yes
}

// stageFound queues what the page led to: its redirect target, links,
// sitemap entries and child sitemaps.
func (c *Crawler) stageFound(txn *store.Txn, o *outcome, enq map[string]int) error {
	pr := o.page
	var found []discovered
	if resp := pr.resp; resp != nil && resp.Location != "" && resp.Status >= 300 && resp.Status < 400 {
		if int(pr.item.Hops) >= c.cfg.MaxRedirects {
			c.log.Info("redirect chain too long", "url", pr.item.URL, "hops", pr.item.Hops)
		} else if u, err := urlx.Canonical(resp.Location); err == nil {
			found = append(found, discovered{url: u, kind: pr.item.Kind, hops: pr.item.Hops + 1})
		}
	}
	// The links that count, in scope and within the trap limits, are also
	// the page's edges in the link graph the importance metrics read.
	var edges []string
	for _, l := range pr.links {
		if l.Nofollow && !c.cfg.FollowNofollow {
			continue
		}
		if !c.admissible(l.URL, "") {
			continue
		}
		found = append(found, discovered{url: l.URL, kind: store.KindPage, checked: true})
		edges = append(edges, l.URL)
		if c.cfg.Ordering == OrderTopic {
			pr.named = append(pr.named, strings.Contains(strings.ToLower(l.Anchor), c.cfg.Topic) ||
				strings.Contains(l.URL, c.cfg.Topic))
		}
	}
	pr.edges = edges
	if err := c.stageLinks(txn, pr, edges); err != nil {
		return err
	}
	site := ""
	if len(pr.entries) > 0 || len(pr.children) > 0 {
		site = urlx.SiteKey(urlx.Host(pr.item.URL))
	}
	for _, e := range pr.entries {
		found = append(found, discovered{url: e.Loc, kind: store.KindPage})
		if !e.LastMod.IsZero() && urlx.SiteKey(urlx.Host(e.Loc)) == site {
			if err := txn.SetLastMod(e.Loc, e.LastMod); err != nil {
				return err
			}
		}
	}
	for _, e := range pr.children {
		found = append(found, discovered{url: e.Loc, kind: store.KindSitemap})
	}
	return c.enqueue(txn, found, enq, site)
}

// enqueue queues the URLs that are in scope and within the trap limits,
// grouped by host. With site set, only URLs of that site are taken (a
// sitemap speaks only for its own site).
func (c *Crawler) enqueue(txn *store.Txn, found []discovered, enq map[string]int, site string) error {
	byHost := map[string][]store.Item{}
	var order []string
	for _, d := range found {
		host := authority(d.url)
		if host == "" || !d.checked && !c.admissible(d.url, site) {
			continue
		}
		if _, ok := byHost[host]; !ok {
			order = append(order, host)
		}
		byHost[host] = append(byHost[host], store.Item{URL: d.url, Kind: d.kind, Hops: d.hops})
	}
	for _, host := range order {
		queued, dropped, err := txn.Enqueue(host, byHost[host], uint64(c.cfg.MaxURLsPerHost))
		if err != nil {
			return err
		}
		if dropped > 0 {
			c.stats.trapped.Add(int64(dropped))
			if !c.urlLimited[host] {
				// Once per host and run: from now on every new URL of the
				// host is dropped.
				c.urlLimited[host] = true
				c.log.Warn("host URL limit reached", "host", host, "limit", c.cfg.MaxURLsPerHost)
			}
			c.log.Debug("host URL limit reached", "host", host, "dropped", dropped)
		}
		enq[host] += queued
		c.stats.discovered.Add(int64(queued))
	}
	return nil
}

// admissible reports whether a found URL may be queued: it has a host, is
// in the crawl's scope (and, with site set, of that site) and within the
// trap limits. It counts the refusals.
func (c *Crawler) admissible(u, site string) bool {
	if authority(u) == "" {
		return false
	}
	if site != "" && urlx.SiteKey(urlx.Host(u)) != site || !c.inScope(u) {
		c.stats.outOfScope.Add(1)
		return false
	}
	if err := c.cfg.Limits.Check(u); err != nil {
		c.stats.trapped.Add(1)
		c.log.Debug("URL refused", "url", u, "err", err)
		return false
	}
	return true
}

// evictOne stages the least important held page's leaving the
// collection, to make room for a more important newcomer (refinement,
// dissertation ch. 7). Its URL stays known, its row and links too; it is
// no longer revisited, and may come back if it ranks high again. Pages of
// this batch are passed over; a revisit of the page already in flight is
// kept out of the collection when it commits (c.gone).
func (c *Crawler) evictOne(txn *store.Txn) (bool, error) {
	for {
		u := c.ranker.victim(c.inBatch)
		if u == "" {
			return false, nil
		}
		host := authority(u)
		p, err := c.store.GetPage(u)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return false, err
		}
		if !p.Held || p.Kind != store.KindPage {
			continue
		}
		prev := p
		p.Held, p.Evicted, p.NextDue = false, true, time.Time{}
		if err := txn.PutPage(p, nil); err != nil {
			return false, err
		}
		if !prev.NextDue.IsZero() {
			if err := txn.Schedule(host, u, prev.NextDue, time.Time{}); err != nil {
				return false, err
			}
		}
		c.refresh.StagePlan(txn, nil, &prev, true, &p)
		txn.AddHeld(-1)
		c.held.Add(-1)
		c.stats.evicted.Add(1)
		c.inBatch[u] = true
		c.gone[u] = true
		c.evicted = append(c.evicted, u)
		c.log.Debug("page left the collection for a more important one", "url", u)
		return true, nil
	}
}

// rankUpdates appends what o changed about its page for the ranking.
func (c *Crawler) rankUpdates(us []rankUpdate, o *outcome, r *record) []rankUpdate {
	if c.ranker == nil {
		return us
	}
	for _, u := range o.given {
		us = append(us, rankUpdate{url: u, state: stateGone})
	}
	pr := o.page
	if r == nil || pr == nil || pr.item.Kind != store.KindPage {
		return us
	}
	u := rankUpdate{url: pr.item.URL, state: rowState(&r.page)}
	if pr.disallowed {
		u.state = stateGone
	}
	if resp := pr.resp; resp != nil && resp.Status >= 200 && resp.Status < 300 && pr.read {
		u.setLinks, u.links, u.named, u.hot = true, pr.edges, pr.named, pr.topicHot
	}
	return append(us, u)
}

// stageLinks keeps the link graph in step with a page's answer: a page
// with new content has its edges replaced (none if it links nowhere, or
// is not HTML); a page gone or moved (4xx, 3xx) has them removed; the
// same content again, a 304 or a failure leaves them as they were.
func (c *Crawler) stageLinks(txn *store.Txn, pr *pageResult, edges []string) error {
	resp := pr.resp
	if resp == nil || pr.item.Kind != store.KindPage {
		return nil
	}
	switch s := resp.Status; {
	case s >= 200 && s < 300:
		if !pr.read {
			return nil
		}
		return txn.SetLinks(pr.item.URL, edges)
	case s >= 300 && s < 500 && s != http.StatusNotModified && s != http.StatusTooManyRequests:
		if pr.known {
			return txn.DeleteLinks(pr.item.URL)
		}
	}
	return nil
}

// authority returns the host[:port] of a canonical URL.
func authority(canonical string) string {
	i := strings.Index(canonical, "://")
	if i < 0 {
		return ""
	}
	h := canonical[i+3:]
	if j := strings.IndexByte(h, '/'); j >= 0 {
		h = h[:j]
	}
	return h
}

// release frees the batch's hosts with what their outcomes taught: the
// next allowed request time, back-off, robots delay, new queue lengths and
// due times. With enq nil (a failed commit), nothing was recorded and the
// hosts only wait.
func (c *Crawler) release(batch []outcome, recs []*record, enq map[string]int) {
	// Store reads first, outside the scheduler's lock: the next due time
	// of a host whose revisit was consumed, and a fresh view of a host
	// whose task found nothing to do (its in-memory view was stale).
	nextDue := make([]time.Time, len(batch))
	queued := make([]int, len(batch))
	for i := range batch {
		o := &batch[i]
		if enq == nil || o.aborted || o.err != nil {
			continue
		}
		revisited := o.page != nil && !o.page.fromDue.IsZero() && !o.retry
		if revisited || idle(o) {
			due, err := c.store.Due(o.t.h.Name, maxTime, 1)
			if err != nil {
				c.log.Error("read due index", "host", o.t.h.Name, "err", err)
			} else if len(due) > 0 {
				nextDue[i] = due[0].Due
			}
		}
		if idle(o) {
			n, err := c.store.Len(o.t.h.Name)
			if err != nil {
				c.log.Error("read queue length", "host", o.t.h.Name, "err", err)
			}
			queued[i] = n
		}
	}
	if c.ranker != nil {
		for i := range batch {
			if batch[i].t.claimed {
				c.ranker.unclaim() // its victim, if it needed one, has left
			}
		}
	}
	s := c.sched
	s.mu.Lock()
	now := time.Now()
	for i := range batch {
		o := &batch[i]
		h := o.t.h
		h.busy = false
		s.inFly--
		if o.t.reserved {
			s.reserved--
		}
		if o.delay > 0 {
			h.Delay = o.delay
		}
		if !o.end.IsZero() {
			h.ready = o.end.Add(h.Delay)
		}
		switch {
		case enq == nil || o.err != nil:
			if o.err != nil {
				c.log.Error("crawl state read failed", "host", h.Name, "err", o.err)
			}
			h.ready = later(h.ready, now.Add(time.Second+h.Delay))
		case o.aborted:
		case !o.waitUntil.IsZero():
			h.ready = later(h.ready, o.waitUntil)
		case o.transient != "":
			h.fails++
			h.ready = later(h.ready, o.end.Add(c.backoff(h)))
			if o.retryAfter > 0 {
				h.ready = later(h.ready, o.end.Add(o.retryAfter))
			}
			if o.retry {
				h.attempts++
			} else {
				h.attempts = 0
			}
			c.stats.failures.Add(1)
			c.log.Warn("fetch failed", "host", h.Name, "url", o.url, "reason", o.transient,
				"attempt", o.t.attempts+1, "retry_after", o.retryAfter, "next", h.ready.Sub(now).Round(time.Millisecond))
		default:
			if !o.end.IsZero() {
				h.fails, h.attempts = 0, 0
			}
		}
		if enq != nil && !o.aborted && o.err == nil {
			h.queued -= len(o.skipped)
			h.head = dropThrough(h.head, o.skipped...)
			if pr := o.page; pr != nil && !o.retry {
				if pr.fromDue.IsZero() && !pr.promoted {
					h.queued--
					h.head = dropThrough(h.head, pr.seq)
				} else {
					h.due = nextDue[i]
				}
			}
			if r := recOf(recs, i); r != nil && !r.page.NextDue.IsZero() {
				h.due = earliest(h.due, r.page.NextDue)
			}
			if idle(o) {
				h.queued, h.head, h.due = queued[i], nil, nextDue[i]
			}
		}
		h.queued = max(h.queued, 0)
		s.update(h)
	}
	for name, n := range enq {
		if n == 0 {
			continue
		}
		h := s.get(name, c.cfg.Delay)
		h.queued += n
		s.update(h)
	}
	s.setFullLocked(c.cfg.MaxPages > 0 && c.held.Load() >= int64(c.cfg.MaxPages))
	s.mu.Unlock()
	s.signal()
}

// idle reports whether a task found nothing to do: no request, no
// candidate, which means the scheduler's view of the host was stale.
func idle(o *outcome) bool {
	return o.page == nil && len(o.skipped) == 0 && o.robots == nil && o.end.IsZero() && o.waitUntil.IsZero()
}

// dropThrough removes from a host's head buffer the items up to and
// including the largest of seqs, which have left the queue.
func dropThrough(head []store.QueuedItem, seqs ...uint64) []store.QueuedItem {
	if len(seqs) == 0 {
		return head
	}
	last := seqs[0]
	for _, q := range seqs[1:] {
		last = max(last, q)
	}
	i := 0
	for i < len(head) && head[i].Seq <= last {
		i++
	}
	if i == len(head) {
		return nil
	}
	return head[i:]
}

func recOf(recs []*record, i int) *record {
	if recs == nil {
		return nil
	}
	return recs[i]
}

// maxTime is later than any due time.
var maxTime = time.Unix(1<<62, 0)

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

// backoff is the wait after h's fails-th consecutive failure: the host's
// delay (at least a second) doubled per failure, up to DefaultMaxBackoff.
func (c *Crawler) backoff(h *host) time.Duration {
	d := max(h.Delay, time.Second)
	for i := 1; i < h.fails && d < DefaultMaxBackoff; i++ {
		d *= 2
	}
	return min(d, DefaultMaxBackoff)
}

// responseHeader rebuilds the response's status line and header block as
// the WARC record needs it. Transfer-Encoding is left out: net/http has
// removed the chunking, so the stored body is not chunked.
func responseHeader(r *fetch.Response) []byte {
	var b strings.Builder
	proto := r.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	fmt.Fprintf(&b, "%s %d %s\r\n", proto, r.Status, http.StatusText(r.Status))
	r.Header.WriteSubset(&b, map[string]bool{"Transfer-Encoding": true})
	b.WriteString("\r\n")
	return []byte(b.String())
}

// requestHeader rebuilds the request line and header block that were sent.
func requestHeader(r *fetch.Response) []byte {
	var b strings.Builder
	target, host := "/", authority(r.URL)
	if i := strings.Index(r.URL, "://"); i >= 0 {
		if j := strings.IndexByte(r.URL[i+3:], '/'); j >= 0 {
			target = r.URL[i+3+j:]
		}
	}
	fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: %s\r\n", target, host)
	r.RequestHeader.Write(&b)
	b.WriteString("\r\n")
	return []byte(b.String())
}

// hostOf returns the IP address of an ip:port.
func hostOf(addr string) string {
	if i := strings.LastIndexByte(addr, ':'); i >= 0 {
		addr = addr[:i]
	}
	return strings.Trim(addr, "[]")
}
