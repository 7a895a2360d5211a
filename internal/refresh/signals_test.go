package refresh

import (
	"math"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/schedule"
)

// TestSignalYield checks that the plan learns from the trusted sitemaps'
// reads what share of the pulls it counted on are made, and how often the
// sitemaps are read: a site whose pages change in bursts signals several
// changes of a page in one read, so only part of the planned pulls come,
// and the budget they do not take must go to visits.
func TestSignalYield(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := plannedTest(t, Config{Budget: 10, Now: func() time.Time { return now }})
	b := schedule.BinOf(1e-3, 100)
	b.Signalled = true
	m.planner.Add(b, 500)
	const gap = 10 * time.Second
	m.syncPlanner()
	full := m.planner.SignalRate(1e-3, 100)
	if full == 0 {
		t.Fatal("a pull on a page of weight 100 changing every 10³ s does not pay at this budget: the test needs one that does")
	}
	for _, c := range []struct {
		name  string
		share float64 // of the planned pulls made
		want  float64 // the yield the plan is told
	}{
		{"all made", 1, 1},
		{"half made", 0.5, 0.5},
		{"next to none", 0.001, yieldMin},
	} {
		since, carry := time.Time{}, 0.0
		for range 400 { // 4,000 s: many times the yield's memory
			made := c.share*m.planner.Pulls()*gap.Seconds() + carry
			n := math.Floor(made)
			carry = made - n
			m.noteSignals(int(n), since, now)
			since, now = now, now.Add(gap)
		}
		yield := m.planner.SignalRate(1e-3, 100) / (m.planner.Pulls() / 500)
		if math.Abs(yield-c.want) > 0.05*c.want {
			t.Errorf("%s: yield %.3f, want %.3f", c.name, yield, c.want)
		}
		if r := m.SignalReads(); math.Abs(r-1/gap.Seconds()) > 0.05/gap.Seconds() {
			t.Errorf("%s: trusted sitemaps read %g times a second, want %g", c.name, r, 1/gap.Seconds())
		}
		if iv := m.planner.SignalInterval(1e-3, 100); iv < gap.Seconds() {
			t.Errorf("%s: visits without a signal every %gs, under the sitemaps' read interval %v", c.name, iv, gap)
		}
	}
}
