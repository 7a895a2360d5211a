package sim

// entry is one scheduled page: its next fetch time and index.
type entry struct {
	t    float64
	page int32
}

func (a entry) less(b entry) bool { return a.t < b.t || (a.t == b.t && a.page < b.page) }

// dueHeap is a 4-ary min-heap of entries, keyed by time then page. Four
// children per node halve the depth of a binary heap, and the four siblings
// share a cache line (16-byte entries), so a sift-down over 10^6 pages
// touches about ten lines. The event loop mostly replaces the top (the
// page just fetched gets its next due time), which is one sift-down.
type dueHeap struct{ a []entry }

func (h *dueHeap) len() int   { return len(h.a) }
func (h *dueHeap) top() entry { return h.a[0] }

// init heapifies a in O(n).
func (h *dueHeap) init(a []entry) {
	h.a = a
	if len(a) < 2 {
		return
	}
	for i := (len(a) - 2) / 4; i >= 0; i-- {
		h.down(i)
	}
}

// replaceTop sets the top entry to e and restores the heap.
func (h *dueHeap) replaceTop(e entry) {
	h.a[0] = e
	h.down(0)
}

// pop removes the top entry.
func (h *dueHeap) pop() {
	n := len(h.a) - 1
	h.a[0] = h.a[n]
	h.a = h.a[:n]
	if n > 0 {
		h.down(0)
	}
}

func (h *dueHeap) down(i int) {
	a := h.a
	n := len(a)
	e := a[i]
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < c+4 && k < n; k++ {
			if a[k].less(a[m]) {
				m = k
			}
		}
		if !a[m].less(e) {
			break
		}
		a[i] = a[m]
		i = m
	}
	a[i] = e
}
