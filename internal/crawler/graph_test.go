package crawler

import (
	"slices"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/datadir"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

// TestLinkGraphRecorded crawls a static simweb, revisiting every page
// each second, and checks the link graph the crawl recorded against
// simweb's own: every page fetched with content has exactly the out-links
// its slot carries, after revisits that found the same content too, and
// the graph's nodes are named by their URLs.
func TestLinkGraphRecorded(t *testing.T) {
	bubble(t, func(t *testing.T) {
		sc := simweb.DefaultConfig()
		sc.Hosts, sc.PagesPerHost = 4, 40
		sc.Churn = 0
		sc.Robots.NotFound, sc.Robots.ServerError, sc.Robots.CrawlDelay = 0, 0, 0
		web, addr := testWeb(t, sc, 1)
		dir := t.TempDir()
		cfg := testConfig(t, dir, addr)
		cfg.Seeds = seedsOf(web)
		cfg.Delay = -1
		cfg.Revisit = time.Second
		c := newCrawler(t, cfg)
		runFor(t, c, 6*time.Second)
		st := c.Stats()
		c.Close()
		if st.Pages < 2*st.Held {
			t.Fatalf("%d fetches for %d pages held: too few revisits to test", st.Pages, st.Held)
		}

		slotOf := map[string]int{}
		web.Snapshot(web.Clock().Now(), func(u string, v simweb.Version) { slotOf[u] = len(slotOf) })
		want := map[int][]int{}
		web.LinkGraph(func(from, to int) { want[from] = append(want[from], to) })

		g, err := datadir.ReadLinkGraph(dir)
		if err != nil {
			t.Fatal(err)
		}
		out := map[uint32][]int{}
		for i := int64(0); i < g.Edges(); i++ {
			u, v := g.Edge(i)
			if g.URLs[v] == "" {
				t.Fatalf("node %d, linked from %s, has no URL", v, g.URLs[u])
			}
			to, ok := slotOf[g.URLs[v]]
			if !ok {
				continue // a robots.txt-disallowed or fault page is no slot
			}
			out[u] = append(out[u], to)
		}
		checked := 0
		for u, got := range out {
			from, ok := slotOf[g.URLs[u]]
			if !ok {
				continue
			}
			exp := slices.Clone(want[from])
			slices.Sort(exp)
			exp = slices.Compact(exp)
			slices.Sort(got)
			if !slices.Equal(got, exp) {
				t.Errorf("%s: recorded links to slots %v, simweb has %v", g.URLs[u], got, exp)
			}
			checked++
		}
		if checked < 100 || g.Fetched < checked {
			t.Errorf("only %d pages' links checked (%d recorded)", checked, g.Fetched)
		}
		t.Logf("%d pages' links checked, %d nodes, %d edges", checked, g.Nodes(), g.Edges())
	})
}
