package crawler

import (
	"reflect"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/store"
)

// TestNextRow walks nextRow through the outcomes of a fetch, each with
// the row and visit written out in full: what HTTP's status classes mean
// for a page held or not (RFC 9110: a 304 confirms the copy held and may
// update its validators, a 3xx or 4xx ends it, a 5xx or 429 leaves it as
// it was), and the crawl's own bookkeeping.
func TestNextRow(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	before := now.Add(-48 * time.Hour)
	page := store.Item{URL: "http://a.test/p", Kind: store.KindPage}
	held := store.Page{
		URL: page.URL, FirstSeen: before, LastFetch: before, Status: 200, Checksum: 7, ETag: `"e1"`,
		LastModified: "Mon, 23 Nov 2026 12:00:00 GMT", Fetches: 3, Changes: 1, WARCFile: "a.warc.gz", WARCOffset: 10,
		RecordID: "<urn:uuid:1>", PayloadDigest: "sha1:A", CaptureTime: before, Held: true,
		NextDue: now, Rate: 1e-5, Interval: 3600,
	}
	cp := &capture{recordID: "<urn:uuid:2>", payloadDigest: "sha1:B", at: now.Add(-time.Second), file: "b.warc.gz", offset: 99}
	ok := &answer{status: 200, etag: `"e2"`, lastModified: "Wed, 25 Nov 2026 11:00:00 GMT"}
	// fetched is a row after a fetch at now: prev with the fetch counted.
	fetched := func(prev store.Page, status int) store.Page {
		prev.LastFetch, prev.Fetches, prev.Status, prev.NextDue = now, prev.Fetches+1, status, time.Time{}
		return prev
	}
	visit := func(status int, etag, lm string, changed bool) *store.Visit {
		return &store.Visit{Time: now, Status: status, ETag: etag, LastModified: lm, Changed: changed}
	}
	tests := []struct {
		name  string
		prev  store.Page
		known bool
		in    rowInput
		want  transition
	}{
		{
			name: "a new page, 200",
			in:   rowInput{item: page, resp: ok, checksum: 9, capture: cp},
			want: transition{
				row: store.Page{URL: page.URL, FirstSeen: now, LastFetch: now, Status: 200, Checksum: 9, ETag: ok.etag,
					LastModified: ok.lastModified, Fetches: 1, WARCFile: "b.warc.gz", WARCOffset: 99,
					RecordID: "<urn:uuid:2>", PayloadDigest: "sha1:B", CaptureTime: now.Add(-time.Second), Held: true},
				visit: visit(200, ok.etag, ok.lastModified, false), event: true, observe: true, next: nextRevisit,
			},
		},
		{
			name: "held, 200 with new content", prev: held, known: true,
			in: rowInput{item: page, resp: ok, changed: true, checksum: 9, capture: cp},
			want: transition{
				row: func() store.Page {
					p := fetched(held, 200)
					p.Changes, p.Checksum, p.ETag, p.LastModified = 2, 9, ok.etag, ok.lastModified
					p.WARCFile, p.WARCOffset, p.RecordID, p.PayloadDigest, p.CaptureTime = "b.warc.gz", 99, "<urn:uuid:2>", "sha1:B", now.Add(-time.Second)
					return p
				}(),
				visit: visit(200, ok.etag, ok.lastModified, true), event: true, observe: true, next: nextRevisit,
			},
		},
		{
			name: "held, 304 with a new ETag and no Last-Modified", prev: held, known: true,
			in: rowInput{item: page, resp: &answer{status: 304, etag: `"e3"`}},
			want: transition{
				row: func() store.Page {
					p := fetched(held, 304)
					p.ETag = `"e3"`
					return p
				}(),
				visit: visit(304, `"e3"`, "", false), event: true, observe: true, next: nextRevisit,
			},
		},
		{
			name: "held, moved", prev: held, known: true,
			in: rowInput{item: page, resp: &answer{status: 301, location: "http://a.test/q"}},
			want: transition{
				row: func() store.Page {
					p := fetched(held, 301)
					p.Held, p.Location = false, "http://a.test/q"
					return p
				}(),
				visit: visit(301, "", "", false), event: true,
			},
		},
		{
			name: "held, gone", prev: held, known: true,
			in: rowInput{item: page, resp: &answer{status: 404}},
			want: transition{
				row:   func() store.Page { p := fetched(held, 404); p.Held = false; return p }(),
				visit: visit(404, "", "", false), event: true,
			},
		},
		{
			name: "held, 503 at the last attempt", prev: held, known: true,
			in:   rowInput{item: page, resp: &answer{status: 503}},
			want: transition{row: fetched(held, 503), visit: visit(503, "", "", false), event: true, next: nextRetry},
		},
		{
			name: "new, 429 at the last attempt",
			in:   rowInput{item: page, resp: &answer{status: 429}},
			want: transition{
				row:   store.Page{URL: page.URL, FirstSeen: now, LastFetch: now, Status: 429, Fetches: 1},
				visit: visit(429, "", "", false), event: true, next: nextRetry,
			},
		},
		{
			name: "held, no answer at the last attempt", prev: held, known: true,
			in:   rowInput{item: page},
			want: transition{row: fetched(held, 0), visit: visit(0, "", "", false), event: true, next: nextRetry},
		},
		{
			name: "held, now disallowed by robots.txt", prev: held, known: true,
			in:   rowInput{item: page, disallowed: true},
			want: transition{row: func() store.Page { p := held; p.Held, p.NextDue = false, time.Time{}; return p }()},
		},
		{
			name: "held, revisit postponed", prev: held, known: true,
			in:   rowInput{item: page, postpone: now.Add(time.Hour)},
			want: transition{row: func() store.Page { p := held; p.NextDue = now.Add(time.Hour); return p }()},
		},
		{
			name: "a sitemap, 200",
			in:   rowInput{item: store.Item{URL: "http://a.test/sitemap.xml", Kind: store.KindSitemap}, resp: ok, checksum: 5},
			want: transition{
				row: store.Page{URL: "http://a.test/sitemap.xml", FirstSeen: now, LastFetch: now, Status: 200, Checksum: 5,
					ETag: ok.etag, LastModified: ok.lastModified, Fetches: 1, Kind: store.KindSitemap, Held: true},
				visit: visit(200, ok.etag, ok.lastModified, false), event: true, next: nextRetry,
			},
		},
		{
			name: "an evicted page taken back, weighed", prev: func() store.Page { p := held; p.Held, p.Evicted = false, true; return p }(), known: true,
			in: rowInput{item: page, resp: ok, checksum: 7, weight: 2.5, weighed: true},
			want: transition{
				row: func() store.Page {
					p := fetched(held, 200)
					p.ETag, p.LastModified, p.Weight = ok.etag, ok.lastModified, 2.5
					return p
				}(),
				visit: visit(200, ok.etag, ok.lastModified, false), event: true, observe: true, next: nextRevisit,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := nextRow(tt.prev, tt.known, tt.in, now)
			if !reflect.DeepEqual(got.row, tt.want.row) {
				t.Errorf("row\n got %+v\nwant %+v", got.row, tt.want.row)
			}
			if !reflect.DeepEqual(got.visit, tt.want.visit) {
				t.Errorf("visit %+v, want %+v", got.visit, tt.want.visit)
			}
			if got.event != tt.want.event || got.observe != tt.want.observe || got.next != tt.want.next {
				t.Errorf("event %v, observe %v, next %v; want %v, %v, %v",
					got.event, got.observe, got.next, tt.want.event, tt.want.observe, tt.want.next)
			}
		})
	}
}
