package store

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// openTest opens a store in dir; fsync is off because unit tests check
// logic, and a killed process (the crash test) loses nothing either way.
func openTest(t testing.TB, dir string) *Store {
	t.Helper()
	s, err := Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func closeTest(t testing.TB, s *Store) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// mustEnqueue queues urls on host in one transaction and fails unless every
// one of them was new.
func mustEnqueue(t testing.TB, s *Store, host string, urls ...string) {
	t.Helper()
	tx := s.Begin()
	q, d, err := tx.Enqueue(host, urlItems(urls...), 0)
	if err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	if q != len(urls) || d != 0 {
		t.Fatalf("Enqueue(%s, %q) = %d queued, %d dropped; want all queued", host, urls, q, d)
	}
}

// take removes up to n items from the head of host's queue as the crawler
// does, Peek and then Txn.Done in one transaction, and returns their URLs.
func take(t testing.TB, s *Store, host string, n int) []string {
	t.Helper()
	items, err := s.Peek(host, 0, n)
	if err != nil {
		t.Fatal(err)
	}
	tx := s.Begin()
	var urls []string
	for _, it := range items {
		if err := tx.Done(host, it.Seq); err != nil {
			t.Fatal(err)
		}
		urls = append(urls, it.URL)
	}
	mustCommit(t, tx)
	return urls
}

func mustTake(t testing.TB, s *Store, host string, n int, want ...string) {
	t.Helper()
	if got := take(t, s, host, n); !slices.Equal(got, want) {
		t.Errorf("take(%s, %d) = %q, want %q", host, n, got, want)
	}
}

// markSeen puts urls in the seen set and in no queue, where the URLs of
// pages fetched earlier are: queued on a host of their own in one
// transaction and taken off in the next.
func markSeen(t testing.TB, s *Store, urls ...string) {
	t.Helper()
	const host = "fetched.example"
	if len(urls) == 0 {
		return
	}
	tx := s.Begin()
	if _, _, err := tx.Enqueue(host, urlItems(urls...), 0); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	take(t, s, host, len(urls))
	if n := hostsOf(t, s)[host]; n != 0 {
		t.Fatalf("markSeen left %d items queued", n)
	}
}

func mustPutPage(t testing.TB, s *Store, p Page, v Visit) {
	t.Helper()
	tx := s.Begin()
	if err := tx.PutPage(p, &v); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
}

// TestEnqueueSeen follows the seen set through transactions of one Enqueue
// each on one host: the first occurrence of a URL, within a call or in the
// store's life, is queued, later ones are not, and SeenCount and Seen
// agree. Each item's kind is its index in its batch, so the queue shows
// which occurrence was taken.
func TestEnqueueSeen(t *testing.T) {
	tests := []struct {
		name    string
		preSeen []string // marked seen, in no queue, before the first batch
		batches [][]string
		fresh   [][]bool
		count   uint64
	}{
		{"empty", nil, [][]string{{}}, [][]bool{{}}, 0},
		{"distinct", nil, [][]string{{"a", "b", "c"}}, [][]bool{{true, true, true}}, 3},
		{"duplicates in batch", nil, [][]string{{"a", "b", "a", "a", "b"}},
			[][]bool{{true, true, false, false, false}}, 2},
		{"across batches", nil, [][]string{{"a", "b"}, {"b", "c", "c", "a", "d"}, {"d"}},
			[][]bool{{true, true}, {false, true, false, false, true}, {false}}, 4},
		{"empty string is a key", nil, [][]string{{"", ""}}, [][]bool{{true, false}}, 1},
		{"seen before but queued nowhere", []string{"b"}, [][]string{{"a", "b", "c", "a"}, {"c", "d"}, {"a"}},
			[][]bool{{true, false, true, false}, {false, true}, {false}}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t, t.TempDir())
			defer closeTest(t, s)
			markSeen(t, s, tt.preSeen...)
			var want []QueuedItem // the queue's whole content
			for i, batch := range tt.batches {
				items := make([]Item, len(batch))
				n := 0
				for j, u := range batch {
					items[j] = Item{URL: u, Kind: uint8(j)}
					if tt.fresh[i][j] {
						want = append(want, QueuedItem{items[j], uint64(len(want))})
						n++
					}
				}
				tx := s.Begin()
				q, d, err := tx.Enqueue("h", items, 0)
				if err != nil {
					t.Fatal(err)
				}
				mustCommit(t, tx)
				if q != n || d != 0 {
					t.Errorf("batch %d: Enqueue = %d queued, %d dropped; want %d, 0", i, q, d, n)
				}
				if got := peekAll(t, s, "h"); !reflect.DeepEqual(got, want) {
					t.Errorf("batch %d (fresh %v): queue = %v, want %v", i, tt.fresh[i], got, want)
				}
			}
			if got := s.SeenCount(); got != tt.count {
				t.Errorf("SeenCount = %d, want %d", got, tt.count)
			}
			for _, u := range append(slices.Concat(tt.batches...), tt.preSeen...) {
				if ok, err := s.Seen(u); err != nil || !ok {
					t.Errorf("Seen(%q) = %v, %v; want true", u, ok, err)
				}
			}
			if ok, err := s.Seen("never"); err != nil || ok {
				t.Errorf("Seen(never) = %v, %v; want false", ok, err)
			}
		})
	}
}

// TestFrontierModel drives random transactions that queue new URLs on a
// few hosts or take items off their heads, and checks every result against
// a plain in-memory FIFO per host.
func TestFrontierModel(t *testing.T) {
	s := openTest(t, t.TempDir())
	defer closeTest(t, s)
	rng := rand.New(rand.NewPCG(1, 2))
	hosts := []string{"a.example", "b.example", "a.example.com", "x"}
	model := map[string][]string{}
	next := 0
	for op := 0; op < 2000; op++ {
		h := hosts[rng.IntN(len(hosts))]
		if rng.IntN(2) == 0 {
			var urls []string
			for range rng.IntN(20) {
				urls = append(urls, fmt.Sprintf("https://%s/%d", h, next))
				next++
			}
			mustEnqueue(t, s, h, urls...)
			model[h] = append(model[h], urls...)
		} else {
			n := rng.IntN(25)
			got := take(t, s, h, n)
			want := model[h][:min(n, len(model[h]))]
			model[h] = model[h][len(want):]
			if !slices.Equal(got, want) {
				t.Fatalf("op %d: take(%s, %d) = %v, want %v", op, h, n, got, want)
			}
		}
		if n, err := s.Len(h); err != nil || n != len(model[h]) {
			t.Fatalf("op %d: Len(%s) = %d, %v; want %d", op, h, n, err, len(model[h]))
		}
	}
	checkHosts(t, s, model)
}

func checkHosts(t *testing.T, s *Store, model map[string][]string) {
	t.Helper()
	want := map[string]int{}
	for h, q := range model {
		if len(q) > 0 {
			want[h] = len(q)
		}
	}
	if got := hostsOf(t, s); !reflect.DeepEqual(got, want) {
		t.Errorf("Hosts = %v, want %v", got, want)
	}
}

// TestFrontierEdges empties and refills a queue and stops Hosts early;
// TestTxnInvalidHost covers invalid host names.
func TestFrontierEdges(t *testing.T) {
	s := openTest(t, t.TempDir())
	defer closeTest(t, s)
	mustTake(t, s, "empty", 5)
	// Emptying a queue and refilling it must not resurrect or hide items.
	mustEnqueue(t, s, "h", "1", "2")
	mustTake(t, s, "h", 5, "1", "2")
	mustEnqueue(t, s, "h", "3")
	mustTake(t, s, "h", 0)
	mustTake(t, s, "h", 5, "3")
	stop := errors.New("stop")
	mustEnqueue(t, s, "h1", "x")
	mustEnqueue(t, s, "h2", "y")
	calls := 0
	if err := s.Hosts(func(string, int) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("Hosts with stopping fn: err = %v after %d calls, want stop after 1", err, calls)
	}
}

func TestPages(t *testing.T) {
	s := openTest(t, t.TempDir())
	defer closeTest(t, s)
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	// Visits are written out of time order, one time twice; Visits must
	// return them sorted, the later write of a time in place of the earlier.
	offsets := []time.Duration{5 * time.Hour, -time.Hour, 0, 2 * time.Nanosecond, 1, 0}
	byTime := map[time.Time]Visit{}
	for i, d := range offsets {
		v := Visit{Time: t0.Add(d), Status: 200 + i, Changed: i%2 == 0, ETag: fmt.Sprint(i)}
		p := Page{URL: "https://a/", LastFetch: v.Time, Fetches: uint32(i + 1), Status: v.Status}
		mustPutPage(t, s, p, v)
		byTime[v.Time] = v
	}
	want := slices.SortedFunc(maps.Values(byTime), func(a, b Visit) int { return a.Time.Compare(b.Time) })
	got, err := s.Visits("https://a/")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Visits =\n%v\nwant\n%v", got, want)
	}
	p, err := s.GetPage("https://a/")
	if err != nil || p.Fetches != uint32(len(offsets)) {
		t.Errorf("GetPage = %+v, %v; want the last write", p, err)
	}
	if _, err := s.GetPage("https://b/"); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetPage(absent): err = %v, want ErrNotFound", err)
	}
	if v, err := s.Visits("https://b/"); err != nil || len(v) != 0 {
		t.Errorf("Visits(absent) = %v, %v", v, err)
	}
	// A URL that is a prefix of another must not see its visits.
	mustPutPage(t, s, Page{URL: "https://a"}, Visit{Time: t0})
	if v, _ := s.Visits("https://a"); len(v) != 1 {
		t.Errorf("Visits(https://a) has %d visits, want 1", len(v))
	}
	seen := map[string]bool{}
	if err := s.ForEachPage(func(p Page) error { seen[p.URL] = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(seen, map[string]bool{"https://a/": true, "https://a": true}) {
		t.Errorf("ForEachPage saw %v", seen)
	}
	stop := errors.New("stop")
	if err := s.ForEachPage(func(Page) error { return stop }); err != stop {
		t.Errorf("ForEachPage with stopping fn: err = %v, want stop", err)
	}
}

// TestPersistence writes every kind of record with the default (synced)
// options, reopens the directory, reads them all back and carries on.
func TestPersistence(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	markSeen(t, s, "u1", "u2", "u3", "u1")
	mustEnqueue(t, s, "h", "1", "2", "3", "4")
	mustTake(t, s, "h", 1, "1") // moves the head, so the reopened queue starts mid-sequence
	mustEnqueue(t, s, "g", "x")
	page := Page{URL: "u1", FirstSeen: time.Unix(100, 0).UTC(), Status: 200, Checksum: 42, WARCFile: "w", WARCOffset: 7}
	visits := []Visit{{Time: time.Unix(100, 0).UTC(), Status: 200}, {Time: time.Unix(200, 0).UTC(), Status: 304}}
	for _, v := range visits {
		mustPutPage(t, s, page, v)
	}
	closeTest(t, s)

	s = openTest(t, dir)
	defer closeTest(t, s)
	if n := s.SeenCount(); n != 8 {
		t.Errorf("SeenCount after reopen = %d, want 8", n)
	}
	checkHosts(t, s, map[string][]string{"h": {"2", "3", "4"}, "g": {"x"}})
	tx := s.Begin()
	if q, d, err := tx.Enqueue("s", urlItems("u2", "u4"), 0); err != nil || q != 1 || d != 0 {
		t.Errorf("Enqueue(u2, u4) after reopen = %d queued, %d dropped, %v; want 1, 0", q, d, err)
	}
	mustCommit(t, tx)
	if got, want := peekAll(t, s, "s"), queued(0, urlItems("u4")...); !reflect.DeepEqual(got, want) {
		t.Errorf("queue s = %v, want %v", got, want)
	}
	mustEnqueue(t, s, "h", "5")
	mustTake(t, s, "h", 10, "2", "3", "4", "5")
	if got, err := s.GetPage("u1"); err != nil || !reflect.DeepEqual(got, page) {
		t.Errorf("GetPage after reopen = %+v, %v; want %+v", got, err, page)
	}
	if got, err := s.Visits("u1"); err != nil || !reflect.DeepEqual(got, visits) {
		t.Errorf("Visits after reopen = %v, %v; want %v", got, err, visits)
	}
}

func TestHeldAndScope(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir)
	if n, err := s.Held(); n != 0 || err != nil {
		t.Errorf("Held of a new store: %d, %v", n, err)
	}
	if h, st, err := s.Scope(); len(h) != 0 || len(st) != 0 || h == nil || st == nil || err != nil {
		t.Errorf("Scope of a new store: %q, %q, %v; want empty, not nil", h, st, err)
	}
	tx := s.Begin()
	tx.AddHeld(3)
	tx.AddHeld(-1)
	for _, hs := range [][2]string{{"www.a.test", "a.test"}, {"b.a.test", "a.test"}, {"c.test:8080", "c.test"}} {
		if err := tx.AddScope(hs[0], hs[1]); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, tx)
	closeTest(t, s)
	s = openTest(t, dir)
	defer closeTest(t, s)
	if n, err := s.Held(); n != 2 || err != nil {
		t.Errorf("Held: %d, %v; want 2", n, err)
	}
	hosts, sites, err := s.Scope()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"b.a.test", "c.test:8080", "www.a.test"}; !slices.Equal(hosts, want) {
		t.Errorf("scope hosts %q, want %q", hosts, want)
	}
	if want := []string{"a.test", "c.test"}; !slices.Equal(sites, want) {
		t.Errorf("scope sites %q, want %q", sites, want)
	}
}
