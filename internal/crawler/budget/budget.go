// Package budget spaces the crawler's dispatches to its fetch budget.
package budget

import (
	"context"
	"sync"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/clock"
)

// Limiter spaces dispatches to at most rate per second, with a burst of
// one second's worth so that a pause is made up for in part. A slot is
// meant for a request: a task that made none gives its slot back
// (Refund), so that postponed revisits and tasks that found nothing to do
// cost the budget nothing. A nil Limiter allows everything at once.
type Limiter struct {
	now      func() time.Time
	interval time.Duration
	burst    time.Duration
	mu       sync.Mutex // the dispatcher takes slots, workers give them back
	next     time.Time
}

// New returns a limiter to rate dispatches a second on the clock now, or
// nil (no limit) for a rate of zero or less.
func New(rate float64, now func() time.Time) *Limiter {
	if rate <= 0 {
		return nil
	}
	iv := time.Duration(float64(time.Second) / rate)
	return &Limiter{now: now, interval: iv, burst: max(time.Second, iv)}
}

// Start begins the account at now, with no pause to make up for: no
// burst.
func (l *Limiter) Start(now time.Time) {
	if l != nil {
		l.mu.Lock()
		l.next = now
		l.mu.Unlock()
	}
}

// Take takes the next slot at now and returns when it may be used.
func (l *Limiter) Take(now time.Time) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	if floor := now.Add(-l.burst + l.interval); l.next.Before(floor) {
		l.next = floor
	}
	at := l.next
	l.next = l.next.Add(l.interval)
	return at
}

// Wait blocks until the next dispatch is allowed. It returns false if ctx
// ends first.
func (l *Limiter) Wait(ctx context.Context) bool {
	if l == nil {
		return ctx.Err() == nil
	}
	now := l.now()
	return clock.Sleep(ctx, l.Take(now).Sub(now))
}

// Refund gives back a slot that no request used. The next waits may then
// go sooner, within the burst.
func (l *Limiter) Refund() {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.next = l.next.Add(-l.interval)
	l.mu.Unlock()
}
