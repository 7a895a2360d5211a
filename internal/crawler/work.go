package crawler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/freshcrawl/freshcrawl/internal/clock"
	"github.com/freshcrawl/freshcrawl/internal/crawler/capture"
	"github.com/freshcrawl/freshcrawl/internal/extract"
	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/rank"
	"github.com/freshcrawl/freshcrawl/internal/robots"
	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// task is one dispatch of a host: a snapshot of what the scheduler knew
// when it handed the host out.
type task struct {
	h        *host
	due      time.Time // earliest revisit due; zero if none
	queued   int
	full     bool   // no new URL may be taken from the queue: only revisits
	promote  string // the ranking's URL to fetch first, if any
	claimed  bool   // promote enters a full collection: a victim is reserved
	reserved bool   // counted in scheduler.reserved until released
	attempts int
	delay    time.Duration
	// conditional: the host's validators are trusted, so a held page is
	// asked for conditionally (refresh.Host.Conditional, read with the
	// candidates).
	conditional bool
}

// outcome is what a worker found; the committer records it.
type outcome struct {
	t   task
	end time.Time // when the last request ended; zero if none was made
	// aborted is set when shutdown cut the task short: nothing is recorded
	// and the work stays queued.
	aborted bool
	// transient is the reason a request failed in a way worth retrying
	// (network error, 5xx, 429); the work stays queued unless this was the
	// last attempt, in which case page carries the failure.
	transient  string
	retry      bool // transient, and attempts remain: record nothing but the WARC
	retryAfter time.Duration
	// url is the URL of the last request made, for the log.
	url string
	// seq is the outcome's place among its host's (host.handed), the
	// order the committer records them in; taken counts the host's queue
	// items it took; marked is the URL it holds in flight (host.inflight),
	// if any.
	seq    uint64
	taken  int
	marked string
	// delay is the host's delay as robots.txt sets it; zero: unchanged.
	delay time.Duration
	// waitUntil holds the host back (robots.txt unreachable); zero: no.
	waitUntil time.Time

	robots   []*capture.Exchange // WARC records of robots.txt requests, redirects included
	sitemaps []string            // sitemap URLs robots.txt pointed to
	skipped  []uint64            // queue items dropped unfetched (robots-disallowed)
	given    []string            // page URLs dropped unfetched, for the ranking
	page     *pageResult
	err      error // a store read failed: the task is retried later
}

// pageResult is the fetch of one page or sitemap.
type pageResult struct {
	item       store.Item
	seq        uint64    // queue position, for a new URL
	fromDue    time.Time // due time, for a revisit; zero for a new URL
	promoted   bool      // a new URL the ranking chose, taken out of its queue's order
	prev       store.Page
	known      bool // prev is the URL's stored row
	resp       *fetch.Response
	fetchErr   error             // the network error of a final failed attempt
	enc        *capture.Exchange // the WARC records of resp
	disallowed bool              // robots.txt forbids the URL: not fetched
	postpone   time.Time         // not fetched: the revisit moves to this time

	checksum uint64
	changed  bool
	links    []extract.Link
	edges    []string     // the links that count, as stageFound found them
	before   []store.Hash // in a cluster, the links the page had before
	named    []bool       // under topic ordering: which edges name the topic
	topicHot bool         // under topic ordering: the page is hot for it
	read     bool         // new content was read: links and entries are its own
	noindex  bool
	entries  []extract.SitemapEntry // pages a sitemap lists
	children []extract.SitemapEntry // sitemaps a sitemap index lists
	note     string                 // why links or a sitemap could not be read
}

// work runs one task: it picks the host's next URL (a due revisit first,
// else the head of its queue, but after a revisit the queue first when both
// have work), makes sure robots.txt is known, and fetches. What the answer
// holds is read later, by process, once the host is handed back.
func (c *Crawler) work(ctx context.Context, t task) outcome {
	o := outcome{t: t}
	now := c.now()
	h := t.h
	h.mu.Lock()
	cands, err := c.candidates(&o.t, now)
	var until time.Time
	if err == nil && len(cands) > 0 && (!cands[0].fromDue.IsZero() || cands[0].promoted) {
		// A revisit or a promoted URL stands alone. In flight from now:
		// a sweep or signal staged meanwhile must not move its row.
		h.fly(cands[0].item.URL)
		o.marked = cands[0].item.URL
		if !cands[0].fromDue.IsZero() {
			until = c.postpone(&o.t, &cands[0], now)
		}
	}
	o.t.conditional = h.Conditional()
	h.mu.Unlock()
	if err != nil {
		o.err = err
		return o
	}
	if !until.IsZero() {
		o.page = &pageResult{item: cands[0].item, fromDue: cands[0].fromDue, prev: cands[0].page, known: true, postpone: until}
		return o
	}
	for _, cand := range cands {
		if c.try(ctx, &o, cand, now) {
			break
		}
	}
	return o
}

// candidates returns the URLs t may fetch, in the order it should try
// them, none of them in flight (host.inflight). A promoted URL (the
// ranking's) stands alone: t then takes nothing else. The caller holds
// the host's mu.
func (c *Crawler) candidates(t *task, now time.Time) (cands []candidate, err error) {
	if t.promote != "" {
		if t.h.flying(t.promote) {
			return nil, nil // being fetched: nothing to do this turn
		}
		cands, err = c.promotedCandidate(t.promote)
		if err != nil || len(cands) == 0 { // fetched meanwhile: nothing to do this turn
			return nil, err
		}
		t.full = true // the promoted URL, or nothing
	}
	due := !t.due.IsZero() && !t.due.After(now) && len(cands) == 0
	queue := t.queued > 0 && !t.full
	newFirst := queue && t.h.newRun < newPerRevisit
	if due && !newFirst {
		cands, err = c.dueCandidates(t.h, now)
	}
	if err == nil && len(cands) == 0 && queue {
		cands, err = c.queueCandidates(t.h)
	}
	if err == nil && len(cands) == 0 && due && newFirst {
		cands, err = c.dueCandidates(t.h, now) // The queue was empty after all.
	}
	return cands, err
}

// postpone returns when a due revisit should be made instead of now, or
// zero to make it now.
func (c *Crawler) postpone(t *task, cand *candidate, now time.Time) time.Time {
	if !cand.page.Held && t.full {
		// A URL never held that failed transiently is due again, but it
		// is new work: it waits while the collection is full.
		return now.Add(c.refresh.Uniform())
	}
	return c.refresh.Postpone(&t.h.Host, &cand.page, now)
}

// try makes cand the task's request, if it may be made: it is not known
// already, robots.txt is known and allows it. It reports whether the task
// is done; false passes on to the next candidate (this one is dropped).
func (c *Crawler) try(ctx context.Context, o *outcome, cand candidate, now time.Time) bool {
	u, err := url.Parse(cand.item.URL)
	if err != nil { // Stored URLs are canonical; this is corruption.
		o.skip(cand)
		return false
	}
	if c.ranker != nil && cand.fromDue.IsZero() && !cand.promoted {
		// Under an importance ordering a queued URL may have been
		// fetched already, out of its queue's order.
		switch _, err := c.store.GetPage(cand.item.URL); {
		case err == nil:
			o.skipped = append(o.skipped, cand.seq)
			return false
		case !errors.Is(err, store.ErrNotFound):
			o.err = err
			return true
		}
	}
	entry, fresh := c.robots.Get(robots.Key(u), now)
	if !fresh {
		c.fetchRobots(ctx, o, u)
		return true
	}
	group := entry.File.Group(c.agent)
	o.delay = group.Delay(c.cfg.Delay, c.cfg.MaxCrawlDelay)
	if group.Allowed(u.RequestURI()) {
		switch {
		case !cand.fromDue.IsZero():
			o.t.h.newRun = 0
		case !o.t.due.IsZero() && !o.t.due.After(now):
			o.t.h.newRun++
		}
		c.fetchPage(ctx, o, cand)
		return true
	}
	if !entry.UnreachableSince.IsZero() {
		// robots.txt could not be read: nothing may be fetched until it
		// is asked for again (RFC 9309 §2.3.1.4), but the URLs wait.
		// (After the cache's UnreachableLimit the last good file, or
		// allow-all, stands in, and the URL is allowed.)
		o.waitUntil = entry.Expires
		if cand.promoted {
			// Not to be handed out again while the host is shut: its
			// queue brings the URL back when robots.txt can be read.
			o.given = append(o.given, cand.item.URL)
		}
		return true
	}
	c.stats.disallowed.Add(1)
	if cand.fromDue.IsZero() {
		o.skip(cand)
		return false
	}
	// A held page that robots.txt now forbids leaves the collection.
	o.page = &pageResult{item: cand.item, fromDue: cand.fromDue, prev: cand.page, known: true, disallowed: true}
	return true
}

// candidate is a URL a task may fetch.
type candidate struct {
	item     store.Item
	seq      uint64
	fromDue  time.Time
	page     store.Page // the stored row, for a revisit
	promoted bool
}

// skip drops a candidate unfetched: a queue item leaves its queue; every
// page URL is given up for the ranking.
func (o *outcome) skip(cand candidate) {
	if !cand.promoted {
		o.skipped = append(o.skipped, cand.seq)
	}
	if cand.item.Kind == store.KindPage {
		o.given = append(o.given, cand.item.URL)
	}
}

// promotedCandidate returns the ranking's URL as a candidate: a URL never
// fetched, or a page evicted earlier, which comes back; or none if it has
// been fetched since the ranking.
func (c *Crawler) promotedCandidate(u string) ([]candidate, error) {
	p, err := c.store.GetPage(u)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return []candidate{{item: store.Item{URL: u, Kind: store.KindPage}, promoted: true}}, nil
	case err != nil:
		return nil, err
	case p.Evicted && !p.Held && p.Kind == store.KindPage:
		return []candidate{{item: store.Item{URL: u, Kind: store.KindPage}, promoted: true, page: p}}, nil
	}
	return nil, nil
}

// dueCandidates returns h's due revisit: a sitemap due first
// (refresh.Module.DueSitemap), else the one due longest.
func (c *Crawler) dueCandidates(h *host, now time.Time) ([]candidate, error) {
	switch p, ok, err := c.refresh.DueSitemap(&h.Host, now); {
	case err != nil:
		return nil, err
	case ok && !h.flying(p.URL):
		return []candidate{{item: store.Item{URL: p.URL, Kind: p.Kind}, fromDue: p.NextDue, page: p}}, nil
	}
	// The URLs in flight are still due in the store until they commit.
	due, err := c.store.Due(h.Name, now, 1+len(h.inflight))
	if err != nil {
		return nil, err
	}
	for _, d := range due {
		if h.flying(d.URL) {
			continue
		}
		p, err := c.store.GetPage(d.URL)
		if err != nil {
			return nil, err
		}
		return []candidate{{item: store.Item{URL: d.URL, Kind: p.Kind}, fromDue: d.Due, page: p}}, nil
	}
	return nil, nil
}

// flying reports whether u's outcome is handed back but not committed.
// The caller holds h.mu.
func (h *host) flying(u string) bool {
	_, ok := h.inflight[u]
	return ok
}

// queueCandidates returns the head of h's queue: several items, so that
// robots-disallowed ones can be passed over in one task. They come from
// h.head, refilled from the store when empty, so most tasks read nothing
// from disk; the items taken by outcomes not yet committed are still in
// the store, before h.nextSeq. The worker owns h.head while h is busy.
// A URL in flight (a promoted one, fetched out of its queue's order)
// stops the list: the queue waits for its commit.
func (c *Crawler) queueCandidates(h *host) ([]candidate, error) {
	if len(h.head) == 0 {
		items, err := c.store.Peek(h.Name, h.nextSeq, headBuffer)
		if err != nil {
			return nil, err
		}
		h.head = items
	}
	out := make([]candidate, 0, len(h.head))
	for _, it := range h.head {
		if h.flying(it.URL) {
			break
		}
		out = append(out, candidate{item: it.Item, seq: it.Seq})
	}
	return out, nil
}

// fetchRobots fetches u's robots.txt, following up to MaxRedirects
// redirects (RFC 9309 §2.3.1.2: at least five), each after the host's
// delay, and records the answer in the cache.
func (c *Crawler) fetchRobots(ctx context.Context, o *outcome, u *url.URL) {
	key := robots.Key(u)
	target := key + "/robots.txt"
	status := 0
	var body []byte
	for hop := 0; ; hop++ {
		if hop > 0 && !clock.Sleep(ctx, o.t.delay) {
			o.aborted = true
			return
		}
		o.url = target
		resp, err := c.fetcher.Fetch(ctx, fetch.Request{URL: target})
		o.end = c.now()
		if ctx.Err() != nil {
			o.aborted = true
			return
		}
		c.stats.requests.Add(1)
		if err != nil {
			o.transient = "robots.txt: " + fetch.Reason(err)
			status = 0
			break
		}
		enc, err := c.encodeExchange(resp, nil)
		if err != nil {
			o.err = err
			return
		}
		o.robots = append(o.robots, enc)
		status, body = resp.Status, resp.Body
		if resp.Status == http.StatusTooManyRequests || resp.Status >= 500 {
			o.transient = fmt.Sprintf("robots.txt: HTTP %d", resp.Status)
			o.retryAfter = fetch.RetryAfter(resp, c.now(), DefaultMaxRetryAfter)
			break
		}
		if resp.Status >= 300 && resp.Status < 400 && resp.Location != "" && hop < c.cfg.MaxRedirects {
			next, err := urlx.Canonical(resp.Location)
			if err != nil {
				break
			}
			target = next
			continue
		}
		break
	}
	if o.transient != "" && o.t.attempts+1 < c.cfg.MaxAttempts {
		o.retry = true // Ask again after a back-off before deciding.
		return
	}
	entry := c.robots.Record(key, status, body, c.now())
	if !entry.UnreachableSince.IsZero() {
		c.log.Warn("robots.txt unreachable, host paused", "host", u.Host, "reason", o.transient,
			"until", entry.Expires.Format(time.RFC3339))
	}
	if entry.File != nil {
		o.delay = entry.File.Group(c.agent).Delay(c.cfg.Delay, c.cfg.MaxCrawlDelay)
		o.sitemaps = entry.File.Sitemaps()
	}
	o.sitemaps = append(o.sitemaps, key+"/sitemap.xml")
	c.stats.robots.Add(1)
}

// fetchPage fetches one page or sitemap, conditionally if it is held, and
// reads what it needs from the answer.
func (c *Crawler) fetchPage(ctx context.Context, o *outcome, cand candidate) {
	pr := &pageResult{item: cand.item, seq: cand.seq, fromDue: cand.fromDue, promoted: cand.promoted}
	if !cand.fromDue.IsZero() || cand.promoted && cand.page.URL != "" {
		// A revisit: its row was read with the due entry. A URL from the
		// queue has no row: the seen set queues a URL once, and a URL is
		// only ever fetched again through the due index.
		pr.prev, pr.known = cand.page, true
	}
	o.url = cand.item.URL
	req := fetch.Request{URL: cand.item.URL}
	if pr.known && pr.prev.Held && o.t.conditional {
		req.ETag, req.LastModified = pr.prev.ETag, pr.prev.LastModified
	}
	resp, ferr := c.fetcher.Fetch(ctx, req)
	o.end = c.now()
	if ctx.Err() != nil {
		o.aborted = true
		return
	}
	c.stats.requests.Add(1)
	last := o.t.attempts+1 >= c.cfg.MaxAttempts
	switch {
	case ferr != nil:
		o.transient = fetch.Reason(ferr)
		if !last {
			o.retry = true
			return
		}
		pr.fetchErr = ferr
	case resp.Status == http.StatusTooManyRequests || resp.Status >= 500:
		o.transient = fmt.Sprintf("HTTP %d", resp.Status)
		o.retryAfter = fetch.RetryAfter(resp, c.now(), DefaultMaxRetryAfter)
		pr.resp = resp
		if !last {
			o.retry = true
			o.page = pr // kept for the WARC file only
			return
		}
	default:
		pr.resp = resp
		if resp.Truncated != "" {
			args := []any{"url", cand.item.URL, "reason", resp.Truncated, "bytes", len(resp.Raw), "decoded", len(resp.Body)}
			if resp.DecodeError != nil {
				args = append(args, "err", resp.DecodeError)
			}
			c.log.Warn("body truncated", args...)
		}
	}
	o.page = pr
}

// process reads what o's answer holds — its checksum, links or sitemap
// entries — and encodes its WARC records: the costly part of a fetch,
// done once the host is handed back, while its next request goes out. An
// answer that will be asked for again is only archived.
func (c *Crawler) process(o *outcome) error {
	pr := o.page
	if pr == nil || pr.resp == nil {
		return nil
	}
	prev := &pr.prev
	if o.retry {
		prev = nil
	} else {
		c.analyse(pr)
		if pr.note != "" {
			c.log.Warn("content not read", "url", pr.item.URL, "reason", pr.note)
		}
	}
	enc, err := c.encodeExchange(pr.resp, prev)
	pr.enc = enc
	return err
}

// analyse computes the checksum and, for new content, the links or
// sitemap entries.
func (c *Crawler) analyse(pr *pageResult) {
	r := pr.resp
	if r.Status == http.StatusNotModified {
		pr.checksum = pr.prev.Checksum
		return
	}
	if r.Status < 200 || r.Status >= 300 {
		return
	}
	body := r.Body
	if r.DecodeError != nil && body == nil {
		pr.note = "undecodable body: " + r.DecodeError.Error()
		body = r.Raw
	}
	pr.checksum = xxhash.Sum64(body)
	pr.changed = pr.known && pr.prev.Held && pr.checksum != pr.prev.Checksum
	if pr.known && pr.prev.Held && !pr.changed {
		return // Same content: its links and entries are known already.
	}
	pr.read = true
	ctype := r.Header.Get("Content-Type")
	if pr.item.Kind == store.KindSitemap {
		res, err := extract.Sitemap(bytes.NewReader(body), ctype, DefaultSitemapURLs)
		if err != nil {
			pr.note = "sitemap: " + err.Error()
			return
		}
		pr.entries, pr.children = res.URLs, res.Sitemaps
		return
	}
	if !extract.IsHTML(ctype, body) {
		return
	}
	res, err := extract.Links(bytes.NewReader(body), r.URL, ctype, extract.Options{
		HonorNofollow: !c.cfg.FollowNofollow,
		Agent:         c.agent,
	})
	if err != nil {
		pr.note = "links: " + err.Error()
	}
	pr.links, pr.noindex = res.Links, res.Robots.NoIndex
	if c.cfg.Outbox != nil && pr.known {
		// A cluster sends another partition a link once, when the page
		// gains it, so that its [URL, count] counts links, not fetches.
		pr.before, _ = c.store.Links(pr.item.URL)
	}
	if c.cfg.Ordering == rank.OrderTopic {
		pr.topicHot = rank.TopicHot(body, c.cfg.Topic)
	}
}
