package refresh

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/schedule"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// TestSharePlan checks a cluster's shared plan against one crawl of the
// same pages (issue 18: "the cluster's allocation equals the
// single-process one"): three partitions that plan at SharePlan's
// parameter give every page the interval one module holding them all
// gives it, under each planned objective; each partition's budget is its
// pages' visits a second at those intervals (brute force, a page at a
// time) plus the discovery budget in proportion to its queue; the
// budgets add up to the cluster's. Pages sit at their bins' centres, so
// the histogram is exact. A fifth of the pages are signalled (a trusted
// sitemap's), whose load is their pulls and probes, under the policy
// that acts on signals.
func TestSharePlan(t *testing.T) {
	const budget = 10.0
	queued := []int64{500, 0, 1500}
	for _, cfg := range []Config{{}, {Objective: Age}, {Policy: Proportional}, {Policy: LambdaCrawl}, {Policy: BinaryPoisson}} {
		rng := rand.New(rand.NewPCG(3, 9))
		var pages [3][]store.Page
		for i := range 6000 {
			rate := binCentre(schedule.BinOf(math.Pow(10, -6+3*rng.Float64()), 1).Rate)
			w := binCentre(schedule.BinOf(1, math.Pow(2, -2+4*rng.Float64())).Weight)
			p := comparedPage(t, rate, w)
			p.Signalled = i%5 == 0
			pages[i%3] = append(pages[i%3], p)
		}
		whole := cfg
		whole.Budget = budget
		one := openTest(t, whole, fixedSize{held: 6000, queued: 2000})
		parts := make([]*Module, 3)
		shares := make([]Share, 3)
		for k := range parts {
			pc := cfg
			pc.Budget = budget / 3
			parts[k] = openTest(t, pc, fixedSize{held: int64(len(pages[k])), queued: queued[k]})
			for _, p := range pages[k] {
				bin := schedule.BinOf(p.Rate, p.Weight)
				bin.Signalled = cfg.signalled(&p)
				parts[k].planner.Add(bin, 1)
				one.planner.Add(bin, 1)
			}
			shares[k] = parts[k].Share()
		}
		plan, budgets, err := SharePlan(whole, shares)
		if err != nil {
			t.Fatal(err)
		}
		if plan.Uniform != one.Uniform() {
			t.Fatalf("%s: uniform %v, one crawl's %v", cfg.Objective, plan.Uniform, one.Uniform())
		}
		revisits := 6000 / one.Uniform().Seconds() // 7.5 a second; 2.5 for discovery
		sum := 0.0
		for k, m := range parts {
			m.SetShared(plan)
			load := 0.0
			for _, p := range pages[k] {
				got, want := m.plan(&p), one.plan(&p)
				if math.Abs(got-want) > 1e-9*want {
					t.Fatalf("%s %s: partition %d plans a page of rate %g every %gs, one crawl every %gs", cfg.Policy, cfg.Objective, k, p.Rate, got, want)
				}
				if cfg.signalled(&p) {
					load += m.planner.SignalRate(p.Rate, p.Weight) + 1/want
					continue
				}
				load += 1 / want
			}
			want := load + (budget-revisits)*float64(queued[k])/2000
			if math.Abs(budgets[k]-want) > 1e-5*budget { // the planner solves its load to 1e-5 of the budget
				t.Errorf("%s %s: partition %d budget %g, want %g", cfg.Policy, cfg.Objective, k, budgets[k], want)
			}
			sum += budgets[k]
		}
		if math.Abs(sum-budget) > 1e-9*budget {
			t.Errorf("budgets add up to %g, want %g", sum, budget)
		}
		parts[0].SetShared(Shared{})
		p := pages[0][0]
		if got, want := parts[0].plan(&p), one.plan(&p); math.Abs(got-want) < 1e-3*want {
			t.Errorf("%s: back on its own plan, partition 0 still plans as the cluster (%gs)", cfg.Objective, got)
		}
	}
}

// TestSharePlanBudgets checks the split without a planner and its edges:
// under the uniform policy a partition's budget is its pages' share of
// the revisits, less what its hosts cannot take, plus its queue's of the
// discovery; a partition with
// nothing gets a hundredth of an even share, not nothing (a limiter of
// rate 0 has no limit); bad shares are refused.
func TestSharePlanBudgets(t *testing.T) {
	cfg := Config{Policy: Uniform, Budget: 4}
	plan, budgets, err := SharePlan(cfg, []Share{{Held: 300}, {Held: 100, Queued: 400}, {}})
	if err != nil {
		t.Fatal(err)
	}
	// 800 pages at 4 a second: every 200 s; revisits 2 a second.
	even := 4.0 / 3 / 100
	scale := 4 / (4 + even)
	want := []float64{1.5 * scale, 2.5 * scale, even * scale}
	if plan.Uniform.Seconds() != 200 || plan.Param != 0 {
		t.Errorf("plan %+v, want every 200 s and no parameter", plan)
	}
	for i := range want {
		if math.Abs(budgets[i]-want[i]) > 1e-9 {
			t.Errorf("partition %d: budget %g, want %g", i, budgets[i], want[i])
		}
	}
	// Excess: the 0.5 a second partition 0's hosts cannot take, which its
	// planner would divide on top of the revisits, comes off its share
	// (whole, as it is under the revisit budget): 1.5 − 0.5 against 2.5.
	_, budgets, err = SharePlan(cfg, []Share{{Held: 300, Excess: 0.5}, {Held: 100, Queued: 400}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{4 * 1.0 / 3.5, 4 * 2.5 / 3.5}; math.Abs(budgets[0]-want[0]) > 1e-9 || math.Abs(budgets[1]-want[1]) > 1e-9 {
		t.Errorf("with excess: budgets %v, want %v", budgets, want)
	}
	for _, bad := range [][]Share{nil, {{Held: -1}}, {{Excess: math.NaN()}}, {{Held: 1, Bins: [][3]int64{{1 << 20, 0, 1}}}}} {
		if _, _, err := SharePlan(Config{Budget: 1}, bad); err == nil {
			t.Errorf("shares %v: no error", bad)
		}
	}
}

// binCentre is the value schedule's bin k stands for.
func binCentre(k int16) float64 { return math.Exp2((float64(k) + 0.5) / 64) }

// comparedPage is a held page of the given rate and weight compared often
// enough, and seen both changed and not, that its plan is the planner's.
func comparedPage(t *testing.T, rate, w float64) store.Page {
	t.Helper()
	var st change.Stats
	for i := range 2 * explore {
		st.Add(change.Observation{Interval: 100, Changed: i%2 == 0, SinceModified: -1}, float64(100*(i+1)))
	}
	b, err := st.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return store.Page{Held: true, Rate: rate, Weight: w, Change: b}
}
