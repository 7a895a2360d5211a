package schedule

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// Capped divides a budget of visits per second among pages so that no host
// is visited more often than it allows: Σ_i f_i = B and Σ_{i∈h} f_i ≤ c_h
// for every host h, f_i ≥ 0.
//
// Rule is one of the Planner's rules. For Freshness (maximise
// Σ w_i F̄(λ_i, f_i), dissertation §5.5.4, weighted §5.6) and Age
// (minimise Σ w_i Ā(λ_i, f_i)) the result is the exact optimum, from the
// KKT conditions, as Kolobov et al. (SIGIR 2019) optimise under politeness
// constraints: page i on host h gets the uncapacitated optimum's frequency
// at the multiplier μ + η_h (policy.FreshnessFrequency or
// policy.AgeFrequency), where the host's own multiplier η_h ≥ 0 is
// positive only on a host the optimum saturates, and then brings its
// pages' sum down to c_h. A host whose cap does not bind keeps its pages
// exactly as in the uncapacitated optimum at the common μ. The objective
// is concave (convex for age) and the constraints linear, so this point is
// the global optimum. The frequency curves are evaluated from tables
// within 3e-10 of policy's (curve.go), which makes 10⁷ pages on 10⁵ hosts
// a matter of seconds on 2 cores (BenchmarkCapped).
//
// Uniform visits every page equally often (§5.3), except that a host whose
// pages would exceed its capacity gets exactly its capacity, shared
// equally among its pages, while the other hosts share the rest
// (water-filling); Proportional visits pages in proportion to their change
// rates, water-filled the same way, a saturated host's capacity shared by
// rate. Harmonic (policy.OptimalHarmonic) is solved host by host
// (cappedHarmonic). Cost needs no budget and is not supported.
//
// Pages that never change get no visits, as in policy; if no page changes
// the budget is spread as Uniform spreads it.
type Capped struct {
	Rule  Rule
	Hosts Hosts
}

// Solution is what a Capped allocation found besides the frequencies.
type Solution struct {
	// Spent is Σ f_i in visits per second: the budget, or less when the
	// budget exceeds what the hosts allow. That is Σ c_h over the hosts
	// with a page the policy visits (a page that changes, for Freshness,
	// Age and Proportional); the pages on no host have no limit.
	Spent float64
	// Multiplier is the common multiplier μ (Freshness: the marginal
	// weighted freshness of one more visit per second) or ν (Age), or the
	// water level of Uniform (visits per second per page) and Proportional
	// (visits per change) on the hosts that are not saturated. It is 0
	// when every host is saturated.
	Multiplier float64
	// Saturated[h] reports whether host h gets its whole capacity.
	Saturated []bool
	// HostMultiplier[h] is η_h for Freshness and Age (nil otherwise): host
	// h's pages get the frequencies of the multiplier Multiplier + η_h.
	// It is 0 unless the host is saturated, and +Inf for a host of
	// capacity 0.
	HostMultiplier []float64
}

// ErrOverCapacity reports a budget larger than the hosts allow; Allocate
// returns it after filling the frequencies with what can be spent.
var ErrOverCapacity = errors.New("schedule: budget exceeds the hosts' capacity")

// Allocate implements policy.Allocator: the frequencies sum to budget
// within policy.SumTolerance unless the hosts cannot take it, in which case
// freq holds the allocation of what they can take and the error wraps
// ErrOverCapacity.
func (a Capped) Allocate(pages []policy.Page, budget float64, freq []float64) error {
	s, err := a.Solve(pages, budget, freq)
	if err == nil && s.Spent < budget*(1-policy.SumTolerance) {
		err = fmt.Errorf("%w: %.6g visits/s asked, %.6g possible", ErrOverCapacity, budget, s.Spent)
	}
	return err
}

// Solve fills freq[i] with page i's visits per second and reports the
// multipliers. A budget above the hosts' capacity is not an error: every
// host then gets its capacity and Spent says how much that is.
func (a Capped) Solve(pages []policy.Page, budget float64, freq []float64) (Solution, error) {
	if err := checkPages(pages, budget, freq); err != nil {
		return Solution{}, err
	}
	if err := a.Hosts.check(len(pages)); err != nil {
		return Solution{}, err
	}
	nh := len(a.Hosts.Capacity)
	switch {
	case budget == 0:
		clear(freq)
		return Solution{Saturated: make([]bool, nh)}, nil
	case len(pages) == 0:
		return Solution{}, fmt.Errorf("%w: a positive budget for no pages", policy.ErrInput)
	}
	changing := slices.ContainsFunc(pages, func(p policy.Page) bool { return p.Rate > 0 })
	switch {
	case a.Rule == Cost || a.Rule > Harmonic:
		return Solution{}, fmt.Errorf("%w: rule %v with host capacities", policy.ErrInput, a.Rule)
	case a.Rule == Uniform || !changing:
		return waterfill(pages, a.Hosts, false, budget, freq), nil
	case a.Rule == Proportional:
		return waterfill(pages, a.Hosts, true, budget, freq), nil
	case a.Rule == Harmonic:
		return cappedHarmonic(pages, a.Hosts, budget, freq), nil
	default:
		res, err := newKKT(pages, a.Hosts, a.Rule == Age).solve(budget, freq)
		if err != nil {
			return Solution{}, err
		}
		return Solution{Spent: res.spent, Multiplier: res.multiplier,
			Saturated: res.saturated[:nh], HostMultiplier: res.eta[:nh]}, nil
	}
}

// checkPages validates an allocation request as policy's allocators do.
func checkPages(pages []policy.Page, budget float64, freq []float64) error {
	if len(freq) != len(pages) {
		return fmt.Errorf("%w: %d frequencies for %d pages", policy.ErrInput, len(freq), len(pages))
	}
	if !(budget >= 0) || math.IsInf(budget, 1) {
		return fmt.Errorf("%w: budget %v", policy.ErrInput, budget)
	}
	for i, p := range pages {
		if !(p.Rate >= 0) || math.IsInf(p.Rate, 1) || !(p.Weight >= 0) || math.IsInf(p.Weight, 1) {
			return fmt.Errorf("%w: page %d has rate %v, weight %v", policy.ErrInput, i, p.Rate, p.Weight)
		}
	}
	return nil
}

// waterfill is Uniform (size 1 a page) or Proportional (size λ) under the
// host caps. Host g of total size Z_g gets min(t·Z_g, c_g), shared among
// its pages by size, where the level t makes the hosts' shares sum to the
// budget: with the hosts sorted by the level c_g/Z_g at which they
// saturate, t is (B − Σ caps of the saturated)/(Σ sizes of the others) at
// the first host that this t does not saturate.
func waterfill(pages []policy.Page, hosts Hosts, prop bool, budget float64, freq []float64) Solution {
	size := func(i int) float64 {
		if prop {
			return pages[i].Rate
		}
		return 1
	}
	nh := len(hosts.Capacity)
	caps := append(hosts.Capacity[:nh:nh], math.Inf(1)) // the last group: no host
	z := make([]float64, nh+1)
	for i := range pages {
		z[hosts.group(i, nh)] += size(i)
	}
	order := make([]int, 0, nh+1)
	for g := range z {
		if z[g] > 0 {
			order = append(order, g)
		}
	}
	satLevel := func(g int) float64 { return caps[g] / z[g] }
	slices.SortFunc(order, func(a, b int) int { return cmpFloat(satLevel(a), satLevel(b)) })
	rest := make([]float64, len(order)+1) // rest[k] = Σ z over order[k:]
	for k := len(order) - 1; k >= 0; k-- {
		rest[k] = rest[k+1] + z[order[k]]
	}
	saturated := make([]bool, nh+1)
	level, used := 0.0, 0.0
	for k, g := range order {
		if t := (budget - used) / rest[k]; t <= satLevel(g) {
			level = t
			break
		}
		saturated[g] = true
		used += caps[g]
	}
	share := make([]float64, nh+1)
	for g := range share {
		share[g] = level
		if saturated[g] {
			share[g] = satLevel(g)
		}
	}
	var spent float64
	for i := range pages {
		freq[i] = size(i) * share[hosts.group(i, nh)]
		spent += freq[i]
	}
	return Solution{Spent: spent, Multiplier: level, Saturated: saturated[:nh]}
}

// cmpFloat orders floats ascending (no NaNs here).
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
