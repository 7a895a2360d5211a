package crawler

import (
	"net/http"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/store"
)

// This file is the step of a commit that works out a page's new state
// row from its outcome (commit.go calls it between capture.go, which has
// written the WARC records, and the refresh module's decisions). It is a
// pure function of the previous row, the outcome and the time, so that
// every HTTP case is a line of a table test.

// answer is what a fetch brought back, as far as the row is concerned.
type answer struct {
	status             int
	etag, lastModified string
	location           string // the absolute target of a 3xx
}

// rowInput is an outcome as nextRow reads it.
type rowInput struct {
	item store.Item
	// disallowed: robots.txt now forbids the held page, which leaves the
	// collection unfetched. postpone, if set: the revisit was not made,
	// it moves to that time.
	disallowed bool
	postpone   time.Time
	// resp is the answer of the last attempt; nil if none came (a network
	// failure).
	resp *answer
	// changed and checksum: the content, for a 2xx.
	changed  bool
	checksum uint64
	// capture, if set, is the WARC record that now holds the page's copy.
	capture *capture
	// weight, with weighed, is the page's importance as last ranked.
	weight  float64
	weighed bool
}

// capture locates the WARC response record of a new copy of a page.
type capture struct {
	recordID, payloadDigest string
	at                      time.Time
	file                    string
	offset                  int64
}

// next is what the row waits for from the refresh module once nextRow has
// worked it out.
type next uint8

const (
	nextNone    next = iota // nothing: the row is final (not due again)
	nextRevisit             // a held page compared with its copy: Revisit sets when
	nextRetry               // due again after the policy's Retry interval
)

// transition is a row's change: the new row, the visit to record (nil if
// no request was made), whether OnFetch hears of it, whether the refresh
// module observes it (a 200 or 304 of a page) and what sets its next due
// time.
type transition struct {
	row     store.Page
	visit   *store.Visit
	event   bool
	observe bool
	next    next
}

// nextRow is the row of the URL whose previous row was prev (known: there
// was one) after the outcome in, at now. It leaves NextDue zero where
// the refresh module decides it (next).
func nextRow(prev store.Page, known bool, in rowInput, now time.Time) transition {
	tr := transition{row: prev}
	p := &tr.row
	if !known {
		p.URL, p.FirstSeen, p.Kind = in.item.URL, now, in.item.Kind
	}
	switch {
	case in.disallowed:
		p.Held, p.NextDue = false, time.Time{}
		return tr
	case !in.postpone.IsZero():
		p.NextDue = in.postpone
		return tr
	}
	tr.event = true
	p.LastFetch = now
	p.Fetches++
	p.Evicted = false
	if in.weighed {
		p.Weight = in.weight
	}
	v := &store.Visit{Time: now}
	tr.visit = v
	p.NextDue = time.Time{}
	if in.resp == nil { // A network failure, after the last attempt.
		p.Status = 0
		// A URL never held is tried again too: a transient failure must
		// not lose it for good.
		tr.next = nextRetry
		return tr
	}
	r := in.resp
	p.Status, v.Status = r.status, r.status
	v.ETag, v.LastModified = r.etag, r.lastModified
	if c := in.capture; c != nil {
		p.RecordID, p.PayloadDigest, p.CaptureTime = c.recordID, c.payloadDigest, c.at
		p.WARCFile, p.WARCOffset = c.file, c.offset
	}
	page := in.item.Kind == store.KindPage
	switch s := r.status; {
	case s == http.StatusNotModified:
		if v.ETag != "" {
			p.ETag = v.ETag
		}
		if v.LastModified != "" {
			p.LastModified = v.LastModified
		}
		tr.observe = page
	case s >= 200 && s < 300:
		v.Changed = in.changed
		if in.changed {
			p.Changes++
		}
		p.Checksum = in.checksum
		p.ETag, p.LastModified = v.ETag, v.LastModified
		p.Held = true
		tr.observe = page
	case s >= 300 && s < 400:
		p.Held, p.Location = false, r.location
	case s >= 500 || s == http.StatusTooManyRequests:
		// The last attempt failed too: the page keeps what it held.
	default: // 4xx: gone.
		p.Held = false
	}
	switch {
	case p.Held && tr.observe:
		tr.next = nextRevisit
	case p.Held || r.status >= 500 || r.status == http.StatusTooManyRequests:
		// A sitemap held is fetched again at the policy's fallback; a URL
		// never held whose last attempt failed transiently is tried
		// again, not lost for good.
		tr.next = nextRetry
	}
	return tr
}
