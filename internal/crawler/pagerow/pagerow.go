// Package pagerow is the step of a crawler's commit that works out a
// page's new state row from the outcome of its fetch: the crawler's
// committer (internal/crawler, commit.go) calls Next between writing the
// WARC records (capture.go) and taking the refresh module's decisions. It
// is a pure function of the previous store.Page row, the outcome and the
// time, so that every HTTP case is a line of a table test.
package pagerow

import (
	"net/http"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/store"
)

// Answer is what a fetch brought back, as far as the row is concerned.
type Answer struct {
	Status             int
	ETag, LastModified string
	Location           string // the absolute target of a 3xx
}

// Input is an outcome as Next reads it.
type Input struct {
	Item store.Item
	// Disallowed: robots.txt now forbids the held page, which leaves the
	// collection unfetched. Postpone, if set: the revisit was not made,
	// it moves to that time.
	Disallowed bool
	Postpone   time.Time
	// Resp is the answer of the last attempt; nil if none came (a network
	// failure).
	Resp *Answer
	// Changed and Checksum: the content, for a 2xx.
	Changed  bool
	Checksum uint64
	// Capture, if set, is the WARC record that now holds the page's copy.
	Capture *Capture
	// Weight, with Weighed, is the page's importance as last ranked.
	Weight  float64
	Weighed bool
}

// Capture locates the WARC response record of a new copy of a page.
type Capture struct {
	RecordID, PayloadDigest string
	At                      time.Time
	File                    string
	Offset                  int64
}

// Wait is what the row waits for from the refresh module once Next has
// worked it out.
type Wait uint8

const (
	Final   Wait = iota // nothing: the row is final (not due again)
	Revisit             // a held page compared with its copy: the refresh module's Revisit sets when
	Retry               // due again after the policy's Retry interval
)

// Transition is a row's change: the new row, the visit to record (nil if
// no request was made), whether OnFetch hears of it, whether the refresh
// module observes it (a 200 or 304 of a page) and what sets its next due
// time.
type Transition struct {
	Row     store.Page
	Visit   *store.Visit
	Event   bool
	Observe bool
	Wait    Wait
}

// Next is the row of the URL whose previous row was prev (known: there
// was one) after the outcome in, at now. It leaves NextDue zero where
// the refresh module decides it (Wait).
func Next(prev store.Page, known bool, in Input, now time.Time) Transition {
	tr := Transition{Row: prev}
	p := &tr.Row
	if !known {
		p.URL, p.FirstSeen, p.Kind = in.Item.URL, now, in.Item.Kind
	}
	switch {
	case in.Disallowed:
		p.Held, p.NextDue = false, time.Time{}
		return tr
	case !in.Postpone.IsZero():
		p.NextDue = in.Postpone
		return tr
	}
	tr.Event = true
	p.LastFetch = now
	p.Fetches++
	p.Evicted = false
	if in.Weighed {
		p.Weight = in.Weight
	}
	v := &store.Visit{Time: now}
	tr.Visit = v
	p.NextDue = time.Time{}
	if in.Resp == nil { // A network failure, after the last attempt.
		p.Status = 0
		// A URL never held is tried again too: a transient failure must
		// not lose it for good.
		tr.Wait = Retry
		return tr
	}
	r := in.Resp
	p.Status, v.Status = r.Status, r.Status
	v.ETag, v.LastModified = r.ETag, r.LastModified
	if c := in.Capture; c != nil {
		p.RecordID, p.PayloadDigest, p.CaptureTime = c.RecordID, c.PayloadDigest, c.At
		p.WARCFile, p.WARCOffset = c.File, c.Offset
	}
	page := in.Item.Kind == store.KindPage
	switch s := r.Status; {
	case s == http.StatusNotModified:
		if v.ETag != "" {
			p.ETag = v.ETag
		}
		if v.LastModified != "" {
			p.LastModified = v.LastModified
		}
		tr.Observe = page
	case s >= 200 && s < 300:
		v.Changed = in.Changed
		if in.Changed {
			p.Changes++
		}
		p.Checksum = in.Checksum
		p.ETag, p.LastModified = v.ETag, v.LastModified
		p.Held = true
		tr.Observe = page
	case s >= 300 && s < 400:
		p.Held, p.Location = false, r.Location
	case s >= 500 || s == http.StatusTooManyRequests:
		// The last attempt failed too: the page keeps what it held.
	default: // 4xx: gone.
		p.Held = false
	}
	switch {
	case p.Held && tr.Observe:
		tr.Wait = Revisit
	case p.Held || r.Status >= 500 || r.Status == http.StatusTooManyRequests:
		// A sitemap held is fetched again at the policy's fallback; a URL
		// never held whose last attempt failed transiently is tried
		// again, not lost for good.
		tr.Wait = Retry
	}
	return tr
}
