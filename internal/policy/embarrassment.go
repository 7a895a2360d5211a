package policy

import (
	"fmt"
	"math"
)

// An UpdateModel is a page's update process in paper 002's renewal
// framework (§3.1): inter-update times i.i.d. with distribution G and mean
// 1/λ, in equilibrium.
type UpdateModel interface {
	// StaleFraction is h(τ)/τ, the expected fraction of an interval of
	// length tau (seconds) after a visit during which the copy is stale.
	// The staleness probability s seconds after a visit is the equilibrium
	// forward-recurrence CDF p(s) = 1 − λ∫_s^∞ Ḡ(u)du (paper 002 eq. 3) and
	// h(τ) = ∫_0^τ p(s)ds. It is 1 for an infinite tau.
	StaleFraction(tau float64) float64
}

// PoissonUpdates is the exponential update model, Ḡ(t) = e^{−λt} (paper 002
// §3.2). Its stale fraction 1 − (1 − e^{−λτ})/(λτ) is 1 − F̄(λ, 1/τ), Cho's
// fixed-order staleness.
type PoissonUpdates struct{ Rate float64 }

// StaleFraction implements UpdateModel (paper 002 eq. 10 over one interval).
func (m PoissonUpdates) StaleFraction(tau float64) float64 {
	if math.IsInf(tau, 1) {
		return 1
	}
	return 1 - Freshness(FixedOrder, m.Rate, 1/tau)
}

// ParetoUpdates is the heavy-tailed update model paper 002 fits to some
// Nagano Olympics pages: Ḡ(t) = (β/(β + t))^α, mean β/(α − 1), so λ =
// (α − 1)/β. Alpha must exceed 1 for the mean, and the framework, to exist;
// Beta is in seconds.
type ParetoUpdates struct{ Alpha, Beta float64 }

// Rate is λ = (α − 1)/β, the mean update rate.
func (m ParetoUpdates) Rate() float64 { return (m.Alpha - 1) / m.Beta }

// StaleFraction implements UpdateModel: with p(s) = 1 − (1 + s/β)^{−(α−1)},
// h(τ)/τ = 1 − β[(1 + τ/β)^{2−α} − 1]/((2 − α)τ), and
// 1 − (β/τ)ln(1 + τ/β) at α = 2 (spec B.2, derived from paper 002 eq. 3).
func (m ParetoUpdates) StaleFraction(tau float64) float64 {
	if math.IsInf(tau, 1) {
		return 1
	}
	if tau == 0 {
		return 0
	}
	l := math.Log1p(tau / m.Beta)
	if m.Alpha == 2 {
		return 1 - m.Beta/tau*l
	}
	// expm1 keeps the digits for α near 2 and for small τ/β.
	return 1 - m.Beta*math.Expm1((2-m.Alpha)*l)/((2-m.Alpha)*tau)
}

// Staleness is 𝒜(x) for a page of update model m crawled x times in a
// scheduling period of period seconds with the crawls equally spaced, which
// is optimal for any G (paper 002 §3.2 and spec B.2: p is increasing, so h
// is convex and Jensen's inequality gives equal spacing).
//
// freshStart chooses the paper's convention: the copy is taken as fresh at
// the start of the period for free (t_{i,0} ≡ 0), so x crawls make x + 1
// intervals of T/(x + 1) and eq. 14 reads
// 𝒜(x) = 1 + ((x + 1)/(λT))(e^{−λT/(x+1)} − 1) for Poisson. Without it (the
// steady state the crawler and simulator run in) x crawls per period make x
// intervals of T/x and 𝒜(0) = 1; then a Poisson page's 𝒜(x) is exactly
// 1 − F̄(λ, x/T), Cho's fixed-order staleness.
func Staleness(m UpdateModel, period float64, x int, freshStart bool) float64 {
	k := float64(x)
	if freshStart {
		k++
	}
	if k == 0 {
		return 1
	}
	return m.StaleFraction(period / k)
}

// Embarrassment is paper 002's allocator (Wolf et al., §3–4): it hands out
// R = round(budget·Period) whole crawls per scheduling period so as to
// minimise Σ w_i·𝒜_i(x_i), each page's crawls equally spaced. With the
// embarrassment weights of EmbarrassmentWeight as Page.Weight the objective
// is the expected embarrassment rate; with weight 1 it is average
// staleness. Frequencies are x_i/Period, so they sum to the budget within
// 1/(2·Period) (rounding R).
type Embarrassment struct {
	// Period is the scheduling interval T in seconds; zero means one day.
	Period float64
	// Models are the pages' update models; nil means PoissonUpdates at
	// each page's Rate.
	Models []UpdateModel
	// MaxPerPage caps crawls per page per period (the paper's M_i, which
	// protects small sites); zero means no cap.
	MaxPerPage int
	// FreshStart evaluates 𝒜 in the paper's convention (see Staleness)
	// instead of the steady state.
	FreshStart bool
	// Exact uses Threshold instead of Greedy; both are exact, Threshold is
	// faster when crawls per page are many.
	Exact bool
}

// Allocate implements Allocator.
func (e Embarrassment) Allocate(pages []Page, budget float64, freq []float64) error {
	if err := check(pages, budget, freq); err != nil {
		return err
	}
	x, err := e.Crawls(pages, budget)
	if err != nil {
		return err
	}
	period := e.period()
	for i := range freq {
		freq[i] = float64(x[i]) / period
	}
	return nil
}

func (e Embarrassment) period() float64 {
	if e.Period == 0 {
		return 86400
	}
	return e.Period
}

// Problem is the discrete problem Allocate solves for budget visits per
// second: R = round(budget·Period) crawls, Cost(i, x) = w_i·𝒜_i(x).
func (e Embarrassment) Problem(pages []Page, budget float64) (DiscreteProblem, error) {
	if e.Models != nil && len(e.Models) != len(pages) {
		return DiscreteProblem{}, fmt.Errorf("%w: %d update models for %d pages", ErrInput, len(e.Models), len(pages))
	}
	period := e.period()
	models := e.Models
	if models == nil {
		models = make([]UpdateModel, len(pages))
		for i, p := range pages {
			models[i] = PoissonUpdates{p.Rate}
		}
	}
	p := DiscreteProblem{
		N:     len(pages),
		Total: int(math.Round(budget * period)),
		Cost: func(i, x int) float64 {
			return pages[i].weight() * Staleness(models[i], period, x, e.FreshStart)
		},
	}
	if e.MaxPerPage > 0 {
		p.Max = make([]int, len(pages))
		for i := range p.Max {
			p.Max[i] = e.MaxPerPage
		}
	}
	return p, nil
}

// Crawls is the number of crawls per period each page gets.
func (e Embarrassment) Crawls(pages []Page, budget float64) ([]int, error) {
	p, err := e.Problem(pages, budget)
	if err != nil {
		return nil, err
	}
	if e.Exact {
		return Threshold(p)
	}
	return Greedy(p)
}

// EmbarrassmentWeight is paper 002's embarrassment weight of a page (§2,
// eq. 8): w = d·Σ_j Σ_k c_{j,k}·b_{j,k}, where returned[k][j] is b, the
// probability the page is returned at position j of result page k,
// clicks[k][j] is c, the click frequency at that position, and d is the
// probability that a clicked stale copy gives a wrong answer. The two grids
// must have the same shape.
func EmbarrassmentWeight(d float64, returned, clicks [][]float64) (float64, error) {
	if len(returned) != len(clicks) {
		return 0, fmt.Errorf("%w: %d result pages returned, %d clicked", ErrInput, len(returned), len(clicks))
	}
	var s float64
	for k := range returned {
		if len(returned[k]) != len(clicks[k]) {
			return 0, fmt.Errorf("%w: result page %d has %d positions returned, %d clicked", ErrInput, k, len(returned[k]), len(clicks[k]))
		}
		for j := range returned[k] {
			s += clicks[k][j] * returned[k][j]
		}
	}
	return d * s, nil
}
