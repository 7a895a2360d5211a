// Package clock waits: the one sleep the crawler and the worlds it is
// tested in use, which a context can cut short. It reads no clock of its
// own, so inside a testing/synctest bubble it waits on the bubble's. It
// also picks between moments (Later, Earliest).
package clock

import (
	"context"
	"time"
)

// Sleep waits for d, or until ctx is done, and reports whether it waited
// the whole of d. A d of zero or less does not wait; it reports whether
// ctx is still live.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Later returns the later of a and b.
func Later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Earliest returns the earlier of a and b, where a zero a means none.
func Earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}
