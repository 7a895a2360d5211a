package crawler

import (
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// TestCapacity crawls a web larger than the collection may hold: the
// crawler must stop taking new URLs at MaxPages, keep the rest queued, and
// spend its fetches on revisits of what it holds.
func TestCapacity(t *testing.T) {
	bubble(t, func(t *testing.T) {
		sc := simweb.DefaultConfig()
		sc.Hosts, sc.PagesPerHost = 24, 30
		sc.Robots = simweb.RobotsMix{}
		web, addr := testWeb(t, sc, 1)
		const capacity = 40
		cfg := testConfig(t, t.TempDir(), addr)
		cfg.Seeds = seedsOf(web)
		cfg.Delay = 5 * time.Millisecond
		cfg.MaxPages = capacity
		cfg.Revisit = 200 * time.Millisecond
		maxHeld := int64(0)
		var c *Crawler
		cfg.OnFetch = func(Event) { maxHeld = max(maxHeld, c.held.Load()) }
		c = newCrawler(t, cfg)
		runFor(t, c, 3*time.Second)
		st := c.Stats()
		// Count independently from the page rows.
		held, rows := 0, 0
		if err := c.store.ForEachPage(func(p store.Page) error {
			if p.Kind == store.KindPage {
				rows++
				if p.Held {
					held++
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("held %d (max seen %d), page rows %d, fetches %d, queued %d", held, maxHeld, rows, st.Pages, st.Queued)
		if held != capacity || st.Held != capacity {
			t.Errorf("held %d pages (stats %d), want the capacity %d", held, st.Held, capacity)
		}
		if maxHeld > capacity {
			t.Errorf("the collection reached %d pages, capacity %d", maxHeld, capacity)
		}
		// A page row is made by a fetch; new URLs stop once the collection is
		// full, but fetches already dispatched when it filled (one per host at
		// most) may add rows that are not held (redirects, 404s) or are.
		if rows > capacity+sc.Hosts {
			t.Errorf("%d page rows: new URLs kept being fetched past the capacity", rows)
		}
		if st.Queued == 0 {
			t.Error("no URL left queued: the web was not larger than the collection")
		}
		if st.Pages < int64(rows)+2*capacity {
			t.Errorf("%d fetches for %d pages: the held pages were not revisited", st.Pages, rows)
		}
	})
}
