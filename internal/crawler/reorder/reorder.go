// Package reorder puts items back in the order their sources numbered
// them: the crawler's workers process a host's outcomes in parallel, and
// the committer must record them in the order the host handed them back.
package reorder

// Buffer holds items that came before their turn, by source.
type Buffer[K comparable, T any] struct {
	held map[K]map[uint64]T
}

// Add takes v, numbered seq by its source key, whose next number due is
// *next. If v's turn has come, Add appends v to out, then every held item
// of key that follows in turn, advancing *next past each; otherwise it
// holds v. It returns out.
func (b *Buffer[K, T]) Add(key K, next *uint64, seq uint64, v T, out []T) []T {
	if seq != *next {
		if b.held == nil {
			b.held = map[K]map[uint64]T{}
		}
		if b.held[key] == nil {
			b.held[key] = map[uint64]T{}
		}
		b.held[key][seq] = v
		return out
	}
	for {
		out = append(out, v)
		*next++
		w, ok := b.held[key][*next]
		if !ok {
			return out
		}
		delete(b.held[key], *next)
		if len(b.held[key]) == 0 {
			delete(b.held, key)
		}
		v = w
	}
}

// Held counts the items held.
func (b *Buffer[K, T]) Held() int {
	n := 0
	for _, m := range b.held {
		n += len(m)
	}
	return n
}
