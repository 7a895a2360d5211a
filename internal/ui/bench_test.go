package ui

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// BenchmarkScrape measures one scrape of /metrics of a crawl holding
// 10^3 and 10^6 pages on 1,000 hosts, each due for a revisit (acceptance
// 1 of issue 16: at most 5 ms at 10^6 pages). Every figure is read from
// counters the crawl keeps, so the two should cost about the same; what
// grows is the pass over the hosts. Building the 10^6-page state takes
// some seconds before the timing starts.
//
//	go test ./internal/ui -run '^$' -bench Scrape -benchtime 200x
func BenchmarkScrape(b *testing.B) {
	for _, pages := range []int{1_000, 1_000_000} {
		b.Run(fmt.Sprintf("pages=%d", pages), func(b *testing.B) {
			dir := b.TempDir()
			heldState(b, dir, pages, 1000)
			c, err := crawler.New(crawler.Config{DataDir: dir, Budget: 100, NoSync: true,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			if h := c.Stats().Held; h != int64(pages) {
				b.Fatalf("the crawl holds %d pages, want %d", h, pages)
			}
			h := New(Config{Crawl: c, Dir: dir, Policy: "optimal"}).Handler()
			req := httptest.NewRequest("GET", "/metrics", nil)
			b.ResetTimer()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatal(rec.Code)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/scrape")
		})
	}
}

// heldState writes the state of a crawl holding pages pages on hosts
// hosts, each with an estimated rate (log-uniform over five decades) and
// an interval, and due for a revisit.
func heldState(b *testing.B, dir string, pages, hosts int) {
	s, err := store.Open(filepath.Join(dir, "state"), store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	const batch = 20_000
	for lo := 0; lo < pages; lo += batch {
		txn := s.Begin()
		for i := lo; i < min(lo+batch, pages); i++ {
			host := fmt.Sprintf("h%d.test", i%hosts)
			u := fmt.Sprintf("http://%s/p%d", host, i)
			due := now.Add(time.Duration(i%86400) * time.Second)
			p := store.Page{URL: u, Kind: store.KindPage, Held: true, Status: 200, LastFetch: now, FirstSeen: now,
				Rate: math.Pow(10, -7+5*float64(i%997)/997), Interval: 86400, NextDue: due, Fetches: 1}
			if err := txn.PutPage(p, nil); err != nil {
				b.Fatal(err)
			}
			if err := txn.Schedule(host, u, time.Time{}, due); err != nil {
				b.Fatal(err)
			}
		}
		txn.AddHeld(int64(min(lo+batch, pages) - lo))
		if err := txn.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}
