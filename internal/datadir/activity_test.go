package datadir

import (
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/store"
)

// TestReadActivity reads rows and visits written here one by one, so
// that every figure is known: visits and changes over all rows, first
// fetches and first 2xx answers of pages only, held pages' estimates,
// fetches by host.
func TestReadActivity(t *testing.T) {
	dir := t.TempDir()
	s, err := store.Open(filepath.Join(dir, "state"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }
	rows := []struct {
		page   store.Page
		visits []store.Visit
	}{
		// Failed first, then held and changed once.
		{store.Page{URL: "http://a.test/1", FirstSeen: at(0), Fetches: 3, Held: true, Rate: 0.5, Interval: 60},
			[]store.Visit{{Time: at(0), Status: 503}, {Time: at(1), Status: 200}, {Time: at(5), Status: 200, Changed: true}}},
		// Gone: fetched, never held.
		{store.Page{URL: "http://a.test/2", FirstSeen: at(2), Fetches: 1}, []store.Visit{{Time: at(2), Status: 404}}},
		// A sitemap: counted in the visits and the host's fetches only.
		{store.Page{URL: "http://b.test/sitemap.xml", Kind: store.KindSitemap, FirstSeen: at(3), Fetches: 2, Held: true, Rate: 9},
			[]store.Visit{{Time: at(3), Status: 200}, {Time: at(4), Status: 200, Changed: true}}},
	}
	for _, r := range rows {
		for _, v := range r.visits {
			tx := s.Begin()
			if err := tx.PutPage(r.page, &v); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	a, err := ReadActivity(dir)
	if err != nil {
		t.Fatal(err)
	}
	sortTimes := func(ts []time.Time) []time.Time { return slices.SortedFunc(slices.Values(ts), time.Time.Compare) }
	checks := []struct {
		name      string
		got, want any
	}{
		{"fetches", sortTimes(a.Fetches), []time.Time{at(0), at(1), at(2), at(3), at(4), at(5)}},
		{"changes", sortTimes(a.Changes), []time.Time{at(4), at(5)}},
		{"first fetched", sortTimes(a.FirstFetched), []time.Time{at(0), at(2)}},
		{"first held", a.FirstHeld, []time.Time{at(1)}},
		{"held", a.Held, []HeldPage{{Rate: 0.5, Interval: 60}}},
		{"host fetches", a.HostFetches, map[string]int64{"a.test": 4, "b.test": 2}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}
