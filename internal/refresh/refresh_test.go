package refresh

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/schedule"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// fixedSize is a crawl of a fixed size.
type fixedSize struct {
	held, queued int64
}

func (s fixedSize) Held() int64   { return s.held }
func (s fixedSize) Queued() int64 { return s.queued }

// openTest opens a module on an empty store.
func openTest(t *testing.T, cfg Config, size Size) *Module {
	t.Helper()
	s, err := store.Open(filepath.Join(t.TempDir(), "state"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	m, err := Open(cfg, s, size)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestUniform checks the uniform interval against its definition: the
// capacity (or the pages held and the new URLs queued) over the budget,
// at least a second; the configured interval; a day without either.
func TestUniform(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		size fixedSize
		want time.Duration
	}{
		{"capacity over budget", Config{Budget: 10, Capacity: 3600}, fixedSize{held: 50, queued: 8950}, 6 * time.Minute},
		{"held and queued over budget", Config{Budget: 10}, fixedSize{held: 50, queued: 8950}, 15 * time.Minute},
		{"held alone", Config{Budget: 10}, fixedSize{held: 12000}, 20 * time.Minute},
		{"at least a second", Config{Budget: 1000}, fixedSize{held: 5}, time.Second},
		{"configured", Config{Budget: 10, Revisit: time.Hour}, fixedSize{queued: 9000}, time.Hour},
		{"no budget", Config{}, fixedSize{queued: 9000}, 24 * time.Hour},
	}
	for _, tt := range tests {
		m := openTest(t, tt.cfg, tt.size)
		if got := m.Uniform(); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestHostCapacity checks the capacity bookkeeping: a host's load is the
// sum of its pages' planned frequencies, a host over its capacity
// 1/(delay + response time) stretches its intervals by load/capacity, and
// the crawl's excess is the sum of the hosts' loads over capacity, which
// the planner divides on top of the budget.
func TestHostCapacity(t *testing.T) {
	c := openTest(t, Config{Revisit: time.Hour}, fixedSize{})
	a := &Host{Name: "a", Delay: 900 * time.Millisecond}
	b := &Host{Name: "b", Delay: 400 * time.Millisecond}
	a.NoteService(100 * time.Millisecond) // capacity 1/s
	b.NoteService(100 * time.Millisecond) // capacity 2/s
	for range 3 {
		c.noteLoad(a, 0, 0.5) // three pages every 2 s: 1.5/s
		c.noteLoad(b, 0, 0.5) // under capacity
	}
	if math.Abs(a.capacity()-1) > 1e-9 || math.Abs(b.capacity()-2) > 1e-9 {
		t.Fatalf("capacities %g, %g; want 1 and 2", a.capacity(), b.capacity())
	}
	if got := a.scale(); math.Abs(got-1.5) > 1e-9 {
		t.Errorf("host a: scale %g, want 1.5", got)
	}
	if got := b.scale(); got != 1 {
		t.Errorf("host b: scale %g, want 1", got)
	}
	if got := c.excess(); math.Abs(got-0.5) > 1e-9 {
		t.Errorf("excess %g, want 0.5", got)
	}
	if got := c.stretch(a, 2); math.Abs(got.Seconds()-3) > 1e-6 {
		t.Errorf("a 2 s interval on host a is %v, want 3s", got)
	}
	c.noteLoad(a, 0.5, 0) // a page leaves: 1/s, at capacity
	c.noteLoad(b, 0.5, 2) // b goes over: 3/s for 2/s
	if got := c.excess(); math.Abs(got-1) > 1e-9 {
		t.Errorf("excess %g after the moves, want 1", got)
	}
	// The stretch stops at the longest revisit interval.
	c.noteLoad(b, 0, 1000)
	if want := DefaultMaxRevisits * time.Hour; c.stretch(b, 3600) != want {
		t.Errorf("stretch on a host 500× over capacity: %v, want the %v cap", c.stretch(b, 3600), want)
	}
}

// TestCensoringGivesUp checks when a page that changed at every visit is
// planned as changing at every moment (censoring.fast): after three
// changed comparisons one of which was short (at most a sixth of their
// mean), or after giveUpAfter changed ones whatever their lengths, which
// ends the probing of a page whose probes all come late; never after an
// unchanged one.
func TestCensoringGivesUp(t *testing.T) {
	const day = 86400.0
	cases := []struct {
		intervals []float64 // days
		changed   bool      // every one changed (else the last did not)
		fast      bool
	}{
		{[]float64{3, 3}, true, false},
		{[]float64{3, 3, 0.3}, true, true},           // the probe was short
		{[]float64{3, 3, 0.9}, true, false},          // late probe: probe again
		{[]float64{3, 3, 0.9, 0.8}, true, false},     // late again
		{[]float64{3, 3, 0.9, 0.8, 0.7}, true, true}, // giveUpAfter
		{[]float64{3, 3, 0.9, 0.8, 0.7, 0.3}, false, false},
		{[]float64{3, 3, 3, 3, 3, 3, 3}, true, true},
	}
	for _, tc := range cases {
		var st change.Stats
		at := 0.0
		for i, iv := range tc.intervals {
			at += iv * day
			st.Add(change.Observation{Interval: iv * day, Changed: tc.changed || i < len(tc.intervals)-1, SinceModified: -1}, at)
		}
		b, err := st.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		cs := censoringOf(&store.Page{Change: b})
		if got := cs.fast(); got != tc.fast {
			t.Errorf("intervals %v (all changed %v): fast = %v, want %v (censoring %+v)", tc.intervals, tc.changed, got, tc.fast, cs)
		}
	}
}

// TestPoissonBaselines checks that the lambdacrawl and binary-poisson
// policies plan each page at their papers' crawl rate at the plan's
// multiplier, that those rates spend the revisit budget, and that neither
// acts on sweeps, signals or discovery, while binary-poisson, which gives
// pages up, censors the estimates of pages changing at every visit as the
// optimal policy does.
func TestPoissonBaselines(t *testing.T) {
	for _, tt := range []struct {
		policy Name
		freq   func(delta, w, lambda float64) float64
	}{{LambdaCrawl, policy.LambdaCrawlFrequency}, {BinaryPoisson, policy.BinaryPoissonFrequency}} {
		m := openTest(t, Config{Policy: tt.policy, Budget: 10}, fixedSize{held: 3000})
		if m.acts || m.planFast != (tt.policy == BinaryPoisson) {
			t.Errorf("%s: acts on news %v, gives up pages changing at every visit %v; want false, %v (as its optimum gives pages up)",
				tt.policy, m.acts, m.planFast, tt.policy == BinaryPoisson)
		}
		rng := rand.New(rand.NewPCG(5, 7))
		pages := make([]store.Page, 3000)
		w := binCentre(schedule.BinOf(1, 1).Weight) // pages at their bins' centres: the histogram is exact
		for i := range pages {
			rate := binCentre(schedule.BinOf(math.Pow(10, -6+3*rng.Float64()), 1).Rate)
			pages[i] = comparedPage(t, rate, w)
			m.planner.Add(schedule.BinOf(rate, w), 1)
		}
		mu := m.multiplier()
		load := 0.0
		for _, p := range pages {
			got := m.plan(&p)
			f := tt.freq(p.Rate, w, mu)
			want := m.maxRevisit().Seconds()
			if f > 0 {
				want = min(1/f, want)
			}
			if math.Abs(got-want) > 1e-9*want {
				t.Fatalf("%s: a page of rate %g planned every %gs, the paper's rate gives %gs", tt.policy, p.Rate, got, want)
			}
			load += 1 / got
		}
		if budget := m.planBudget(); math.Abs(load/budget-1) > 1e-4 {
			t.Errorf("%s: planned %g visits a second, revisit budget %g", tt.policy, load, budget)
		}
	}
}
