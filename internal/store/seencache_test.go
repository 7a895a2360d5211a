package store

import (
	"fmt"
	"math/rand/v2"
	"reflect"
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
// one with none, and requires identical answers: what each Enqueue queues,
// SeenCount, and the queue itself.
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
		// One Enqueue per URL answers for each URL, and later calls consult
		// the URLs the txn has staged; one call for all dedups within it.
		perURL := rng.IntN(2) == 0
		var got [2][]int
		for i, s := range stores {
			tx := s.Begin()
			calls := [][]string{urls}
			if perURL {
				calls = nil
				for _, u := range urls {
					calls = append(calls, []string{u})
				}
			}
			for _, c := range calls {
				q, _, err := tx.Enqueue("h", urlItems(c...), 0)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = append(got[i], q)
			}
			if abort {
				tx.Abort()
			} else if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(got[0], got[1]) || stores[0].SeenCount() != stores[1].SeenCount() {
			t.Fatalf("step %d (%v): cached store queued %v (seen %d), uncached %v (seen %d)",
				step, urls, got[0], stores[0].SeenCount(), got[1], stores[1].SeenCount())
		}
		if q0, q1 := peekAll(t, stores[0], "h"), peekAll(t, stores[1], "h"); !reflect.DeepEqual(q0, q1) {
			t.Fatalf("step %d: cached store's queue %v, uncached %v", step, q0, q1)
		}
	}
}
