package pagerow

import (
	"reflect"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/store"
)

// TestNext walks Next through the outcomes of a fetch, each with
// the row and visit written out in full: what HTTP's status classes mean
// for a page held or not (RFC 9110: a 304 confirms the copy held and may
// update its validators, a 3xx or 4xx ends it, a 5xx or 429 leaves it as
// it was), and the crawl's own bookkeeping.
func TestNext(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	before := now.Add(-48 * time.Hour)
	page := store.Item{URL: "http://a.test/p", Kind: store.KindPage}
	held := store.Page{
		URL: page.URL, FirstSeen: before, LastFetch: before, Status: 200, Checksum: 7, ETag: `"e1"`,
		LastModified: "Mon, 23 Nov 2026 12:00:00 GMT", Fetches: 3, Changes: 1, WARCFile: "a.warc.gz", WARCOffset: 10,
		RecordID: "<urn:uuid:1>", PayloadDigest: "sha1:A", CaptureTime: before, Held: true,
		NextDue: now, Rate: 1e-5, Interval: 3600,
	}
	cp := &Capture{RecordID: "<urn:uuid:2>", PayloadDigest: "sha1:B", At: now.Add(-time.Second), File: "b.warc.gz", Offset: 99}
	ok := &Answer{Status: 200, ETag: `"e2"`, LastModified: "Wed, 25 Nov 2026 11:00:00 GMT"}
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
		in    Input
		want  Transition
	}{
		{
			name: "a new page, 200",
			in:   Input{Item: page, Resp: ok, Checksum: 9, Capture: cp},
			want: Transition{
				Row: store.Page{URL: page.URL, FirstSeen: now, LastFetch: now, Status: 200, Checksum: 9, ETag: ok.ETag,
					LastModified: ok.LastModified, Fetches: 1, WARCFile: "b.warc.gz", WARCOffset: 99,
					RecordID: "<urn:uuid:2>", PayloadDigest: "sha1:B", CaptureTime: now.Add(-time.Second), Held: true},
				Visit: visit(200, ok.ETag, ok.LastModified, false), Event: true, Observe: true, Wait: Revisit,
			},
		},
		{
			name: "held, 200 with new content", prev: held, known: true,
			in: Input{Item: page, Resp: ok, Changed: true, Checksum: 9, Capture: cp},
			want: Transition{
				Row: func() store.Page {
					p := fetched(held, 200)
					p.Changes, p.Checksum, p.ETag, p.LastModified = 2, 9, ok.ETag, ok.LastModified
					p.WARCFile, p.WARCOffset, p.RecordID, p.PayloadDigest, p.CaptureTime = "b.warc.gz", 99, "<urn:uuid:2>", "sha1:B", now.Add(-time.Second)
					return p
				}(),
				Visit: visit(200, ok.ETag, ok.LastModified, true), Event: true, Observe: true, Wait: Revisit,
			},
		},
		{
			name: "held, 304 with a new ETag and no Last-Modified", prev: held, known: true,
			in: Input{Item: page, Resp: &Answer{Status: 304, ETag: `"e3"`}},
			want: Transition{
				Row: func() store.Page {
					p := fetched(held, 304)
					p.ETag = `"e3"`
					return p
				}(),
				Visit: visit(304, `"e3"`, "", false), Event: true, Observe: true, Wait: Revisit,
			},
		},
		{
			name: "held, moved", prev: held, known: true,
			in: Input{Item: page, Resp: &Answer{Status: 301, Location: "http://a.test/q"}},
			want: Transition{
				Row: func() store.Page {
					p := fetched(held, 301)
					p.Held, p.Location = false, "http://a.test/q"
					return p
				}(),
				Visit: visit(301, "", "", false), Event: true,
			},
		},
		{
			name: "held, gone", prev: held, known: true,
			in: Input{Item: page, Resp: &Answer{Status: 404}},
			want: Transition{
				Row:   func() store.Page { p := fetched(held, 404); p.Held = false; return p }(),
				Visit: visit(404, "", "", false), Event: true,
			},
		},
		{
			name: "held, 503 at the last attempt", prev: held, known: true,
			in:   Input{Item: page, Resp: &Answer{Status: 503}},
			want: Transition{Row: fetched(held, 503), Visit: visit(503, "", "", false), Event: true, Wait: Retry},
		},
		{
			name: "new, 429 at the last attempt",
			in:   Input{Item: page, Resp: &Answer{Status: 429}},
			want: Transition{
				Row:   store.Page{URL: page.URL, FirstSeen: now, LastFetch: now, Status: 429, Fetches: 1},
				Visit: visit(429, "", "", false), Event: true, Wait: Retry,
			},
		},
		{
			name: "held, no answer at the last attempt", prev: held, known: true,
			in:   Input{Item: page},
			want: Transition{Row: fetched(held, 0), Visit: visit(0, "", "", false), Event: true, Wait: Retry},
		},
		{
			name: "held, now disallowed by robots.txt", prev: held, known: true,
			in:   Input{Item: page, Disallowed: true},
			want: Transition{Row: func() store.Page { p := held; p.Held, p.NextDue = false, time.Time{}; return p }()},
		},
		{
			name: "held, revisit postponed", prev: held, known: true,
			in:   Input{Item: page, Postpone: now.Add(time.Hour)},
			want: Transition{Row: func() store.Page { p := held; p.NextDue = now.Add(time.Hour); return p }()},
		},
		{
			name: "a sitemap, 200",
			in:   Input{Item: store.Item{URL: "http://a.test/sitemap.xml", Kind: store.KindSitemap}, Resp: ok, Checksum: 5},
			want: Transition{
				Row: store.Page{URL: "http://a.test/sitemap.xml", FirstSeen: now, LastFetch: now, Status: 200, Checksum: 5,
					ETag: ok.ETag, LastModified: ok.LastModified, Fetches: 1, Kind: store.KindSitemap, Held: true},
				Visit: visit(200, ok.ETag, ok.LastModified, false), Event: true, Wait: Retry,
			},
		},
		{
			name: "an evicted page taken back, weighed", prev: func() store.Page { p := held; p.Held, p.Evicted = false, true; return p }(), known: true,
			in: Input{Item: page, Resp: ok, Checksum: 7, Weight: 2.5, Weighed: true},
			want: Transition{
				Row: func() store.Page {
					p := fetched(held, 200)
					p.ETag, p.LastModified, p.Weight = ok.ETag, ok.LastModified, 2.5
					return p
				}(),
				Visit: visit(200, ok.ETag, ok.LastModified, false), Event: true, Observe: true, Wait: Revisit,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Next(tt.prev, tt.known, tt.in, now)
			if !reflect.DeepEqual(got.Row, tt.want.Row) {
				t.Errorf("row\n got %+v\nwant %+v", got.Row, tt.want.Row)
			}
			if !reflect.DeepEqual(got.Visit, tt.want.Visit) {
				t.Errorf("visit %+v, want %+v", got.Visit, tt.want.Visit)
			}
			if got.Event != tt.want.Event || got.Observe != tt.want.Observe || got.Wait != tt.want.Wait {
				t.Errorf("event %v, observe %v, wait %v; want %v, %v, %v",
					got.Event, got.Observe, got.Wait, tt.want.Event, tt.want.Observe, tt.want.Wait)
			}
		})
	}
}
