// Package sampling holds paper 004's download policies (Cho & Ntoulas,
// "Effective change detection using sampling", VLDB 2002; spec §C): which
// sites' pages to download in a cycle, from samples of their changes.
package sampling

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// This file and its siblings (adaptive.go, frequency.go) hold paper 004's download
// policies (Cho & Ntoulas, "Effective change detection using sampling",
// VLDB 2002; spec §C). Pages live in sites; once per download cycle a
// budget of R downloads is spent, and the aim is to download as many pages
// that changed since the last cycle as possible (ChangeRatio, §2.2). A
// sampling policy first downloads s random pages of every site, counts how
// many changed, and spends the rest of the budget on the sites whose
// samples changed most (§3.2). A sample costs a download and counts as one:
// a sampled page is not fetched again in the cycle, and its change counts
// (§3.1). Sites and pages are indices; the caller fetches, and random
// choices take the caller's *rand.Rand.

// ChangeRatio is paper 004's metric (§2.2): the share of a cycle's
// downloads, samples included, that found the page changed; 0 when nothing
// was downloaded.
func ChangeRatio(changed, downloaded int) float64 {
	if downloaded == 0 {
		return 0
	}
	return float64(changed) / float64(downloaded)
}

// WeightedChangeRatio is §2.2's weighted form Σ_{i∈R} w_i·1(o_i) over the
// downloaded set R, the weights normalised so that Σ_{i∈R} w_i = 1: the
// weight-share of the downloads that found a change. changed[i] says
// whether download i found its page changed; with equal weights it is
// ChangeRatio. It is 0 when the weights sum to 0.
func WeightedChangeRatio(weights []float64, changed []bool) float64 {
	var sum, hit float64
	for i, w := range weights {
		sum += w
		if changed[i] {
			hit += w
		}
	}
	if sum == 0 {
		return 0
	}
	return hit / sum
}

// A SiteSample is what one cycle's sampling found at a site.
type SiteSample struct {
	// Pages is the site's page count N_i; Sampled how many of them were
	// downloaded as samples this cycle, Changed how many of those had
	// changed since the last cycle.
	Pages, Sampled, Changed int
}

// Rho is ρ̂_i = Changed/Sampled, the estimate of the share of the site's
// pages that changed (§3.2: "probabilistically, 7/10 = 70% of the pages in
// site A would have changed"); 0 without samples.
func (s SiteSample) Rho() float64 {
	if s.Sampled == 0 {
		return 0
	}
	return float64(s.Changed) / float64(s.Sampled)
}

// Left is the site's pages not downloaded yet this cycle, Pages − Sampled.
func (s SiteSample) Left() int { return s.Pages - s.Sampled }

// ExpectedFound is the number of changed pages a cycle is expected to find
// when it downloads extra[i] more random pages of each site after the
// samples: the changes seen in the samples plus Σ extra_i·ρ̂_i, the
// reckoning of paper 004's Example 2 (§3.2).
func ExpectedFound(sites []SiteSample, extra []int) float64 {
	var e float64
	for i, s := range sites {
		e += float64(s.Changed) + float64(extra[i])*s.Rho()
	}
	return e
}

// A SamplingPolicy decides how a two-stage sampling policy spends what is
// left of the budget after the samples (paper 004 §3.2).
type SamplingPolicy int

const (
	// SampledGreedy downloads every remaining page of the site with the
	// highest ρ̂, then of the next, until the budget runs out (§3.2 item 2).
	// It maximises ExpectedFound for any budget (Theorem 1: the fractional
	// knapsack whose values per page are the ρ̂_i), at the price of betting
	// the whole budget on the estimates.
	SampledGreedy SamplingPolicy = iota
	// SampledProportional splits the budget in proportion to each site's
	// estimated changed pages left, ρ̂_i·(N_i − s_i), which for sites of
	// equal size and sample is the paper's "proportionally to its number of
	// changed samples" (§3.2 item 1). A site's share is capped at its pages
	// left and the excess goes to the others in the same proportion; when
	// no sample changed, the budget goes in proportion to the pages left,
	// as round-robin would.
	SampledProportional
)

// String names the policy as the paper does.
func (p SamplingPolicy) String() string {
	switch p {
	case SampledGreedy:
		return "greedy"
	case SampledProportional:
		return "proportional"
	}
	return fmt.Sprintf("SamplingPolicy(%d)", int(p))
}

// Allocate returns how many more pages, beyond its samples, to download
// from each site; they sum to min(budget, Σ Left). Greedy breaks ties
// between sites of equal ρ̂ in an order drawn from rng (with s = 0 it
// "selects a random site", §3.3); proportional rounds its shares by
// largest remainder, ties to the lower index, and does not use rng.
func (p SamplingPolicy) Allocate(sites []SiteSample, budget int, rng *rand.Rand) []int {
	tie := make([]int, len(sites))
	if p == SampledGreedy {
		for i, j := range rng.Perm(len(sites)) {
			tie[j] = i
		}
	}
	shares := p.shares(sites, float64(budget), tie)
	if p == SampledGreedy {
		out := make([]int, len(sites))
		for i, x := range shares {
			out[i] = int(x)
		}
		return out
	}
	return roundShares(shares)
}

// shares is the unrounded allocation; tie[i] is site i's rank among sites
// of equal ρ̂ under greedy (lower first).
func (p SamplingPolicy) shares(sites []SiteSample, budget float64, tie []int) []float64 {
	out := make([]float64, len(sites))
	if p == SampledGreedy {
		order := make([]int, len(sites))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int {
			if c := cmp.Compare(sites[b].Rho(), sites[a].Rho()); c != 0 {
				return c
			}
			return tie[a] - tie[b]
		})
		for _, i := range order {
			out[i] = min(budget, float64(sites[i].Left()))
			budget -= out[i]
		}
		return out
	}
	w := make([]float64, len(sites))
	caps := make([]float64, len(sites))
	for i, s := range sites {
		caps[i] = float64(s.Left())
		w[i] = s.Rho() * caps[i]
	}
	left := waterFill(w, caps, budget, out)
	if left > 0 {
		// Nothing changed in the samples of the sites still open: spread
		// the rest by pages left.
		for i := range w {
			w[i] = caps[i] - out[i]
			caps[i] = w[i]
		}
		extra := make([]float64, len(sites))
		waterFill(w, caps, left, extra)
		for i := range out {
			out[i] += extra[i]
		}
	}
	return out
}

// waterFill adds to out shares of budget in proportion to w, none above
// its cap, handing a capped site's excess to the others in proportion; it
// returns the budget it could not place (all weight capped or zero).
func waterFill(w, caps []float64, budget float64, out []float64) float64 {
	open := make([]bool, len(w))
	for i := range w {
		open[i] = w[i] > 0 && caps[i] > 0
	}
	for budget > 1e-9 {
		var sum float64
		for i, ok := range open {
			if ok {
				sum += w[i]
			}
		}
		if sum == 0 {
			return budget
		}
		capped := false
		for i, ok := range open {
			if ok && budget*w[i]/sum >= caps[i] {
				out[i], open[i], capped = caps[i], false, true
				budget -= caps[i]
			}
		}
		if capped {
			continue
		}
		for i, ok := range open {
			if ok {
				out[i] = budget * w[i] / sum
			}
		}
		return 0
	}
	return max(budget, 0)
}

// roundShares rounds shares to integers with the same (integral) sum: the
// floors, and one more for the largest remainders, ties to the lower
// index. No share exceeds its ceiling, so a share capped at an integer
// stays within its cap.
func roundShares(shares []float64) []int {
	out := make([]int, len(shares))
	var sum float64
	idx := make([]int, 0, len(shares))
	for i, x := range shares {
		out[i] = int(math.Floor(x + 1e-9))
		sum += x - float64(out[i])
		idx = append(idx, i)
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Compare(shares[b]-float64(out[b]), shares[a]-float64(out[a]))
	})
	for _, i := range idx[:min(len(idx), int(math.Round(sum)))] {
		out[i]++
	}
	return out
}

// Expected is the exact expected ChangeRatio of one cycle of policy p over
// sites of pages[i] pages, changed[i] of which changed, when s random pages
// of every site are sampled and the rest of budget is allocated on the
// samples. It enumerates the sampling outcomes, hypergeometric per site,
// so it is for a handful of sites (Fig. 1 of paper 004 has two); the pages
// downloaded after sampling are random among the site's unsampled ones.
// Greedy's tie-break is averaged over all orders; proportional's shares
// are taken unrounded, which is what rounding up or down at random gives
// in expectation (rounding moves Fig. 1 by less than 5e-4).
func (p SamplingPolicy) Expected(pages, changed []int, s, budget int) (float64, error) {
	n := len(pages)
	if n == 0 || len(changed) != n || s < 0 || budget < s*n || budget <= 0 {
		return 0, fmt.Errorf("%w: %d sites, %d changed counts, s = %d, budget %d", policy.ErrInput, n, len(changed), s, budget)
	}
	outcomes := 1.0
	for i := range pages {
		if s > pages[i] || changed[i] < 0 || changed[i] > pages[i] {
			return 0, fmt.Errorf("%w: site %d has %d pages, %d changed, s = %d", policy.ErrInput, i, pages[i], changed[i], s)
		}
		outcomes *= float64(s + 1)
	}
	orders := [][]int{make([]int, n)}
	if p == SampledGreedy {
		orders = permutations(n)
	}
	if outcomes*float64(len(orders)) > 1e7 {
		return 0, fmt.Errorf("%w: %g outcomes to enumerate", policy.ErrInput, outcomes*float64(len(orders)))
	}
	sites := make([]SiteSample, n)
	pmf := make([][]float64, n)
	for i := range sites {
		sites[i] = SiteSample{Pages: pages[i], Sampled: s}
		pmf[i] = make([]float64, s+1)
		for x := range pmf[i] {
			pmf[i][x] = hypergeometric(pages[i], changed[i], s, x)
		}
	}
	left := float64(budget - s*n)
	var total float64
	x := make([]int, n)
	for {
		prob := 1.0
		for i := range x {
			prob *= pmf[i][x[i]]
			sites[i].Changed = x[i]
		}
		if prob > 0 {
			var found float64
			for _, tie := range orders {
				d := p.shares(sites, left, tie)
				for i, si := range sites {
					found += float64(x[i])
					if si.Left() > 0 {
						found += d[i] * float64(changed[i]-x[i]) / float64(si.Left())
					}
				}
			}
			total += prob * found / float64(len(orders))
		}
		// Next outcome, odometer order.
		i := 0
		for ; i < n && x[i] == s; i++ {
			x[i] = 0
		}
		if i == n {
			break
		}
		x[i]++
	}
	return total / float64(budget), nil
}

// hypergeometric is the probability that s pages drawn without
// replacement from n, c of them changed, hold x changed ones.
func hypergeometric(n, c, s, x int) float64 {
	if x < 0 || x > s || x > c || s-x > n-c {
		return 0
	}
	return math.Exp(lchoose(c, x) + lchoose(n-c, s-x) - lchoose(n, s))
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// permutations returns every ordering of 0..n−1 as rank slices.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for pos := 0; pos < n; pos++ {
			q := make([]int, 0, n)
			q = append(q, p[:pos]...)
			q = append(q, n-1)
			q = append(q, p[pos:]...)
			out = append(out, q)
		}
	}
	return out
}

// OptimalSampleSize is paper 004's Theorem 2, the approximate optimal
// sample size per site of the greedy policy,
//
//	s ≈ sqrt(N·r·f(ρ_t) / (6·(ρ̄_r − ρ̄))),
//
// for sites of n pages on average, a budget of r times all pages, f the
// density of the sites' changed shares ρ at the threshold ρ_t above which
// the top r of the sites lie, meanTop = ρ̄_r the mean ρ of those sites and
// mean = ρ̄ that of all. The paper states it as an approximation; the tests
// measure how far it is from the exact optimum.
func OptimalSampleSize(n, r, density, meanTop, mean float64) float64 {
	return math.Sqrt(n * r * density / (6 * (meanTop - mean)))
}

// SampleSizeRule is paper 004's rule of thumb for the sample size when the
// distribution of ρ is unknown, sqrt(N·r) (§3.3): Theorem 2's dependence on
// the page count and the budget, "within a constant factor" of the optimum.
func SampleSizeRule(n, r float64) float64 { return math.Sqrt(n * r) }

// SubsetGroups partitions sites 0..len(pages)−1, in index order, into
// consecutive groups of about groupPages pages each, for paper 004's subset
// sampling (§3.5): when the budget cannot sample every site well, each
// cycle samples and downloads greedily within one group, the groups taken
// in turn. The paper sizes a group so that the budget covers the share of
// its pages in high-ρ sites (18% of the pages in its experiments, §4.4),
// i.e. groupPages ≈ R/0.18. There is at least one group and none is empty.
func SubsetGroups(pages []int, groupPages int) [][]int {
	total := 0
	for _, p := range pages {
		total += p
	}
	m := 1
	if groupPages > 0 {
		m = max(1, int(math.Round(float64(total)/float64(groupPages))))
	}
	m = min(m, len(pages))
	groups := make([][]int, 0, m)
	var cur []int
	acc := 0
	for i, p := range pages {
		cur = append(cur, i)
		acc += p
		// Cut where the running total passes the next m-th of the pages,
		// keeping a site for each group still to come.
		g := len(groups) + 1
		if g < m && (float64(acc) >= float64(g)*float64(total)/float64(m) || len(pages)-i-1 == m-g) {
			groups = append(groups, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	return groups
}
