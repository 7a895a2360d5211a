package store

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// batchURLs fills urls with distinct URLs numbered from first, spread over
// 1,000 hosts like links found by a crawl, and hosts, if not nil, with
// their hosts.
func batchURLs(urls, hosts []string, first int) {
	for i := range urls {
		k := first + i
		host := fmt.Sprintf("host%d.example.com", k%1000)
		urls[i] = fmt.Sprintf("https://%s/section/%d/page-%d.html", host, k/1000, k)
		if hosts != nil {
			hosts[i] = host
		}
	}
}

// discover marks urls seen and queues the new ones on their hosts in one
// transaction, as the crawler records the links of a commit, and returns
// how many were new. A batch of batchURLs has one URL per host, so this
// is one Enqueue per host, as the crawler makes.
func discover(s *Store, urls, hosts []string) (int, error) {
	tx := s.Begin()
	n := 0
	for i, u := range urls {
		q, _, err := tx.Enqueue(hosts[i], []Item{{URL: u}}, 0)
		if err != nil {
			tx.Abort()
			return n, err
		}
		n += q
	}
	return n, tx.Commit()
}

// BenchmarkDiscover commits transactions of 1,000 new URLs on 1,000 hosts;
// one op is one transaction.
func BenchmarkDiscover(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts Options
	}{{"sync", Options{}}, {"nosync", Options{NoSync: true}}} {
		b.Run(tc.name, func(b *testing.B) {
			s, err := Open(b.TempDir(), tc.opts)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			urls, hosts := make([]string, 1000), make([]string, 1000)
			n := 0
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				batchURLs(urls, hosts, n)
				n += len(urls)
				b.StartTimer()
				if _, err := discover(s, urls, hosts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "inserts/s")
		})
	}
}

// TestBigSeen measures the seen set at scale: FRESHCRAWL_BIG=1 discovers
// FRESHCRAWL_BIG_N URLs (default 10^7) in synced transactions of 1,000 new
// URLs on 1,000 hosts, each marked seen and queued, then prints inserts/s,
// lookups/s of present URLs and the peak RSS of the test process. It is a
// measurement, not a unit test, and is skipped by default.
func TestBigSeen(t *testing.T) {
	if os.Getenv("FRESHCRAWL_BIG") != "1" {
		t.Skip("set FRESHCRAWL_BIG=1 to run the 10^7-URL measurement")
	}
	total := 10_000_000
	if v := os.Getenv("FRESHCRAWL_BIG_N"); v != "" {
		var err error
		if total, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeTest(t, s)
	urls, hosts := make([]string, 1000), make([]string, 1000)
	start := time.Now()
	var gen time.Duration
	for n := 0; n < total; n += len(urls) {
		g := time.Now()
		batchURLs(urls, hosts, n)
		gen += time.Since(g)
		fresh, err := discover(s, urls, hosts)
		if err != nil {
			t.Fatal(err)
		}
		if fresh != len(urls) {
			t.Fatalf("batch at %d: %d of %d new URLs queued", n, fresh, len(urls))
		}
		if (n/len(urls))%1000 == 999 {
			t.Logf("%d URLs, %.0f inserts/s so far, VmHWM %s", n+len(urls),
				float64(n+len(urls))/(time.Since(start)-gen).Seconds(), procStatus("VmHWM"))
		}
	}
	elapsed := time.Since(start) - gen
	if got := s.SeenCount(); got != uint64(total) {
		t.Errorf("SeenCount = %d, want %d", got, total)
	}
	// Lookups of present URLs at random-ish positions.
	const lookups = 200_000
	one := make([]string, 1)
	ls := time.Now()
	for i := range lookups {
		batchURLs(one, nil, (i*7919)%total)
		if ok, err := s.Seen(one[0]); err != nil || !ok {
			t.Fatalf("Seen(%s) = %v, %v", one[0], ok, err)
		}
	}
	lookupRate := lookups / time.Since(ls).Seconds()
	fmt.Printf("store-seen: %d URLs in %.1f s: %.0f inserts/s (synced transactions of 1000, seen and queued), %.0f lookups/s, VmHWM %s, dir %s\n",
		total, elapsed.Seconds(), float64(total)/elapsed.Seconds(), lookupRate, procStatus("VmHWM"), dirSize(t, dir))
}

// procStatus returns a field of /proc/self/status, such as "VmHWM".
func procStatus(field string) string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func dirSize(t *testing.T, dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
	}
	return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
}

// BenchmarkHashURL hashes a URL of a typical length, as Enqueue and
// SetLinks do for every link of a page: no allocation.
func BenchmarkHashURL(b *testing.B) {
	u := "http://127.0.0.1:18180/std/collections/hash_map/struct.HashMap.html"
	b.ReportAllocs()
	for b.Loop() {
		_ = hashURL(u)
	}
}
