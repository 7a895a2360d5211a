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
