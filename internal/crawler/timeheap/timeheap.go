// Package timeheap is a min-heap of items ordered by a time, for
// container/heap, each item keeping its own position so that it can be
// fixed or removed where it stands. An item can be in several heaps at
// once, each keeping its position in a field of its own.
package timeheap

import "time"

// Heap orders items by Key, earliest first. Pos returns the field an item
// keeps its position in this heap in (−1 once popped). Use it through
// container/heap.
type Heap[T any] struct {
	Items []T
	Pos   func(T) *int
	Key   func(T) time.Time
}

func (h *Heap[T]) Len() int           { return len(h.Items) }
func (h *Heap[T]) Less(i, j int) bool { return h.Key(h.Items[i]).Before(h.Key(h.Items[j])) }
func (h *Heap[T]) Swap(i, j int) {
	h.Items[i], h.Items[j] = h.Items[j], h.Items[i]
	*h.Pos(h.Items[i]), *h.Pos(h.Items[j]) = i, j
}

// Push implements heap.Interface.
func (h *Heap[T]) Push(x any) {
	e := x.(T)
	*h.Pos(e) = len(h.Items)
	h.Items = append(h.Items, e)
}

// Pop implements heap.Interface.
func (h *Heap[T]) Pop() any {
	old := h.Items
	e := old[len(old)-1]
	var zero T
	old[len(old)-1] = zero
	h.Items = old[:len(old)-1]
	*h.Pos(e) = -1
	return e
}

// Top returns the item with the earliest key; the heap must not be empty.
func (h *Heap[T]) Top() T { return h.Items[0] }
