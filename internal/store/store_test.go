package store

import (
	"errors"
	"fmt"
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

func TestAddNew(t *testing.T) {
	tests := []struct {
		name    string
		batches [][]string
		fresh   [][]bool
		count   uint64
	}{
		{"empty", [][]string{{}}, [][]bool{{}}, 0},
		{"distinct", [][]string{{"a", "b", "c"}}, [][]bool{{true, true, true}}, 3},
		{"duplicates in batch", [][]string{{"a", "b", "a", "a", "b"}},
			[][]bool{{true, true, false, false, false}}, 2},
		{"across batches", [][]string{{"a", "b"}, {"b", "c", "c", "a", "d"}, {"d"}},
			[][]bool{{true, true}, {false, true, false, false, true}, {false}}, 4},
		{"empty string is a key", [][]string{{"", ""}}, [][]bool{{true, false}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t, t.TempDir())
			defer closeTest(t, s)
			for i, batch := range tt.batches {
				got, err := s.AddNew(batch)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, tt.fresh[i]) {
					t.Errorf("batch %d: fresh = %v, want %v", i, got, tt.fresh[i])
				}
			}
			if got := s.SeenCount(); got != tt.count {
				t.Errorf("SeenCount = %d, want %d", got, tt.count)
			}
			for _, batch := range tt.batches {
				for _, u := range batch {
					if ok, err := s.Seen(u); err != nil || !ok {
						t.Errorf("Seen(%q) = %v, %v; want true", u, ok, err)
					}
				}
			}
			if ok, err := s.Seen("never"); err != nil || ok {
				t.Errorf("Seen(never) = %v, %v; want false", ok, err)
			}
		})
	}
}

// TestFrontierModel drives random pushes and pops on a few hosts and checks
// every result against a plain in-memory FIFO per host.
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
			if err := s.Push(h, urls); err != nil {
				t.Fatal(err)
			}
			model[h] = append(model[h], urls...)
		} else {
			n := rng.IntN(25)
			got, err := s.Pop(h, n)
			if err != nil {
				t.Fatal(err)
			}
			want := model[h][:min(n, len(model[h]))]
			model[h] = model[h][len(want):]
			if len(got) != len(want) || (len(want) > 0 && !slices.Equal(got, want)) {
				t.Fatalf("op %d: Pop(%s, %d) = %v, want %v", op, h, n, got, want)
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
	got := map[string]int{}
	if err := s.Hosts(func(h string, n int) error { got[h] = n; return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Hosts = %v, want %v", got, want)
	}
}

func TestFrontierEdges(t *testing.T) {
	s := openTest(t, t.TempDir())
	defer closeTest(t, s)
	for _, h := range []string{"", "a\x00b"} {
		if err := s.Push(h, []string{"u"}); !errors.Is(err, ErrInvalidHost) {
			t.Errorf("Push(%q): err = %v, want ErrInvalidHost", h, err)
		}
		if _, err := s.Pop(h, 1); !errors.Is(err, ErrInvalidHost) {
			t.Errorf("Pop(%q): err = %v, want ErrInvalidHost", h, err)
		}
	}
	if got, err := s.Pop("empty", 5); err != nil || len(got) != 0 {
		t.Errorf("Pop(empty) = %v, %v", got, err)
	}
	// Emptying a queue and refilling it must not resurrect or hide items.
	mustPush(t, s, "h", "1", "2")
	mustPop(t, s, "h", 5, "1", "2")
	mustPush(t, s, "h", "3")
	mustPop(t, s, "h", 0)
	mustPop(t, s, "h", 5, "3")
	stop := errors.New("stop")
	mustPush(t, s, "h1", "x")
	mustPush(t, s, "h2", "y")
	calls := 0
	if err := s.Hosts(func(string, int) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("Hosts with stopping fn: err = %v after %d calls, want stop after 1", err, calls)
	}
}

func mustPush(t *testing.T, s *Store, host string, urls ...string) {
	t.Helper()
	if err := s.Push(host, urls); err != nil {
		t.Fatal(err)
	}
}

func mustPop(t *testing.T, s *Store, host string, n int, want ...string) {
	t.Helper()
	got, err := s.Pop(host, n)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Pop(%s, %d) = %q, want %q", host, n, got, want)
	}
}

func TestPages(t *testing.T) {
	s := openTest(t, t.TempDir())
	defer closeTest(t, s)
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	// Visits are written out of time order; Visits must return them sorted.
	offsets := []time.Duration{5 * time.Hour, -time.Hour, 0, 2 * time.Nanosecond, 1}
	var want []Visit
	for i, d := range offsets {
		v := Visit{Time: t0.Add(d), Status: 200 + i, Changed: i%2 == 0, ETag: fmt.Sprint(i)}
		p := Page{URL: "https://a/", LastFetch: v.Time, Fetches: uint32(i + 1), Status: v.Status}
		if err := s.PutPage(p, v); err != nil {
			t.Fatal(err)
		}
		want = append(want, v)
	}
	slices.SortFunc(want, func(a, b Visit) int { return a.Time.Compare(b.Time) })
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
	if err := s.PutPage(Page{URL: "https://a"}, Visit{Time: t0}); err != nil {
		t.Fatal(err)
	}
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
// options, reopens the directory and reads them all back.
func TestPersistence(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddNew([]string{"u1", "u2", "u3", "u1"}); err != nil {
		t.Fatal(err)
	}
	mustPush(t, s, "h", "1", "2", "3", "4")
	mustPop(t, s, "h", 1, "1") // moves the head, so the reopened queue starts mid-sequence
	mustPush(t, s, "g", "x")
	page := Page{URL: "u1", FirstSeen: time.Unix(100, 0).UTC(), Status: 200, Checksum: 42, WARCFile: "w", WARCOffset: 7}
	visits := []Visit{{Time: time.Unix(100, 0).UTC(), Status: 200}, {Time: time.Unix(200, 0).UTC(), Status: 304}}
	for _, v := range visits {
		if err := s.PutPage(page, v); err != nil {
			t.Fatal(err)
		}
	}
	closeTest(t, s)

	s = openTest(t, dir)
	defer closeTest(t, s)
	if n := s.SeenCount(); n != 3 {
		t.Errorf("SeenCount after reopen = %d, want 3", n)
	}
	if fresh, err := s.AddNew([]string{"u2", "u4"}); err != nil || !slices.Equal(fresh, []bool{false, true}) {
		t.Errorf("AddNew after reopen = %v, %v; want [false true]", fresh, err)
	}
	checkHosts(t, s, map[string][]string{"h": {"2", "3", "4"}, "g": {"x"}})
	mustPush(t, s, "h", "5")
	mustPop(t, s, "h", 10, "2", "3", "4", "5")
	if got, err := s.GetPage("u1"); err != nil || got != page {
		t.Errorf("GetPage after reopen = %+v, %v; want %+v", got, err, page)
	}
	if got, err := s.Visits("u1"); err != nil || !reflect.DeepEqual(got, visits) {
		t.Errorf("Visits after reopen = %v, %v; want %v", got, err, visits)
	}
}

func TestDiscover(t *testing.T) {
	s := openTest(t, t.TempDir())
	defer closeTest(t, s)
	if _, err := s.AddNew([]string{"b"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		urls   []string
		fresh  []bool
		queued []string // the queue's whole content afterwards
	}{
		{[]string{"a", "b", "c", "a"}, []bool{true, false, true, false}, []string{"a", "c"}},
		{[]string{"c", "d"}, []bool{false, true}, []string{"a", "c", "d"}},
		{[]string{"a"}, []bool{false}, []string{"a", "c", "d"}},
	}
	for i, tt := range tests {
		fresh, err := s.Discover("h", tt.urls)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(fresh, tt.fresh) {
			t.Errorf("step %d: fresh = %v, want %v", i, fresh, tt.fresh)
		}
		var got []string
		if err := s.scan(queuePrefix("h"), func(_, v []byte) error {
			it, err := decodeItem(v)
			got = append(got, it.URL)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tt.queued) {
			t.Errorf("step %d: queue = %v, want %v", i, got, tt.queued)
		}
	}
	if n := s.SeenCount(); n != 4 {
		t.Errorf("SeenCount = %d, want 4", n)
	}
	if _, err := s.Discover("", []string{"x"}); !errors.Is(err, ErrInvalidHost) {
		t.Errorf("Discover with empty host: err = %v, want ErrInvalidHost", err)
	}
}
