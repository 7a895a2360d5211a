package timeheap

import (
	"container/heap"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

type item struct {
	at  time.Time
	idx int
}

// TestHeap pushes items in random order, moves and removes some where they
// stand, and checks that they come out in time order with their positions
// kept right all along.
func TestHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	h := &Heap[*item]{Pos: func(e *item) *int { return &e.idx }, Key: func(e *item) time.Time { return e.at }}
	items := make([]*item, 200)
	for i := range items {
		items[i] = &item{at: time.Unix(int64(rng.IntN(1000)), 0)}
		heap.Push(h, items[i])
	}
	for _, e := range items[:50] {
		e.at = time.Unix(int64(rng.IntN(1000)), 0)
		heap.Fix(h, e.idx)
	}
	for _, e := range items[50:70] {
		heap.Remove(h, e.idx)
		if e.idx != -1 {
			t.Fatalf("a removed item keeps position %d", e.idx)
		}
	}
	for i, e := range h.Items {
		if e.idx != i {
			t.Fatalf("item at %d thinks it is at %d", i, e.idx)
		}
	}
	var out []time.Time
	for h.Len() > 0 {
		top := h.Top()
		if e := heap.Pop(h).(*item); e != top {
			t.Fatal("Top is not what Pop returns")
		}
		out = append(out, top.at)
	}
	if len(out) != 180 || !slices.IsSortedFunc(out, time.Time.Compare) {
		t.Errorf("%d items out, sorted %v", len(out), slices.IsSortedFunc(out, time.Time.Compare))
	}
}
