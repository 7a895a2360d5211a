package datadir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// TestReadStatusRows reads a data directory written here row by row, so
// that every figure of the status is known in advance: the rows by the
// status of their last fetch, the held pages by estimated rate (with
// rates on the classes' boundaries, which belong to the faster class),
// the hosts by how far their validators are trusted, the queues, the due
// revisits against now, the scope and the WARC files.
func TestReadStatusRows(t *testing.T) {
	const day = 86400.0
	dir := t.TempDir()
	s, err := store.Open(filepath.Join(dir, "state"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	observed := func(n int) []byte { // a change history of n comparisons
		var cs change.Stats
		for i := range n {
			cs.Add(change.Observation{Interval: day, Changed: i%2 == 0, SinceModified: -1}, float64(i+1)*day)
		}
		b, err := cs.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// Held pages at rates per day: 24 and 48 hourly, 1 and 23.9 daily,
	// 1/7 weekly, 1/30 monthly, 0.01 rarer, and one never estimated.
	pages := []store.Page{
		{URL: "http://a.test/1", Status: 200, Held: true, Rate: 24 / day, Change: observed(3), Fetches: 4, Changes: 2, NextDue: now.Add(-time.Hour)},
		{URL: "http://a.test/2", Status: 200, Held: true, Rate: 48 / day, Fetches: 1, NextDue: now},
		{URL: "http://a.test/3", Status: 304, Held: true, Rate: 1 / day, Change: observed(5), Fetches: 6, Changes: 1, NextDue: now.Add(time.Hour)},
		{URL: "http://a.test/4", Status: 200, Held: true, Rate: 23.9 / day, Fetches: 1, NextDue: now.Add(2 * time.Hour)},
		{URL: "http://b.test/1", Status: 200, Held: true, Rate: 1.0 / 7 / day, Fetches: 1, NextDue: now.Add(3 * time.Hour)},
		{URL: "http://b.test/2", Status: 200, Held: true, Rate: 1.0 / 30 / day, Fetches: 1, NextDue: now.Add(4 * time.Hour)},
		{URL: "http://b.test/3", Status: 200, Held: true, Rate: 0.01 / day, Fetches: 1, NextDue: now.Add(5 * time.Hour)},
		{URL: "http://b.test/4", Status: 200, Held: true, Fetches: 1, NextDue: now.Add(6 * time.Hour), LastFetch: now.Add(-time.Minute)},
		// Rows that are not held: gone, moved, failed, unanswered, odd.
		{URL: "http://b.test/5", Status: 404, Rate: 5 / day, Fetches: 2},
		{URL: "http://b.test/6", Status: 301, Fetches: 1},
		{URL: "http://b.test/7", Status: 503, Fetches: 3, NextDue: now.Add(-2 * time.Hour)},
		{URL: "http://b.test/8", Status: 0, Fetches: 3, NextDue: now.Add(-3 * time.Hour)},
		{URL: "http://b.test/9", Status: 103, Fetches: 1},
		{URL: "http://a.test/sitemap.xml", Kind: store.KindSitemap, Status: 200, Held: true, Rate: 2 / day, Fetches: 2, Changes: 1},
	}
	tx := s.Begin()
	for _, p := range pages {
		if err := tx.PutPage(p, nil); err != nil {
			t.Fatal(err)
		}
		if !p.NextDue.IsZero() {
			if err := tx.Schedule(hostOf(p.URL), p.URL, time.Time{}, p.NextDue); err != nil {
				t.Fatal(err)
			}
		}
	}
	tx.AddHeld(8)
	hosts := map[string]store.HostState{
		"a.test": {LastModified: store.Agreement{Agree: 5}, Sitemap: store.Agreement{Agree: 5}},              // trusted, sitemap trusted
		"b.test": {LastModified: store.Agreement{Agree: 40, Disagree: 3}},                                    // distrusted
		"c.test": {LastModified: store.Agreement{Agree: 4}, Sitemap: store.Agreement{Agree: 1, Disagree: 1}}, // unproven, sitemap distrusted
		"d.test": {LastModified: store.Agreement{Agree: 40, Disagree: 2}},                                    // trusted: 2·20 ≤ 40
	}
	for h, hs := range hosts {
		if err := tx.PutHostState(h, hs); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range []string{"a.test", "b.test"} {
		if err := tx.AddScope(h, h); err != nil {
			t.Fatal(err)
		}
	}
	items := []store.Item{{URL: "http://c.test/1"}, {URL: "http://c.test/2"}}
	if _, _, err := tx.Enqueue("c.test", items, 0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tx.Enqueue("d.test", items[:0], 0); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	warcDir := filepath.Join(dir, "warc")
	if err := os.MkdirAll(filepath.Join(warcDir, "dir.warc.gz"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, f := range []struct {
		name string
		size int
	}{{"a.warc.gz", 100}, {"b.warc", 30}, {"c.warc.gz", 7}, {"notes.txt", 1000}} {
		path := filepath.Join(warcDir, f.name)
		if err := os.WriteFile(path, make([]byte, f.size), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := now.Add(time.Duration(i) * time.Minute)
		if f.name == "c.warc.gz" {
			mt = now.Add(time.Minute) // as new as b.warc: the greater name wins
		}
		if err := os.Chtimes(path, mt, mt); err != nil {
			t.Fatal(err)
		}
	}

	got, err := ReadStatus(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	want := Status{
		Dir: dir, Seen: 2, Held: 8, HeldRows: 8, Queued: 2, QueueHosts: 1,
		Scheduled: 10, Overdue: 4, DueHosts: 2, NextDue: now.Add(-3 * time.Hour),
		Rows: 13, SitemapRows: 1,
		ByClass: StatusClasses{Success: 7, NotModified: 1, Redirect: 1, ClientError: 1, ServerError: 1, Network: 1, Other: 1},
		Fetches: 28, Changes: 4, LastFetch: now.Add(-time.Minute),
		ScopeHosts: []string{"a.test", "b.test"}, ScopeSites: []string{"a.test", "b.test"},
		WARC: WARCFiles{Files: 3, Bytes: 137, Newest: "c.warc.gz", NewestTime: now.Add(time.Minute)},
		Rates: Rates{
			Observed: 2, Observations: 8,
			// The fourth of the seven estimated rates, in increasing order.
			Median:    1,
			ByClass:   RateClasses{Hourly: 2, Daily: 2, Weekly: 1, Monthly: 1, Rarer: 1},
			LMTrusted: 2, LMDistrusted: 1, LMUnproven: 1, SitemapTrusted: 1, SitemapDistrusted: 1,
		},
	}
	if got.LastFetch.Equal(want.LastFetch) {
		got.LastFetch = want.LastFetch
	}
	if got.NextDue.Equal(want.NextDue) {
		got.NextDue = want.NextDue
	}
	if got.WARC.NewestTime.Equal(want.WARC.NewestTime) {
		got.WARC.NewestTime = want.WARC.NewestTime
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadStatus:\n got %+v\nwant %+v", got, want)
	}
}

// hostOf is the host of a test URL, http://host/path.
func hostOf(u string) string {
	h := u[len("http://"):]
	for i := range len(h) {
		if h[i] == '/' {
			return h[:i]
		}
	}
	return h
}

// An empty store is a crawl with nothing in it, not an error; its scope
// lists are empty, not nil, so that JSON shows them as [].
func TestReadStatusEmpty(t *testing.T) {
	dir := t.TempDir()
	s, err := store.Open(filepath.Join(dir, "state"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadStatus(dir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := Status{Dir: dir, ScopeHosts: []string{}, ScopeSites: []string{}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadStatus: %+v, want %+v", got, want)
	}
}

// A directory that is missing or holds no crawl is ErrNoCrawl, said in
// words the status command prints as they are, and nothing is created in
// it; one a crawl has open is store.ErrLocked.
func TestReadStatusErrors(t *testing.T) {
	empty := t.TempDir()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	locked := t.TempDir()
	s, err := store.Open(filepath.Join(locked, "state"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	missing := filepath.Join(empty, "none")
	tests := []struct {
		name string
		dir  string
		is   []error
		msg  string // the error's text; empty: not checked
	}{
		{"missing", missing, []error{ErrNoCrawl, fs.ErrNotExist}, "no data directory " + missing},
		{"a file", file, []error{ErrNoCrawl}, file + " is not a directory"},
		{"not a crawl", empty, []error{ErrNoCrawl},
			empty + " is not a crawl data directory (no Pebble store in " + filepath.Join(empty, "state") + ")"},
		{"in use", locked, []error{store.ErrLocked}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadStatus(tt.dir, time.Now())
			if err == nil {
				t.Fatal("no error")
			}
			for _, target := range tt.is {
				if !errors.Is(err, target) {
					t.Errorf("error %q is not %v", err, target)
				}
			}
			if tt.msg != "" && err.Error() != tt.msg {
				t.Errorf("error %q, want %q", err, tt.msg)
			}
			if errors.Is(err, ErrNoCrawl) == errors.Is(err, store.ErrLocked) {
				t.Errorf("error %q: ErrNoCrawl %v, store.ErrLocked %v; want one", err, errors.Is(err, ErrNoCrawl), errors.Is(err, store.ErrLocked))
			}
		})
	}
	if entries, err := os.ReadDir(empty); err != nil || len(entries) != 0 {
		t.Errorf("ReadStatus left %v in an empty directory (%v)", entries, err)
	}
}
