package reproduce

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/policy/sampling"
	"github.com/freshcrawl/freshcrawl/internal/sim/simpolicy"
)

// TestVShapedWorld checks the mix of spec §C.11: 45 of 252 sites with ρ in
// [0.9, 1), 91 in [0, 0.1), the rest in [0.1, 0.9); a mean ρ within 0.015
// (three standard deviations of a 252-site draw) of the mix's 0.18·0.95 +
// 0.36·0.05 + 0.46·(0.1 + 0.8/6) = 0.2963; each cycle's changed pages
// within four binomial standard deviations of Σρ_i·N; and the period
// repeating.
func TestVShapedWorld(t *testing.T) {
	w := VShapedWorld(252, 1400, 5, rand.New(rand.NewPCG(1, 1)))
	high, low := 0, 0
	var sum, v float64
	for _, r := range w.Rho {
		switch {
		case r >= 0.9:
			high++
		case r < 0.1:
			low++
		}
		sum += r * 1400
		v += r * (1 - r) * 1400
	}
	if high != 45 || low != 91 {
		t.Errorf("%d high and %d low sites, want 45 and 91", high, low)
	}
	if m := sum / 1400 / 252; math.Abs(m-0.2963) > 0.015 {
		t.Errorf("mean ρ %.4f, mix 0.2963", m)
	}
	for c := range 5 {
		if d := float64(w.Changed(c)) - sum; math.Abs(d) > 4*math.Sqrt(v) {
			t.Errorf("cycle %d: %d changed, expected %.0f ± %.0f", c, w.Changed(c), sum, math.Sqrt(v))
		}
	}
	if w.Changed(7) != w.Changed(2) || w.Total() != 352800 {
		t.Errorf("cycle 7 has %d changed, cycle 2 %d; %d pages", w.Changed(7), w.Changed(2), w.Total())
	}
}

// twoSites is Fig. 1's world of paper 004: two sites of 100 pages with 70
// and 20 changed in every cycle, at random pages.
func twoSites(rng *rand.Rand) *SamplingWorld {
	w := &SamplingWorld{Pages: []int{100, 100}, Rho: []float64{0.7, 0.2}, Start: []int{0, 100},
		changed: [][]bool{make([]bool, 200)}, count: [][]int{{70, 20}}}
	for i, k := range []int{70, 20} {
		for _, p := range rng.Perm(100)[:k] {
			w.changed[0][100*i+p] = true
		}
	}
	return w
}

// TestRunSampledExpected checks the simulated cycles against policy's exact
// expectation on Fig. 1's sites (§3.3) at s = 3 and 10, within four
// standard errors of 20,000 cycles (plus 5e-4 for proportional's rounding):
// the runner samples and downloads without replacement, counts samples as
// downloads, and spends the whole budget.
func TestRunSampledExpected(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	w := twoSites(rng)
	for _, p := range []sampling.SamplingPolicy{sampling.SampledGreedy, sampling.SampledProportional} {
		for _, s := range []int{3, 10} {
			want, err := p.Expected([]int{100, 100}, []int{70, 20}, s, 100)
			if err != nil {
				t.Fatal(err)
			}
			st := simpolicy.StatOf(w.RunSampled(p, s, 100, 20000, rng))
			if se := st.SD / math.Sqrt(20000); math.Abs(st.Mean-want) > 4*se+5e-4 {
				t.Errorf("%v s = %d: simulated %.4f ± %.4f, exact %.4f", p, s, st.Mean, se, want)
			}
		}
	}
}

// TestRunWholeBudget checks the bookkeeping where the answer is exact: with
// a budget of every page, round-robin, greedy, proportional and adaptive
// all download each page once and find exactly the pages changed; the
// oracle's ratio is changed/budget once the budget exceeds them; and
// the frequency-based policy is round-robin while it makes its first pass
// (§4.2: 352,800 pages at 100,000 a cycle take three full cycles).
func TestRunWholeBudget(t *testing.T) {
	w := VShapedWorld(20, 300, 3, rand.New(rand.NewPCG(2, 2)))
	all := w.Total()
	rng := rand.New(rand.NewPCG(3, 3))
	runs := map[string][]float64{
		"round-robin":  w.RunRoundRobin(all, 3),
		"greedy":       w.RunSampled(sampling.SampledGreedy, 10, all, 3, rng),
		"proportional": w.RunSampled(sampling.SampledProportional, 10, all, 3, rng),
		"adaptive":     w.RunAdaptive(sampling.AdaptiveSampling{}, all, 3, rng),
		"subset":       w.RunSubset(all, 10, all, 3, rng),
	}
	for name, got := range runs {
		for c, r := range got {
			if want := float64(w.Changed(c)) / float64(all); r != want {
				t.Errorf("%s cycle %d: %v, want %v", name, c, r, want)
			}
		}
	}
	if got, want := w.Oracle(2*all, 0), float64(w.Changed(0))/float64(2*all); got != want {
		t.Errorf("oracle at twice the pages: %v, want %v", got, want)
	}
	big := VShapedWorld(252, 1400, 5, rand.New(rand.NewPCG(5, 5)))
	frq, rr := big.RunFrequency(100000, 4), big.RunRoundRobin(100000, 4)
	for c := range 3 {
		if frq[c] != rr[c] {
			t.Errorf("cycle %d: frequency-based %v, round-robin %v", c, frq[c], rr[c])
		}
	}
	if frq[3] <= rr[3] {
		t.Errorf("cycle 4: frequency-based %v not above round-robin %v once it has history", frq[3], rr[3])
	}
}

// TestFrequencyLimit checks Σp²/Σp on a world whose pages change in a known
// number of its cycles: four pages changing in 0, 1, 2 and 2 of 2 cycles
// give p = 0, 0.5, 1, 1 and (0.25 + 1 + 1)/2.5 = 0.9.
func TestFrequencyLimit(t *testing.T) {
	w := &SamplingWorld{Pages: []int{4}, Rho: []float64{0.5}, Start: []int{0},
		changed: [][]bool{{false, true, true, true}, {false, false, true, true}}, count: [][]int{{3}, {2}}}
	if got := w.FrequencyLimit(); math.Abs(got-0.9) > 1e-15 {
		t.Errorf("FrequencyLimit = %v, want 0.9", got)
	}
}
