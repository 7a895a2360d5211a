package crawler

import (
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// TestDueSitemapFirst checks that a due sitemap of a host whose sitemaps
// are trusted is read before its revisits due, even those due longer, but
// takes at most every other due turn, and that a sitemap whose row has
// moved since (its due time in memory is stale) is passed over for the due
// index's order and forgotten.
func TestDueSitemapFirst(t *testing.T) {
	c := newCrawler(t, testConfig(t, t.TempDir(), endpoint{addr: "127.0.0.1:1"}))
	defer c.Close()
	now := time.Unix(2e9, 0)
	const name = "h.test"
	page := store.Page{URL: "http://h.test/a", Kind: store.KindPage, Held: true, NextDue: now.Add(-10 * time.Second)}
	sm := store.Page{URL: "http://h.test/sitemap.xml", Kind: store.KindSitemap, NextDue: now.Add(-time.Second)}
	txn := c.store.Begin()
	for _, p := range []store.Page{page, sm} {
		if err := txn.PutPage(p, nil); err != nil {
			t.Fatal(err)
		}
		if err := txn.Schedule(name, p.URL, time.Time{}, p.NextDue); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	h := &host{}
	h.Name = name
	first := func() string {
		t.Helper()
		cands, err := c.dueCandidates(h, now)
		if err != nil || len(cands) != 1 {
			t.Fatalf("due candidates %v, %v; want one", cands, err)
		}
		return cands[0].item.URL
	}
	if got := first(); got != page.URL {
		t.Errorf("no sitemap known: %s first, want the page due longest", got)
	}
	h.NoteSitemap(sm.URL, sm.NextDue)
	if got := first(); got != page.URL {
		t.Errorf("sitemap due on trial: %s first, want the page due longest", got)
	}
	pool, err := (&change.Stats{}).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	txn = c.store.Begin()
	if err := txn.PutHostState(name, store.HostState{Sitemap: store.Agreement{Agree: 20}, Pool: pool}); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	h = &host{} // read afresh: its sitemaps now trusted
	h.Name = name
	h.NoteSitemap(sm.URL, sm.NextDue)
	if got := first(); got != sm.URL {
		t.Errorf("sitemap due: %s first, want the sitemap", got)
	}
	if got := first(); got != page.URL {
		t.Errorf("sitemap due again at once: %s, want the page (every other turn)", got)
	}
	if got := first(); got != sm.URL {
		t.Errorf("sitemap due, a revisit since: %s first, want the sitemap", got)
	}
	stale := now.Add(-2 * time.Second)
	h.NoteSitemap(sm.URL, stale) // not what its row says
	first()                      // a turn for the revisit
	if got := first(); got != page.URL {
		t.Errorf("stale sitemap due time: %s first, want the page", got)
	}
	// Were the stale time kept, a row now due at it would be taken.
	moved := sm
	moved.NextDue = stale
	txn = c.store.Begin()
	if err := txn.PutPage(moved, nil); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	if p, ok, err := c.refresh.DueSitemap(&h.Host, now); err != nil || ok {
		t.Errorf("stale sitemap due time kept: %s, %v", p.URL, err)
	}
	h.NoteSitemap(sm.URL, sm.NextDue)
	h.NoteSitemap(sm.URL, time.Time{})
	if got := first(); got != page.URL {
		t.Errorf("sitemap no longer due: %s first, want the page", got)
	}
}
