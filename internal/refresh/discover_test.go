package refresh

import (
	"math"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/schedule"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// TestDiscoveryInterval checks the discovery interval against a brute-force
// optimum: a page that reveals δ new URLs a second, visited at frequency
// f, leaves δ/(2f) unfound on average, and with visits priced at the
// plan's multiplier μ the best f minimises δ/(2f) + μf.
func TestDiscoveryInterval(t *testing.T) {
	now := time.Unix(1e9, 0)
	m := plannedTest(t, Config{Budget: 10, Now: func() time.Time { return now }})
	mu := m.multiplier()
	if !(mu > 0) {
		t.Fatalf("multiplier %v", mu)
	}
	p := store.Page{Found: 30, Exposure: 600} // 0.05 new URLs a second
	delta := p.Found / p.Exposure
	got := m.discoveryInterval(&p).Seconds()
	best, bestCost := 0.0, math.Inf(1)
	for f := 1e-6; f < 10; f *= 1.0001 {
		if c := delta/(2*f) + mu*f; c < bestCost {
			best, bestCost = f, c
		}
	}
	if want := 1 / best; math.Abs(got/want-1) > 1e-3 {
		t.Errorf("discovery interval %vs, brute force %vs (μ = %v)", got, want, mu)
	}
	if iv := m.discoveryInterval(&store.Page{}); iv != 0 {
		t.Errorf("a page that found nothing: %v, want 0", iv)
	}
	u := openTest(t, Config{Budget: 10, Policy: Uniform}, fixedSize{held: 1000})
	if iv := u.discoveryInterval(&p); iv != 0 {
		t.Errorf("uniform policy: discovery interval %v, want none", iv)
	}
}

// TestDiscovered checks the discovery record's forgetting and that a page
// that reveals URLs is brought forward, never put back.
func TestDiscovered(t *testing.T) {
	now := time.Unix(1e9, 0)
	m := plannedTest(t, Config{Budget: 10, ChangeDecay: time.Hour, Now: func() time.Time { return now }})
	p := store.Page{Held: true, NextDue: now.Add(1000 * time.Hour)}
	m.Discovered(&p, 5, time.Time{}, now)
	if p.Found != 0 || p.Exposure != 0 {
		t.Errorf("first fetch counted: %+v", p)
	}
	m.Discovered(&p, 4, now.Add(-time.Hour), now)
	if p.Found != 4 || p.Exposure != 3600 {
		t.Errorf("after one revisit: found %v exposure %v, want 4 and 3600", p.Found, p.Exposure)
	}
	want := now.Add(m.discoveryInterval(&p))
	if !p.NextDue.Equal(want) {
		t.Errorf("next due %v, want the discovery interval's %v", p.NextDue, want)
	}
	later := now.Add(time.Hour)
	m.Discovered(&p, 0, now, later)
	if k := math.Exp(-1); math.Abs(p.Found-4*k) > 1e-9 || math.Abs(p.Exposure-(3600*k+3600)) > 1e-6 {
		t.Errorf("an hour on, τ = 1h: found %v exposure %v, want %v and %v", p.Found, p.Exposure, 4*k, 3600*k+3600)
	}
	soon := later.Add(time.Second)
	p.NextDue = soon
	m.Discovered(&p, 0, later, soon.Add(-time.Millisecond))
	if !p.NextDue.Equal(soon) {
		t.Errorf("next due moved back to %v from %v", p.NextDue, soon)
	}
}

// TestExplore checks that the plan spaces a page no wider than the
// uniform interval before it has been compared explore times.
func TestExplore(t *testing.T) {
	m := openTest(t, Config{Budget: 10}, fixedSize{held: 1000})
	for range 999 {
		m.planner.Add(schedule.BinOf(1e-2, 1), 1)
	}
	m.planner.Add(schedule.BinOf(1e-7, 1), 1)
	slow := store.Page{Held: true, Rate: 1e-7}
	if got, u := m.plan(&slow), m.Uniform().Seconds(); math.Abs(got-u) > 1e-6 {
		t.Errorf("a slow page never compared: interval %v, want the uniform %v", got, u)
	}
	var st change.Stats
	for i := range explore {
		st.Add(change.Observation{Interval: 100, SinceModified: -1}, float64(100*(i+1)))
	}
	b, err := st.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	slow.Change = b
	if got, u := m.plan(&slow), m.Uniform().Seconds(); !(got > 1.5*u) {
		t.Errorf("a slow page compared %d times: interval %v, want the plan's, well past the uniform %v", explore, got, u)
	}
}

// TestPlanBudgetBounded checks that what the hosts at capacity cannot take
// is added to what the planner divides only up to the revisit budget
// again: unbounded, the excess feeds back through the hosts' loads and,
// when all hosts together cannot take the budget, grows without end until
// every interval is the shortest (on simweb's demo, every page every
// millisecond).
func TestPlanBudgetBounded(t *testing.T) {
	now := time.Unix(1e9, 0)
	m := openTest(t, Config{Budget: 100, Now: func() time.Time { return now }}, fixedSize{held: 1000})
	m.planner.Add(schedule.BinOf(1e-2, 1), 1000)
	h := &Host{Name: "h", Delay: 10 * time.Second} // takes 0.1 fetches a second
	var st change.Stats                            // compared often enough not to be explored
	for i := range 2 * explore {
		st.Add(change.Observation{Interval: 100, Changed: i%2 == 0, SinceModified: -1}, float64(100*(i+1)))
	}
	b, err := st.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	p := store.Page{Held: true, Rate: 1e-2, Change: b}
	iv := m.plan(&p)
	m.noteLoad(h, 0, 1000/iv) // the host's 1,000 pages, planned as p
	for range 20 {
		next := m.plan(&p)
		m.noteLoad(h, 1000/iv, 1000/next)
		iv = next
	}
	if got, limit := m.planBudget(), 2*m.revisitBudget(); got > limit*(1+1e-9) {
		t.Errorf("plan budget %v, want at most twice the revisit budget %v", got, limit)
	}
	if limit := 1000 / (2 * m.revisitBudget()); iv < limit*(1-1e-6) {
		t.Errorf("interval %vs, want at least %vs (the pages sharing twice the budget)", iv, limit)
	}
}

// plannedTest opens a module of the optimal policy on 1,000 held pages,
// all in the plan at one change in 1,000 s.
func plannedTest(t *testing.T, cfg Config) *Module {
	t.Helper()
	m := openTest(t, cfg, fixedSize{held: 1000})
	m.planner.Add(schedule.BinOf(1e-3, 1), 1000)
	return m
}
