package schedule

import (
	"fmt"
	"math"
	"slices"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// Allocation says how Allocate divides a budget among pages.
type Allocation struct {
	// Rule is the allocation's rule: Uniform, Proportional, Freshness, Age
	// or Harmonic (the Poisson-crawl rules go in Baseline: under host
	// capacities they are refused). It is not used when Period is set.
	Rule Rule
	// Period, if set, makes the allocation paper 002's discrete one
	// (policy.Embarrassment): whole fetches per Period seconds to each
	// page and, under host limits, to each host (policy.GreedyCapped).
	Period float64
	// Baseline, if set, is another allocator (policy.LambdaCrawl,
	// policy.BinaryPoisson), which knows no host limits: it is refused
	// when a host's capacity is finite.
	Baseline policy.Allocator
}

// Allocate divides budget, in fetches per second, among pages, each host
// of hosts getting at most its capacity, and writes each page's
// frequency to freq. It returns the fetches per second spent: the budget,
// or less when the hosts allow less.
func (a Allocation) Allocate(pages []policy.Page, hosts Hosts, budget float64, freq []float64) (float64, error) {
	switch {
	case a.Baseline != nil:
		if slices.ContainsFunc(hosts.Capacity, func(c float64) bool { return !math.IsInf(c, 1) }) {
			return 0, fmt.Errorf("%w: this policy knows no host limits", policy.ErrInput)
		}
		return budget, a.Baseline.Allocate(pages, budget, freq)
	case a.Period > 0:
		return a.discrete(pages, hosts, budget, freq)
	case hosts.Of == nil && a.Rule == Uniform:
		return budget, policy.Uniform{}.Allocate(pages, budget, freq)
	case hosts.Of == nil && a.Rule == Proportional:
		return budget, policy.Proportional{}.Allocate(pages, budget, freq)
	}
	sol, err := Capped{Rule: a.Rule, Hosts: hosts}.Solve(pages, budget, freq)
	return sol.Spent, err
}

// discrete is paper 002's allocation of whole fetches per period.
func (a Allocation) discrete(pages []policy.Page, hosts Hosts, budget float64, freq []float64) (float64, error) {
	e := policy.Embarrassment{Period: a.Period}
	if hosts.Of == nil {
		if err := e.Allocate(pages, budget, freq); err != nil {
			return 0, err
		}
	} else {
		p, err := e.Problem(pages, budget)
		if err != nil {
			return 0, err
		}
		caps := make([]int, len(hosts.Capacity))
		for h, c := range hosts.Capacity {
			caps[h] = int(min(math.Floor(c*a.Period+1e-9), float64(p.Total)))
		}
		x, err := policy.GreedyCapped(p, hosts.Of, caps)
		if err != nil {
			return 0, err
		}
		for i, v := range x {
			freq[i] = float64(v) / a.Period
		}
	}
	var sum float64
	for _, f := range freq {
		sum += f
	}
	return sum, nil
}
