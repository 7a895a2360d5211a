// Package budget spaces the crawler's dispatches to its fetch budget.
package budget

import (
	"context"
	"math"
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
	rate     float64
	interval time.Duration
	burst    time.Duration
	mu       sync.Mutex // the dispatcher takes slots, workers give them back
	next     time.Time
	// pool, if not nil, is where the slots come from (Share).
	pool *Limiter
}

// New returns a limiter to rate dispatches a second on the clock now, or
// nil (no limit) for a rate of zero or less.
func New(rate float64, now func() time.Time) *Limiter {
	if rate <= 0 {
		return nil
	}
	l := &Limiter{now: now}
	l.SetRate(rate)
	return l
}

// Share returns a limiter whose slots come from pool, which it shares
// with other crawls: a cluster node's partitions draw on one budget, so
// that a slot one partition has no use for goes to another, as in one
// crawl. The pool hands its slots out in the order the crawls ask for
// them; a share's own rate is only what its crawl reports as its budget,
// and the pool's rate, the sum of its shares', is its owner's to set.
// A share runs on the pool's clock (now is for a nil pool, which gives
// New(rate, now)).
func Share(pool *Limiter, rate float64, now func() time.Time) *Limiter {
	if pool == nil {
		return New(rate, now)
	}
	l := &Limiter{now: pool.now, pool: pool}
	l.SetRate(rate)
	return l
}

// SetRate changes the rate (> 0) from the next slot on: a cluster's
// partitions are given the share of its budget their pages ask for.
func (l *Limiter) SetRate(rate float64) {
	if l == nil || !(rate > 0) || math.IsInf(rate, 1) {
		return
	}
	iv := max(time.Duration(float64(time.Second)/rate), 1)
	l.mu.Lock()
	l.rate, l.interval, l.burst = rate, iv, max(time.Second, iv)
	l.mu.Unlock()
}

// Rate returns the dispatches a second allowed; 0 for a nil Limiter (no
// limit).
func (l *Limiter) Rate() float64 {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rate
}

// Start begins the account at now, with no pause to make up for: no
// burst.
func (l *Limiter) Start(now time.Time) {
	if l != nil && l.pool == nil { // a share leaves the pool's account alone
		l.mu.Lock()
		l.next = now
		l.mu.Unlock()
	}
}

// Take takes the next slot at now and returns when it may be used.
func (l *Limiter) Take(now time.Time) time.Time {
	if l.pool != nil {
		return l.pool.Take(now)
	}
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
	if l.pool != nil {
		l.pool.Refund()
		return
	}
	l.mu.Lock()
	l.next = l.next.Add(-l.interval)
	l.mu.Unlock()
}
