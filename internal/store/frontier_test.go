package store

import (
	"slices"
	"testing"
)

// TestDropThrough checks the head of a queue after items leave it: those
// up to the largest sequence number gone, in any order.
func TestDropThrough(t *testing.T) {
	head := func(seqs ...uint64) []QueuedItem {
		var out []QueuedItem
		for _, q := range seqs {
			out = append(out, QueuedItem{Seq: q})
		}
		return out
	}
	seqsOf := func(h []QueuedItem) []uint64 {
		var out []uint64
		for _, q := range h {
			out = append(out, q.Seq)
		}
		return out
	}
	tests := []struct {
		head, drop, want []uint64
	}{
		{[]uint64{4, 5, 6, 7}, nil, []uint64{4, 5, 6, 7}},
		{[]uint64{4, 5, 6, 7}, []uint64{4}, []uint64{5, 6, 7}},
		{[]uint64{4, 5, 6, 7}, []uint64{4, 5, 6}, []uint64{7}},
		{[]uint64{4, 5, 6, 7}, []uint64{6, 4}, []uint64{7}},
		{[]uint64{4, 5, 6, 7}, []uint64{7}, nil},
		{[]uint64{4, 5, 6, 7}, []uint64{9}, nil},
		{nil, []uint64{1}, nil},
		{[]uint64{0, 1}, []uint64{0}, []uint64{1}},
	}
	for _, tt := range tests {
		got := seqsOf(DropThrough(head(tt.head...), tt.drop...))
		if !slices.Equal(got, tt.want) {
			t.Errorf("DropThrough(%v, %v) = %v, want %v", tt.head, tt.drop, got, tt.want)
		}
	}
}
