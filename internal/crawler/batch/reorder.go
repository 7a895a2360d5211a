// Package batch forms the crawler's commit batches: it gathers what
// arrives (Gather), and puts items back in the order their sources
// numbered them (Reorder): the crawler's workers process a host's
// outcomes in parallel, and the committer must record them in the order
// the host handed them back.
package batch

import "time"

// Reorder holds items that came before their turn, by source.
type Reorder[K comparable, T any] struct {
	held map[K]map[uint64]T
}

// Add takes v, numbered seq by its source key, whose next number due is
// *next. If v's turn has come, Add appends v to out, then every held item
// of key that follows in turn, advancing *next past each; otherwise it
// holds v. It returns out.
func (b *Reorder[K, T]) Add(key K, next *uint64, seq uint64, v T, out []T) []T {
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
func (b *Reorder[K, T]) Held() int {
	n := 0
	for _, m := range b.held {
		n += len(m)
	}
	return n
}

// Gather appends to batch what arrives on ch, through add, up to max
// items: all that is waiting, and while the batch is under group what
// comes within window of the call. timer is the caller's, stopped.
func Gather[T any](ch <-chan T, batch []T, add func(T, []T) []T, max, group int, window time.Duration, timer *time.Timer) []T {
	deadline := time.Now().Add(window)
	for len(batch) < max {
		select {
		case v, ok := <-ch:
			if !ok {
				return batch
			}
			batch = add(v, batch)
			continue
		default:
		}
		wait := time.Until(deadline)
		if len(batch) >= group || wait <= 0 {
			return batch
		}
		timer.Reset(wait)
		select {
		case v, ok := <-ch:
			timer.Stop()
			if !ok {
				return batch
			}
			batch = add(v, batch)
		case <-timer.C:
			return batch
		}
	}
	return batch
}
