package datadir

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// TestReadClusterStatus writes two partitions' stores by hand: pages of
// their own, one page held by both (which one of them does not own), a
// sitemap row, outbox rows and exchange counters; the status must count
// the rows, the distinct pages, the stray rows and the counters exactly.
func TestReadClusterStatus(t *testing.T) {
	dir := t.TempDir()
	part := cluster.Partitioner{Scheme: cluster.BySite, N: 2}
	// Sites of each partition.
	site := [2][]string{}
	for i := 0; len(site[0]) < 3 || len(site[1]) < 3; i++ {
		u := fmt.Sprintf("http://s%d.test/", i)
		site[part.Of(u)] = append(site[part.Of(u)], u)
	}
	shared := site[0][0] + "shared" // owned by partition 0, fetched by 1 too
	for p := range 2 {
		s, err := store.Open(filepath.Join(dir, fmt.Sprintf("p%03d", p), "state"), store.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		tx := s.Begin()
		for _, u := range site[p][:3] {
			if err := tx.PutPage(store.Page{URL: u + "a", Status: 200, Held: true, Fetches: 1}, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.PutPage(store.Page{URL: shared, Status: 200, Held: true, Fetches: 1}, nil); err != nil {
			t.Fatal(err)
		}
		if err := tx.PutPage(store.Page{URL: site[p][0] + "sitemap.xml", Kind: store.KindSitemap, Status: 200, Fetches: 1}, nil); err != nil {
			t.Fatal(err)
		}
		// Links: page a of the first site to itself and two more; its
		// self-link never crosses partitions, under any hash.
		a := site[p][0] + "a"
		if err := tx.SetLinks(a, []string{a, site[p][1] + "a", site[1-p][0] + "a"}); err != nil {
			t.Fatal(err)
		}
		if err := tx.SetLinks(site[p][1]+"a", []string{site[p][1] + "a"}); err != nil {
			t.Fatal(err)
		}
		if err := tx.AddOutbox([]string{site[1-p][1] + "x", site[1-p][2] + "y"}); err != nil {
			t.Fatal(err)
		}
		tx.Add(store.CounterSent, 10+int64(p))
		tx.Add(store.CounterLinks, 20)
		tx.Add(store.CounterReceived, 7)
		tx.Add(store.CounterAdmitted, 5)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	cs, err := ReadClusterStatus(dir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if cs.Rows != 8 || cs.Distinct != 7 || cs.Strays != 1 {
		t.Errorf("rows %d, distinct %d, strays %d; want 8, 7, 1", cs.Rows, cs.Distinct, cs.Strays)
	}
	if cs.Links != 8 || cs.URLHashCross > 4 {
		t.Errorf("links %d, crossing under URL hash %d; want 8 and at most the 4 that are not self-links", cs.Links, cs.URLHashCross)
	}
	if got, want := cs.Overlap(), 1.0/7; got != want {
		t.Errorf("overlap %g, want 1/7", got)
	}
	tot := cs.Total
	if tot.Outbox != 2 || tot.Sent != 21 || tot.Links != 40 || tot.Received != 14 || tot.Admitted != 10 {
		t.Errorf("totals %+v", tot)
	}
	if len(cs.Partitions) != 2 || cs.Partitions[1].Name != "p001" || cs.Partitions[1].Sent != 11 {
		t.Errorf("partitions %+v", cs.Partitions)
	}
	var b strings.Builder
	cs.WriteText(&b)
	if !strings.Contains(b.String(), "overlap 0.1429, 1 rows of another partition's pages") {
		t.Errorf("text:\n%s", b.String())
	}
	if Partitions(filepath.Join(dir, "p000")) != nil {
		t.Error("a partition's own directory taken for a cluster's")
	}
	if _, err := ReadClusterStatus(t.TempDir(), time.Now()); !errors.Is(err, ErrNoCrawl) {
		t.Errorf("an empty directory: %v", err)
	}
}
