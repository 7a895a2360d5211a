package dataset

import (
	"bytes"

	"github.com/cespare/xxhash/v2"
)

// hostTable numbers host names in order of first appearance: an open
// addressing table keyed by the names' 64-bit hashes, which also holds a
// name's first 16 bytes, so that looking up a host name of up to 16 bytes
// costs one cache line; the names are kept one after another. (A map of
// strings, whose keys lie all over the heap, took three cache misses a
// line on 10⁷ lines of 10⁵ hosts.)
type hostTable struct {
	slots []hostSlot // a power of two, at most half full
	names []byte
	at    []int // name k is names[at[k]:at[k+1]]
}

type hostSlot struct {
	hash   uint64
	id     int32 // −1: empty
	n      int32 // the name's length
	prefix [16]byte
}

// len is the number of names.
func (t *hostTable) len() int { return max(0, len(t.at)-1) }

// name is name number k.
func (t *hostTable) name(k int32) []byte { return t.names[t.at[k]:t.at[k+1]] }

// number returns name's number, numbering it if it is new.
func (t *hostTable) number(name []byte) int32 {
	if 2*(t.len()+1) > len(t.slots) {
		t.grow()
	}
	h := xxhash.Sum64(name)
	mask := uint64(len(t.slots) - 1)
	for k := h & mask; ; k = (k + 1) & mask {
		s := &t.slots[k]
		if s.id < 0 {
			s.hash, s.id, s.n = h, int32(t.len()), int32(len(name))
			copy(s.prefix[:], name)
			if t.at == nil {
				t.at = []int{0}
			}
			t.names = append(t.names, name...)
			t.at = append(t.at, len(t.names))
			return s.id
		}
		if s.hash == h && int(s.n) == len(name) && bytes.Equal(s.prefix[:min(16, len(name))], name[:min(16, len(name))]) &&
			(len(name) <= 16 || bytes.Equal(t.name(s.id), name)) {
			return s.id
		}
	}
}

// grow doubles the slots (to 1024 at first) and re-inserts the names.
func (t *hostTable) grow() {
	old := t.slots
	t.slots = make([]hostSlot, max(1024, 2*len(t.slots)))
	for k := range t.slots {
		t.slots[k].id = -1
	}
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s.id >= 0 {
			k := s.hash & mask
			for t.slots[k].id >= 0 {
				k = (k + 1) & mask
			}
			t.slots[k] = s
		}
	}
}
