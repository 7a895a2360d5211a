package simpolicy

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/change/evolution"
	"github.com/freshcrawl/freshcrawl/internal/change/process"
	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/sim"
)

// TestCh4PagesMix checks the drawn pages against the ch. 4 mix they are
// drawn from: each Fig. 4.2 bar's share within 4 binomial standard errors
// of evolution.PrintedShares, every mean interval inside simweb's range, the
// Last-Modified share likewise, and the mix model's process shares.
func TestCh4PagesMix(t *testing.T) {
	const n = 20000
	se := func(p float64) float64 { return 4 * math.Sqrt(p*(1-p)/n) }
	ps := Ch4Pages(n, Mix, 0.6, 7)
	var bars [5]float64
	var lm, pareto, qd float64
	for _, p := range ps {
		mean := 1 / p.Process.Rate
		b := evolution.BinOf(timeSeconds(mean))
		if lo, hi := evolution.Bins[0].Lo.Seconds(), evolution.Bins[4].Hi.Seconds(); mean < lo*(1-1e-9) || mean > hi*(1+1e-9) {
			t.Fatalf("mean interval %g s outside [%g, %g]", mean, lo, hi)
		}
		bars[b]++
		if p.LastModified {
			lm++
		}
		switch p.Process.Kind {
		case process.Pareto:
			pareto++
		case process.QuasiDeterministic:
			qd++
		}
	}
	for b, want := range evolution.PrintedShares {
		if got := bars[b] / n; math.Abs(got-want) > se(want) {
			t.Errorf("bar %d: share %.4f, want %.2f", b, got, want)
		}
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"last-modified", lm / n, 0.6}, {"pareto", pareto / n, 0.10}, {"qd", qd / n, 0.05}} {
		if math.Abs(c.got-c.want) > se(c.want) {
			t.Errorf("%s share %.4f, want %.2f", c.name, c.got, c.want)
		}
	}
	if again := Ch4Pages(n, Mix, 0.6, 7); again[n-1] != ps[n-1] {
		t.Error("same seed, different pages")
	}
}

// TestOracleInSimulator runs the oracle on 2,000 ch. 4 pages for 40 days
// (10 of warm-up) and compares its measured freshness with the closed
// form its allocation promises (policy.Collection, Theorem 5.1 under fixed
// order). The engine's visits are not exactly periodic (the budget delays
// some, and each page's first visit is placed by its phase), so allow
// 0.01: the Monte-Carlo error alone, from 2,000 pages of per-page
// freshness spread ≤ 0.5 over a 30-day window holding ≥ 3 changes, is
// below 0.005 (3 standard errors).
func TestOracleInSimulator(t *testing.T) {
	const n = 2000
	budget := n / 3 / day
	ps := Ch4Pages(n, Poisson, 0.6, 3)
	cfg := sim.Config{Pages: ps, Seed: 3, Duration: 40 * day, WarmUp: 10 * day, Budget: budget}
	s := Setup{Pages: n, Budget: budget, Allocator: policy.OptimalFreshness{}}
	r, err := Run(context.Background(), cfg, "oracle", s)
	if err != nil {
		t.Fatal(err)
	}
	pages := make([]policy.Page, n)
	for i, p := range ps {
		pages[i] = policy.Page{Rate: p.Process.Rate, Weight: 1}
	}
	freq := make([]float64, n)
	if err := (policy.OptimalFreshness{}).Allocate(pages, budget, freq); err != nil {
		t.Fatal(err)
	}
	want, _ := policy.Collection(pages, freq)
	t.Logf("oracle freshness %.4f in the simulator, closed form %.4f", r.Freshness, want)
	if math.Abs(r.Freshness-want) > 0.01 {
		t.Errorf("oracle freshness %.4f in the simulator, closed form %.4f", r.Freshness, want)
	}
	// With known rates, default is the oracle: the same plan, the same
	// visits, the same numbers.
	s.KnownRates = true
	d, err := Run(context.Background(), cfg, "default", s)
	if err != nil {
		t.Fatal(err)
	}
	if d.Freshness != r.Freshness || d.Fetches != r.Fetches {
		t.Errorf("default with known rates: F %g, %d fetches; oracle %g, %d", d.Freshness, d.Fetches, r.Freshness, r.Fetches)
	}
}

// TestCompare runs every policy on a small workload over two seeds and
// checks the report's invariants: the oracle is 100 % of itself, no policy
// fetches more than the budget allows, the learning default beats uniform
// in each seed (measured: by 0.018 on average; the seeds draw different
// pages, so the spread of 0.015 between them is shared by all policies and
// the paired difference is what counts). That the report's plot renders,
// which simulate -plot draws, is checked by cmd/freshcrawl's
// TestSimulateRun.
func TestCompare(t *testing.T) {
	const n = 1000
	c := Comparison{
		Setup:    Setup{Pages: n, Budget: n / 3 / day, Allocator: policy.OptimalFreshness{}},
		Policies: []string{"default", "uniform", "proportional", "nutch", "stormcrawler"},
		Model:    Poisson, LastModified: 0.6, Days: 40, WarmUp: 20, Seeds: []uint64{11, 12},
	}
	rep, err := Compare(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 6 || rep.Rows[5].Policy != "oracle" {
		t.Fatalf("rows %d, last %q; want 6 ending with the oracle", len(rep.Rows), rep.Rows[len(rep.Rows)-1].Policy)
	}
	byName := map[string]Row{}
	for _, r := range rep.Rows {
		t.Logf("%-13s F %.4f ± %.4f", r.Policy, r.Freshness.Mean, r.Freshness.SD)
		byName[r.Policy] = r
		if max := c.Budget*(c.Days-c.WarmUp)*day + 1; r.Fetches.Mean > max {
			t.Errorf("%s: %g fetches, budget allows %g", r.Policy, r.Fetches.Mean, max)
		}
		if len(r.Series) != int(c.Days) {
			t.Errorf("%s: %d series points, want %g", r.Policy, len(r.Series), c.Days)
		}
	}
	if o := byName["oracle"].OfOracle; o.Mean != 1 || o.SD != 0 {
		t.Errorf("oracle of itself %+v", o)
	}
	for i, d := range byName["default"].PerSeed {
		if u := byName["uniform"].PerSeed[i]; d.Freshness <= u.Freshness {
			t.Errorf("seed %d: default freshness %.4f not above uniform's %.4f", c.Seeds[i], d.Freshness, u.Freshness)
		}
	}
	if _, err := Compare(context.Background(), Comparison{Policies: []string{"nope"}, Seeds: []uint64{1}}); err == nil {
		t.Error("unknown policy accepted")
	}
}

func TestParseModel(t *testing.T) {
	for _, m := range []Model{Poisson, Pareto, QuasiDeterministic, Mix} {
		if got, err := ParseModel(m.String()); err != nil || got != m {
			t.Errorf("%v: got %v, %v", m, got, err)
		}
	}
	if _, err := ParseModel("weibull"); err == nil {
		t.Error("unknown model accepted")
	}
}

// TestAdaptiveNeverPast checks that the adapter turns a next visit in the
// past into "now".
func TestAdaptiveNeverPast(t *testing.T) {
	a := NewAdaptive(visitorFunc(func(int, float64, change.Observation) float64 { return -5 }), 10)
	if got := a.Fetched(&sim.Fetch{Page: 0, Time: 3}); got != 3 {
		t.Errorf("next %g, want the fetch time 3", got)
	}
}

type visitorFunc func(int, float64, change.Observation) float64

func (f visitorFunc) Visit(i int, t float64, o change.Observation) float64 { return f(i, t, o) }

func timeSeconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// TestOracleGivenUp checks the oracle's given-up set on dissertation
// Example 5.4 (λ = 1, …, 5 changes a day, 5 visits a day): the printed
// freshness-optimal frequencies are 1.15, 1.36, 1.35, 1.14 and 0.00, so
// only the fastest page is given up. ShareTo is checked on hand counts.
func TestOracleGivenUp(t *testing.T) {
	pages := make([]sim.Page, 5)
	for i := range pages {
		pages[i] = sim.Page{Process: sim.PoissonProcess(float64(i+1) / day), Weight: 1, Host: int32(i)}
	}
	got, err := OracleGivenUp(pages, Setup{Pages: 5, Budget: 5 / day, Allocator: policy.OptimalFreshness{}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{false, false, false, false, true}; !slices.Equal(got, want) {
		t.Errorf("given up %v, want %v", got, want)
	}
	per := []sim.PageResult{{Fetches: 3}, {Fetches: 0}, {Fetches: 5}, {Fetches: 2}}
	if s := ShareTo(per, []bool{true, true, false, true}); s != 0.5 {
		t.Errorf("ShareTo = %g, want 5/10", s)
	}
	if s := ShareTo(per[1:2], []bool{true}); s != 0 {
		t.Errorf("ShareTo with no fetch = %g, want 0", s)
	}
}
