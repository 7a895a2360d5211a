package crawler

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
	"github.com/freshcrawl/freshcrawl/internal/extract"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// heldPages returns the URLs a store holds.
func heldPages(t *testing.T, st *store.Store) map[string]bool {
	t.Helper()
	held := map[string]bool{}
	if err := st.ForEachPage(func(p store.Page) error {
		if p.Held {
			held[p.URL] = true
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return held
}

// relay moves each crawler's outbox to the owners of its URLs, each URL
// once a pass with its count of links, as the cluster's exchange does over
// NATS, every period until ctx is done, and returns the links it moved.
func relay(t *testing.T, ctx context.Context, period time.Duration, part cluster.Partitioner, cs []*Crawler) int {
	moved := 0
	for {
		for _, c := range cs {
			var last uint64
			var byOwner = map[int]map[string]uint32{}
			rows := 0
			if err := c.Store().Outbox(1<<20, func(seq uint64, urls []string) error {
				last, rows = seq, rows+1
				for _, u := range urls {
					if byOwner[part.Of(u)] == nil {
						byOwner[part.Of(u)] = map[string]uint32{}
					}
					byOwner[part.Of(u)][u]++
				}
				return nil
			}); err != nil {
				t.Error(err)
				return moved
			}
			for p, links := range byOwner {
				var urls []string
				var counts []uint32
				for u, n := range links {
					urls, counts = append(urls, u), append(counts, n)
					moved += int(n)
				}
				if _, err := cs[p].Admit(urls, counts); err != nil {
					t.Error(err)
					return moved
				}
			}
			if rows > 0 {
				if err := c.Store().DropOutbox(last, 0, 0); err != nil {
					t.Error(err)
					return moved
				}
			}
		}
		select {
		case <-ctx.Done():
			return moved
		case <-time.After(period):
		}
	}
}

// TestPartitionsExchange: two crawls, each one partition of a site-hash
// split, both given every seed. In exchange mode each fetches only its own
// sites, sends the links it finds to the other's through its outbox
// (moved here by the test, as internal/cluster moves them over NATS), and
// together they hold what one crawl holds, none twice, politely. In
// firewall mode the links to the other partition are dropped.
func TestPartitionsExchange(t *testing.T) {
	for _, exchange := range []bool{true, false} {
		name := map[bool]string{true: "exchange", false: "firewall"}[exchange]
		t.Run(name, func(t *testing.T) {
			bubble(t, func(t *testing.T) { partitionCrawl(t, exchange) })
		})
	}
}

func partitionCrawl(t *testing.T, exchange bool) {
	sc := simweb.DefaultConfig()
	sc.Hosts, sc.PagesPerHost = 6, 30
	web, addr := testWeb(t, sc, 1)
	web.Audit().Reset(simweb.AuditConfig{MinDelay: 20 * time.Millisecond, MaxInFlight: 1})
	part := cluster.Partitioner{Scheme: cluster.BySite, N: 2}
	cs := make([]*Crawler, 2)
	for p := range cs {
		cfg := testConfig(t, t.TempDir(), addr)
		cfg.Delay = 25 * time.Millisecond
		if exchange {
			cfg.Outbox = func(string) bool { return true }
		}
		cfg.Owns = func(u string) bool { return part.Of(u) == p }
		if exchange || p == 0 {
			cfg.Seeds = seedsOf(web) // in firewall mode, partition 1 gets none
		}
		cs[p] = newCrawler(t, cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Go(func() {
			if err := c.Run(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	moved := relay(t, ctx, 100*time.Millisecond, part, cs)
	wg.Wait()
	union, counts := map[string]bool{}, make([]int, len(cs))
	for p, c := range cs {
		held := heldPages(t, c.Store())
		counts[p] = len(held)
		for u := range held {
			if part.Of(u) != p {
				t.Errorf("partition %d holds %s, of partition %d", p, u, part.Of(u))
			}
			union[u] = true
		}
	}
	if rep := web.Audit().Report(); rep.Violations() != 0 {
		t.Errorf("audit: %d violations: %+v", rep.Violations(), rep)
	}
	// Every link moved is counted where it went, for the ranking.
	inlinks := int64(0)
	for _, c := range cs {
		if err := c.Store().ForEachInlinks(func(_ store.Hash, n int64) error {
			inlinks += n
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if inlinks != int64(moved) {
		t.Errorf("%d links moved, %d counted by their receivers", moved, inlinks)
	}
	for _, c := range cs {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// One crawl of the same web, for the pages a single process holds.
	cfg := testConfig(t, t.TempDir(), addr)
	cfg.Delay, cfg.Seeds = 25*time.Millisecond, seedsOf(web)
	single := newCrawler(t, cfg)
	runFor(t, single, 10*time.Second)
	one := heldPages(t, single.Store())
	if err := single.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pages held by two partitions, %d by one process; %d links moved", len(union), len(one), moved)
	if exchange {
		if moved == 0 || len(union) < len(one) {
			t.Errorf("exchange: %d pages held, one process holds %d; %d links moved", len(union), len(one), moved)
		}
	} else if moved != 0 || counts[1] != 0 {
		t.Errorf("firewall: %d links moved, partition 1 (no seeds) holds %d pages", moved, counts[1])
	}
}

// TestReopenWaitsDelay: a crawl stopped and opened again at once (as a
// restart does, or a cluster node taking over the partition) waits out
// each host's delay from the last answer the first run had, robots.txt's
// request included: simweb's audit, over both runs, sees no gap shorter
// than the delay.
func TestReopenWaitsDelay(t *testing.T) {
	bubble(t, func(t *testing.T) {
		sc := simweb.DefaultConfig()
		sc.Hosts, sc.PagesPerHost = 3, 50
		web, addr := testWeb(t, sc, 1)
		web.Audit().Reset(simweb.AuditConfig{MinDelay: 2 * time.Second, MaxInFlight: 1})
		dir := t.TempDir()
		for run := range 2 {
			cfg := testConfig(t, dir, addr)
			cfg.Seeds, cfg.Delay = seedsOf(web), 2*time.Second
			c := newCrawler(t, cfg)
			runFor(t, c, 5*time.Second+time.Duration(run)*time.Second)
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
		}
		rep := web.Audit().Report()
		if rep.Violations() != 0 || rep.Requests < 12 {
			t.Errorf("audit over both runs: %d requests, %d violations: %+v", rep.Requests, rep.Violations(), rep)
		}
	})
}

// TestOutboxFilter: a partition's links to other partitions reach its
// outbox only if Config.Outbox accepts them (the cluster's replicated
// URLs do not). The same crawl twice, in the same virtual time: with a
// filter that takes everything, links to one foreign host are in the
// outbox; with one that refuses that host, none are, and those to the
// other foreign hosts still are.
func TestOutboxFilter(t *testing.T) {
	outboxHosts := func(refuse string) map[string]int {
		var hosts map[string]int
		bubble(t, func(t *testing.T) {
			sc := simweb.DefaultConfig()
			sc.Hosts, sc.PagesPerHost = 4, 40
			web, addr := testWeb(t, sc, 1)
			names := seedsOf(web)
			own := urlx.Host(names[0])
			cfg := testConfig(t, t.TempDir(), addr)
			cfg.Seeds, cfg.Delay = names, 10*time.Millisecond
			cfg.Owns = func(u string) bool { return urlx.Host(u) == own }
			cfg.Outbox = func(u string) bool { return urlx.Host(u) != refuse }
			c := newCrawler(t, cfg)
			runFor(t, c, 3*time.Second)
			hosts = map[string]int{}
			if err := c.Store().Outbox(1<<20, func(_ uint64, urls []string) error {
				for _, u := range urls {
					hosts[urlx.Host(u)]++
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
		})
		return hosts
	}
	all := outboxHosts("")
	var refused string
	for h, n := range all {
		if n > 0 && (refused == "" || h < refused) {
			refused = h
		}
	}
	if refused == "" || len(all) < 2 {
		t.Fatalf("outbox hosts %v: want links to at least two foreign hosts", all)
	}
	some := outboxHosts(refused)
	if some[refused] != 0 || len(some) != len(all)-1 {
		t.Errorf("refusing %s: outbox hosts %v, without the filter %v", refused, some, all)
	}
}

// TestOutboxSendsNewLinks: a partition sends another's URL once for each
// page that gains a link to it, not at every fetch of the page, so that
// the [URL, count] counts are links: of a page's links to another
// partition, only those it did not have before go to the outbox.
func TestOutboxSendsNewLinks(t *testing.T) {
	cfg := testConfig(t, t.TempDir(), endpoint{addr: "127.0.0.1:80"})
	cfg.Owns = func(u string) bool { return strings.HasPrefix(u, "http://a.test/") }
	cfg.Outbox = func(string) bool { return true }
	c := newCrawler(t, cfg)
	defer c.Close()
	page := "http://a.test/p"
	old, gained := "http://b.test/old", "http://b.test/new"
	txn := c.Store().Begin()
	if err := txn.SetLinks(page, []string{old, "http://a.test/q"}); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	before, err := c.Store().Links(page)
	if err != nil {
		t.Fatal(err)
	}
	pr := &pageResult{item: store.Item{URL: page, Kind: store.KindPage}, before: before,
		links: []extract.Link{{URL: old}, {URL: gained}, {URL: "http://a.test/q"}}}
	txn = c.Store().Begin()
	if _, err := c.enqueue(txn, c.admitLinks(pr, nil), map[string]int{}, ""); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	var sent []string
	if err := c.Store().Outbox(100, func(_ uint64, urls []string) error {
		sent = append(sent, urls...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sent, []string{gained}) {
		t.Errorf("outbox %v, want only the link the page gained, %s", sent, gained)
	}
}
