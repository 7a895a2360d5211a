package budget

import (
	"testing"
	"time"
)

// TestTake checks the spacing, the burst after a pause and the refund on
// an injected clock.
func TestTake(t *testing.T) {
	t0 := time.Unix(1000, 0)
	l := New(10, func() time.Time { return t0 }) // a slot every 100 ms
	l.Start(t0)
	for i := range 3 {
		if at, want := l.Take(t0), t0.Add(time.Duration(i)*100*time.Millisecond); !at.Equal(want) {
			t.Fatalf("slot %d at %v, want %v", i, at.Sub(t0), want.Sub(t0))
		}
	}
	l.Refund() // the third slot made no request: the next takes its time
	if at := l.Take(t0); !at.Equal(t0.Add(200 * time.Millisecond)) {
		t.Errorf("after a refund, slot at %v, want 200ms", at.Sub(t0))
	}
	// After a pause of 10 s, a second's worth goes at once, no more.
	late := t0.Add(10 * time.Second)
	n := 0
	for l.Take(late).Compare(late) <= 0 {
		n++
	}
	if n != 10 {
		t.Errorf("after a pause, %d slots at once, want 10 (one second's worth)", n)
	}
	if New(0, nil) != nil {
		t.Error("a zero rate should give no limiter")
	}
}

// TestSetRate checks a change of rate: the slot already taken stands, the
// next ones are spaced at the new rate; a rate of zero or less is ignored.
func TestSetRate(t *testing.T) {
	t0 := time.Unix(1000, 0)
	l := New(10, nil)
	l.Start(t0)
	l.Take(t0) // at 0; the next at 100 ms
	l.SetRate(4)
	l.SetRate(0)
	if got := l.Rate(); got != 4 {
		t.Fatalf("rate %g, want 4", got)
	}
	for i, want := range []time.Duration{100, 350, 600} {
		if at := l.Take(t0); !at.Equal(t0.Add(want * time.Millisecond)) {
			t.Errorf("slot %d at %v, want %vms", i, at.Sub(t0), want)
		}
	}
	var none *Limiter
	none.SetRate(3)
	if none.Rate() != 0 {
		t.Error("a nil limiter has a rate")
	}
}

// TestShare checks shares of a pool: their slots come from the pool's one
// account (two shares of a pool at 10 a second get slots 100 ms apart
// between them, not each), a refund goes back to it, Start leaves it be,
// and each reports its own rate.
func TestShare(t *testing.T) {
	t0 := time.Unix(1000, 0)
	pool := New(10, func() time.Time { return t0 })
	pool.Start(t0)
	a, b := Share(pool, 4, nil), Share(pool, 6, nil)
	a.Start(t0.Add(time.Hour))
	got := []time.Time{a.Take(t0), b.Take(t0), a.Take(t0)}
	for i, at := range got {
		if want := t0.Add(time.Duration(i) * 100 * time.Millisecond); !at.Equal(want) {
			t.Errorf("slot %d at %v, want %v", i, at.Sub(t0), want.Sub(t0))
		}
	}
	b.Refund()
	if at := pool.Take(t0); !at.Equal(t0.Add(200 * time.Millisecond)) {
		t.Errorf("after a share's refund, the pool's slot at %v, want 200ms", at.Sub(t0))
	}
	if a.Rate() != 4 || b.Rate() != 6 || pool.Rate() != 10 {
		t.Errorf("rates %g, %g, pool %g; want 4, 6, 10", a.Rate(), b.Rate(), pool.Rate())
	}
	if l := Share(nil, 5, nil); l == nil || l.Rate() != 5 {
		t.Error("a share of no pool is a limiter of its own")
	}
}
