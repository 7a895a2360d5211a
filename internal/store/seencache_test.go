package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSeenCacheGenerations(t *testing.T) {
	c := seenCache{limit: 8}
	h := func(i int) urlHash { return hashURL(fmt.Sprint(i)) }
	for i := range 4 {
		c.add(h(i))
	}
	for i := range 4 {
		if !c.has(h(i)) {
			t.Fatalf("hash %d lost before the cache filled", i)
		}
	}
	// Adding 8 more pushes the first generation out; what remains is at
	// most limit entries, the most recent ones.
	for i := 4; i < 12; i++ {
		c.add(h(i))
	}
	if n := len(c.cur) + len(c.prev); n > 8 {
		t.Errorf("cache holds %d hashes, limit 8", n)
	}
	for i := 8; i < 12; i++ {
		if !c.has(h(i)) {
			t.Errorf("recent hash %d missing", i)
		}
	}
	if c.has(h(100)) {
		t.Error("a hash never added is reported")
	}
	var off seenCache
	off.add(h(1))
	if off.has(h(1)) {
		t.Error("a zero-limit cache holds a hash")
	}
}

// TestSeenCacheTransparent runs the same random discovery workload, with
// aborted transactions, on a store with a tiny cache (constant eviction) and
// one with none, and requires identical answers.
func TestSeenCacheTransparent(t *testing.T) {
	open := func(cache int) *Store {
		s, err := Open(t.TempDir(), Options{NoSync: true, SeenCache: cache})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	stores := []*Store{open(4), open(-1)}
	rng := rand.New(rand.NewPCG(7, 7))
	for step := range 300 {
		urls := make([]string, 1+rng.IntN(6))
		for i := range urls {
			urls[i] = fmt.Sprintf("http://h/%d", rng.IntN(80))
		}
		abort := rng.IntN(4) == 0
		viaTxn := rng.IntN(2) == 0
		var got [2][]bool
		for i, s := range stores {
			if viaTxn {
				tx := s.Begin()
				q, _, err := tx.Enqueue("h", items(urls...), 0)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = []bool{q > 0}
				if abort {
					tx.Abort()
				} else if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
				continue
			}
			fresh, err := s.AddNew(urls)
			if err != nil {
				t.Fatal(err)
			}
			got[i] = fresh
		}
		if !slices.Equal(got[0], got[1]) || stores[0].SeenCount() != stores[1].SeenCount() {
			t.Fatalf("step %d (%v): cached store says %v (seen %d), uncached %v (seen %d)",
				step, urls, got[0], stores[0].SeenCount(), got[1], stores[1].SeenCount())
		}
	}
}

func items(urls ...string) []Item {
	out := make([]Item, len(urls))
	for i, u := range urls {
		out[i] = Item{URL: u}
	}
	return out
}
