package policy

import (
	"errors"
	"fmt"
	"math"
)

// Page is what an Allocator knows of one page.
type Page struct {
	// Rate is the page's change rate λ in changes per second (≥ 0).
	Rate float64
	// Weight is the page's importance w (§5.6), e.g. its access frequency.
	// Zero counts as 1, the unweighted model; it must not be negative.
	Weight float64
}

// weight is p.Weight with the zero value read as 1.
func (p Page) weight() float64 {
	if p.Weight == 0 {
		return 1
	}
	return p.Weight
}

// SumTolerance is the relative tolerance within which the continuous
// allocators' frequencies sum to the budget: |Σ freq − budget| ≤
// SumTolerance·budget. Embarrassment, which allocates whole crawls per
// period, documents its own rounding.
const SumTolerance = 1e-9

// An Allocator divides a budget of visits among pages.
type Allocator interface {
	// Allocate fills freq[i] with page i's visit frequency in visits per
	// second, so that the frequencies sum to budget (total visits per
	// second) within the allocator's documented tolerance. freq must have
	// len(pages) elements.
	Allocate(pages []Page, budget float64, freq []float64) error
}

// ErrInput reports an allocation request that cannot be served: a negative,
// infinite or NaN budget, rate or weight, or freq of the wrong length.
var ErrInput = errors.New("policy: invalid allocation input")

// check validates an allocation request.
func check(pages []Page, budget float64, freq []float64) error {
	if len(freq) != len(pages) {
		return fmt.Errorf("%w: %d frequencies for %d pages", ErrInput, len(freq), len(pages))
	}
	if !(budget >= 0) || math.IsInf(budget, 1) {
		return fmt.Errorf("%w: budget %v", ErrInput, budget)
	}
	for i, p := range pages {
		if !(p.Rate >= 0) || math.IsInf(p.Rate, 1) || !(p.Weight >= 0) || math.IsInf(p.Weight, 1) {
			return fmt.Errorf("%w: page %d has rate %v, weight %v", ErrInput, i, p.Rate, p.Weight)
		}
	}
	return nil
}

// Uniform visits every page equally often, f_i = budget/N, whatever its
// rate or weight (§5.3). Under fixed order it beats Proportional on both
// freshness and age for any rates (Theorems 5.3 and 5.4).
type Uniform struct{}

// Allocate implements Allocator; the sum is exact up to rounding.
func (Uniform) Allocate(pages []Page, budget float64, freq []float64) error {
	if err := check(pages, budget, freq); err != nil {
		return err
	}
	for i := range freq {
		freq[i] = budget / float64(len(pages))
	}
	return nil
}

// Proportional visits each page in proportion to its change rate, so
// λ_i/f_i is the same for every page (§5.3). It is the intuitive policy the
// dissertation shows to be a pitfall (§5.5). If no page changes it falls
// back to Uniform.
type Proportional struct{}

// Allocate implements Allocator; the sum is exact up to rounding.
func (Proportional) Allocate(pages []Page, budget float64, freq []float64) error {
	if err := check(pages, budget, freq); err != nil {
		return err
	}
	var total float64
	for _, p := range pages {
		total += p.Rate
	}
	if total == 0 {
		return Uniform{}.Allocate(pages, budget, freq)
	}
	for i, p := range pages {
		freq[i] = budget * (p.Rate / total)
	}
	return nil
}

// Collection returns the weighted time-averaged freshness and age (seconds)
// of a collection whose pages are synced in fixed order at freq (Definition
// 5.4 and Theorem 5.1: Σ w_i F̄(λ_i, f_i)/Σ w_i, likewise for Ā). The age is
// infinite if a page that changes is never visited.
func Collection(pages []Page, freq []float64) (freshness, age float64) {
	var sw float64
	for i, p := range pages {
		w := p.weight()
		sw += w
		freshness += w * Freshness(FixedOrder, p.Rate, freq[i])
		age += w * Age(FixedOrder, p.Rate, freq[i])
	}
	if sw == 0 {
		return 1, 0
	}
	return freshness / sw, age / sw
}
