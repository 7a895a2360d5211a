package policy

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/change"
)

// TestOracleExample54 runs the oracle on Example 5.4 (rates 1..5 a day,
// budget 5 a day) and checks its intervals against Table 5.5's printed
// freshness-optimal visits per day (1.15, 1.36, 1.35, 1.14, 0, to half a
// unit of the last printed digit); the given-up page is never visited,
// not probed.
func TestOracleExample54(t *testing.T) {
	rates := []float64{1 / day, 2 / day, 3 / day, 4 / day, 5 / day}
	o, err := NewOracle(rates, OnlineConfig{Budget: 5 / day})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1.15, 1.36, 1.35, 1.14, 0}
	for i, w := range want {
		got := day / o.Interval(i)
		if math.Abs(got-w) > 0.005 {
			t.Errorf("page %d: %.4f visits/day, want %g", i, got, w)
		}
	}
	if !math.IsInf(o.Interval(4), 1) || o.GivenUp() != 0 {
		t.Errorf("page 5 interval %g, held %d; want +Inf and none", o.Interval(4), o.GivenUp())
	}
	if err := o.Replan(); err != nil || o.Rate(2) != rates[2] {
		t.Errorf("oracle replan changed its rates (%v, %g)", err, o.Rate(2))
	}
	if next := o.Visit(0, 7, change.Observation{Interval: 1, Changed: true}); next != 7+o.Interval(0) {
		t.Errorf("visit returns %g, want %g", next, 7+o.Interval(0))
	}
}

// TestOnlineStart checks a new collection: every page gets the prior's
// rate, so the optimal plan is uniform (N/B), and first visits are spread
// at (i + ½)/N of it.
func TestOnlineStart(t *testing.T) {
	const n = 8
	o, err := NewOnline(n, OnlineConfig{Budget: 2 / day})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if o.Rate(i) != change.Paper001Prior().Rate() {
			t.Fatalf("page %d rate %g, want the prior's %g", i, o.Rate(i), change.Paper001Prior().Rate())
		}
		if I := o.Interval(i); math.Abs(I-4*day) > 1e-6*day {
			t.Errorf("page %d interval %g d, want 4 (8 pages, 2 a day)", i, I/day)
		}
		if d, want := o.Due(i), (float64(i)+0.5)/n*o.Interval(i); d != want {
			t.Errorf("page %d due %g, want %g", i, d, want)
		}
	}
	if next := o.Visit(3, 100, change.Observation{}); next != 100+o.Interval(3) || o.Due(3) != next {
		t.Errorf("first visit: next %g, due %g; want %g", next, o.Due(3), 100+o.Interval(3))
	}
}

// TestOnlineLearns feeds 30 daily visits to 50 pages that change 24 times
// a day and 50 that change every 100 days, all with Last-Modified, and
// re-plans. With 10 visits a day to spend, the freshness optimum gives the
// fast pages up: a visit keeps a slow page fresh for longer (the marginal
// freshness of the slow pages, g(r)/λ at r = λ/f ≈ 0.05, is 0.125 days a
// visit; of the fast ones at most 1/λ = 0.04). So the fast pages must be
// held at the probe interval, the slow ones share the rest of the budget,
// and the plan must spend the budget to 0.1 %. The fast pages' rates come
// from lm-reduced, practically unbiased (§6.5): from 30 observations, each
// Last-Modified an Exp(λ) draw, one page's relative error is about
// 1/√30 ≈ 18 %, so the mean of 50 must be within 10 % of 24 a day (about 4
// standard errors of 2.5 %).
func TestOnlineLearns(t *testing.T) {
	const n = 100
	rates := make([]float64, n)
	for i := range rates {
		rates[i] = 24 / day
		if i%2 == 1 {
			rates[i] = 0.01 / day
		}
	}
	B := 10 / day
	o, err := NewOnline(n, OnlineConfig{Budget: B})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	lastMod := make([]float64, n) // last change time, from −Exp at time 0
	for i := range lastMod {
		lastMod[i] = -rng.ExpFloat64() / rates[i]
	}
	for k := 1; k <= 30; k++ {
		tNow := float64(k) * day
		for i := range n {
			obs := change.Observation{Interval: day}
			// Poisson changes in (t − 1 d, t]: the last one is Exp back
			// from t if it falls inside the interval.
			if back := rng.ExpFloat64() / rates[i]; back < day {
				obs.Changed = true
				lastMod[i] = tNow - back
			}
			obs.SinceModified = tNow - lastMod[i]
			o.Visit(i, tNow, obs)
		}
	}
	if err := o.Replan(); err != nil {
		t.Fatal(err)
	}
	load := 0.0
	var fast []float64
	for i := range n {
		I := o.Interval(i)
		load += 1 / I
		if i%2 == 0 {
			if I != DefaultMaxInterval {
				t.Errorf("fast page %d: interval %g d, want the probe %g d", i, I/day, DefaultMaxInterval/day)
			}
			fast = append(fast, o.Rate(i)*day)
		} else if !(I < DefaultMaxInterval) {
			t.Errorf("slow page %d: interval %g d, want less than the probe", i, I/day)
		}
	}
	mean := 0.0
	for _, r := range fast {
		mean += r / float64(len(fast))
	}
	if math.Abs(mean-24) > 2.4 {
		t.Errorf("fast pages' mean rate %g a day, want 24 within 10 %%", mean)
	}
	if o.GivenUp() != n/2 {
		t.Errorf("%d pages held, want %d", o.GivenUp(), n/2)
	}
	if math.Abs(load-B) > 1e-3*B {
		t.Errorf("plan spends %g visits a day, want %g", load*day, B*day)
	}
}

func TestOnlineErrors(t *testing.T) {
	tests := []struct {
		name string
		n    int
		cfg  OnlineConfig
	}{
		{"no pages", 0, OnlineConfig{Budget: 1}},
		{"no budget", 3, OnlineConfig{}},
		{"infinite budget", 3, OnlineConfig{Budget: math.Inf(1)}},
		{"weights", 3, OnlineConfig{Budget: 1, Weights: []float64{1}}},
		{"negative max", 3, OnlineConfig{Budget: 1, MaxInterval: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewOnline(tt.n, tt.cfg); !errors.Is(err, ErrInput) {
				t.Errorf("err %v, want ErrInput", err)
			}
		})
	}
	// Probes alone over the budget: 10 pages allocated one visit a day are
	// held at MaxInterval = 1 h, which needs 240 visits a day out of 10.
	if _, err := NewOnline(10, OnlineConfig{Budget: 10 / day, MaxInterval: 3600}); !errors.Is(err, ErrInput) {
		t.Errorf("over-budget probes: err %v, want ErrInput", err)
	}
}
