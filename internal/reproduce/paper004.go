package reproduce

// Paper 004 (Cho & Ntoulas): the sampling world its experiments replay,
// and the policies run on it. The experiments are in paper004_runs.go.

import (
	"math"
	"math/rand/v2"

	"github.com/freshcrawl/freshcrawl/internal/policy/sampling"
)

// SamplingWorld is what paper 004's experiments replay (Cho & Ntoulas §4):
// sites of pages and, for every download cycle, which pages changed since
// the cycle before. A download in cycle c finds its page changed when the
// page changed in cycle c, so that round-robin's ChangeRatio is the share
// of pages changing per cycle (spec §C.10 [derived]: about 100,000 of
// 353,000 change per cycle, RR ≈ 0.28) and the oracle's falls below 1 once
// the budget exceeds the pages changed (Fig. 8). Every policy runs on the
// same world, as the paper runs every policy on the same crawl history.
type SamplingWorld struct {
	// Pages is each site's page count and Rho its changed share ρ_i; site
	// i's pages are Start[i] … Start[i]+Pages[i]−1.
	Pages []int
	Rho   []float64
	Start []int
	// changed[c][p] says whether page p changed in cycle c, and count[c][i]
	// how many of site i's did; cycles past len(changed) repeat them.
	changed [][]bool
	count   [][]int
}

// VShapedWorld builds spec §C.11's synthetic stand-in for the paper's
// WebArchive data (Fig. 5's V-shaped histogram): sites sites of pages
// pages, 18% of them (rounded) with ρ ~ U(0.9, 1), 36% with ρ ~ U(0, 0.1)
// and the rest with ρ = 0.1 + 0.8·Beta(1, 5), in random order; every page
// changes in every cycle independently with its site's ρ. The first period
// cycles are drawn and then repeat, as the paper repeats its five months
// for longer runs (§4.5).
func VShapedWorld(sites, pages, period int, rng *rand.Rand) *SamplingWorld {
	w := &SamplingWorld{Pages: make([]int, sites), Rho: make([]float64, sites), Start: make([]int, sites)}
	high := int(math.Round(0.18 * float64(sites)))
	low := int(math.Round(0.36 * float64(sites)))
	for i := range w.Rho {
		switch {
		case i < high:
			w.Rho[i] = 0.9 + 0.1*rng.Float64()
		case i < high+low:
			w.Rho[i] = 0.1 * rng.Float64()
		default:
			// Beta(1, 5) by inversion: 1 − U^{1/5}.
			w.Rho[i] = 0.1 + 0.8*(1-math.Pow(rng.Float64(), 0.2))
		}
	}
	rng.Shuffle(sites, func(a, b int) { w.Rho[a], w.Rho[b] = w.Rho[b], w.Rho[a] })
	for i := range w.Pages {
		w.Pages[i] = pages
		w.Start[i] = i * pages
	}
	w.changed = make([][]bool, period)
	w.count = make([][]int, period)
	for c := range period {
		w.changed[c] = make([]bool, sites*pages)
		w.count[c] = make([]int, sites)
		for i, rho := range w.Rho {
			for p := w.Start[i]; p < w.Start[i]+pages; p++ {
				if rng.Float64() < rho {
					w.changed[c][p] = true
					w.count[c][i]++
				}
			}
		}
	}
	return w
}

// Total is the number of pages.
func (w *SamplingWorld) Total() int { return w.Start[len(w.Start)-1] + w.Pages[len(w.Pages)-1] }

// Changed is the number of pages that changed in cycle c.
func (w *SamplingWorld) Changed(c int) int {
	n := 0
	for _, k := range w.count[c%len(w.count)] {
		n += k
	}
	return n
}

// cycle is one download cycle's state: which pages of each site are
// downloaded already, so that a site's pages are drawn without
// replacement.
type cycle struct {
	w       *SamplingWorld
	changed []bool
	count   []int
	perm    []int32 // per site, a permutation of its pages; the first taken[i] are taken
	taken   []int
	found   []int // changed pages among the taken
	rng     *rand.Rand
}

func (w *SamplingWorld) newCycle(rng *rand.Rand) *cycle {
	c := &cycle{w: w, perm: make([]int32, w.Total()), taken: make([]int, len(w.Pages)), found: make([]int, len(w.Pages)), rng: rng}
	for i, n := range w.Pages {
		for j := range n {
			c.perm[w.Start[i]+j] = int32(j)
		}
	}
	return c
}

// begin starts cycle k. The permutations carry over: a partial shuffle of
// any permutation draws uniformly.
func (c *cycle) begin(k int) {
	c.changed = c.w.changed[k%len(c.w.changed)]
	c.count = c.w.count[k%len(c.w.count)]
	clear(c.taken)
	clear(c.found)
}

// take downloads d more random pages of site i and returns how many had
// changed; taking all that are left needs no draws.
func (c *cycle) take(i, d int) int {
	n, start := c.w.Pages[i], c.w.Start[i]
	if d <= 0 {
		return 0
	}
	if c.taken[i]+d >= n {
		x := c.count[i] - c.found[i]
		c.taken[i], c.found[i] = n, c.count[i]
		return x
	}
	seg := c.perm[start : start+n]
	x := 0
	for k := c.taken[i]; k < c.taken[i]+d; k++ {
		j := k + c.rng.IntN(n-k)
		seg[k], seg[j] = seg[j], seg[k]
		if c.changed[start+int(seg[k])] {
			x++
		}
	}
	c.taken[i] += d
	c.found[i] += x
	return x
}

// RunSampled runs a two-stage sampling policy for cycles cycles: s random
// pages of every site in sites (all sites when nil), then the rest of the
// budget by p, and returns each cycle's ChangeRatio. When the budget
// cannot pay for s samples of every site it samples ⌊budget/len(sites)⌋
// of each (the paper's Fig. 7 runs s up to 400 with 252 sites and R =
// 100,000, which does not say what it did there; spec §C.10 flag).
func (w *SamplingWorld) RunSampled(p sampling.SamplingPolicy, s, budget, cycles int, rng *rand.Rand) []float64 {
	return w.runSampled(p, s, budget, cycles, nil, rng)
}

// RunSubset runs paper 004's subset sampling (§3.5, §4.4): the sites are
// cut into groups of about groupPages pages (sampling.SubsetGroups), cycle k
// samples s pages of each site of group k mod m and spends the rest of the
// budget greedily within the group.
func (w *SamplingWorld) RunSubset(groupPages, s, budget, cycles int, rng *rand.Rand) []float64 {
	return w.runSampled(sampling.SampledGreedy, s, budget, cycles, sampling.SubsetGroups(w.Pages, groupPages), rng)
}

func (w *SamplingWorld) runSampled(p sampling.SamplingPolicy, s, budget, cycles int, groups [][]int, rng *rand.Rand) []float64 {
	if groups == nil {
		all := make([]int, len(w.Pages))
		for i := range all {
			all[i] = i
		}
		groups = [][]int{all}
	}
	cy := w.newCycle(rng)
	out := make([]float64, cycles)
	for k := range out {
		cy.begin(k)
		g := groups[k%len(groups)]
		se := min(s, budget/len(g))
		sites := make([]sampling.SiteSample, len(g))
		found, used := 0, 0
		for j, i := range g {
			x := cy.take(i, min(se, w.Pages[i]))
			sites[j] = sampling.SiteSample{Pages: w.Pages[i], Sampled: min(se, w.Pages[i]), Changed: x}
			found += x
			used += sites[j].Sampled
		}
		for j, d := range p.Allocate(sites, budget-used, rng) {
			found += cy.take(g[j], d)
			used += d
		}
		out[k] = sampling.ChangeRatio(found, used)
	}
	return out
}

// RunAdaptive runs the adaptive-sampling policy (Algorithm 3.1) and
// returns each cycle's ChangeRatio.
func (w *SamplingWorld) RunAdaptive(a sampling.AdaptiveSampling, budget, cycles int, rng *rand.Rand) []float64 {
	cy := w.newCycle(rng)
	out := make([]float64, cycles)
	changed := make([]int, len(w.Pages))
	for k := range out {
		cy.begin(k)
		run := a.Start(w.Pages, budget)
		found := 0
		for sample := run.Round(); sample != nil; sample = run.Round() {
			for i, n := range sample {
				changed[i] = cy.take(i, n)
				found += changed[i]
			}
			for i, d := range run.Observe(changed) {
				found += cy.take(i, d)
			}
		}
		for i, d := range run.Finish(rng) {
			found += cy.take(i, d)
		}
		out[k] = sampling.ChangeRatio(found, budget-run.Budget())
	}
	return out
}

// RunFrequency runs the change-frequency-based policy
// (sampling.FrequencyBased) from no history and returns each cycle's
// ChangeRatio.
func (w *SamplingWorld) RunFrequency(budget, cycles int) []float64 {
	f := sampling.NewFrequencyBased(w.Total())
	out := make([]float64, cycles)
	for k := range out {
		changed := w.changed[k%len(w.changed)]
		pages := f.Next(budget)
		found := 0
		for _, p := range pages {
			f.Observe(p, changed[p])
			if changed[p] {
				found++
			}
		}
		out[k] = sampling.ChangeRatio(found, len(pages))
	}
	return out
}

// RunRoundRobin downloads the next budget pages in index order each cycle
// (§2.1 item 1) and returns each cycle's ChangeRatio.
func (w *SamplingWorld) RunRoundRobin(budget, cycles int) []float64 {
	total := w.Total()
	out := make([]float64, cycles)
	next := 0
	for k := range out {
		changed := w.changed[k%len(w.changed)]
		found := 0
		for range min(budget, total) {
			if changed[next] {
				found++
			}
			next = (next + 1) % total
		}
		out[k] = sampling.ChangeRatio(found, min(budget, total))
	}
	return out
}

// Oracle is the ChangeRatio of §4.4's oracle, which downloads only changed
// pages while there are any: min(1, changed/budget) in cycle c.
func (w *SamplingWorld) Oracle(budget, c int) float64 {
	return min(1, float64(w.Changed(c))/float64(budget))
}

// FrequencyLimit is the long-run ChangeRatio of a policy that visits each
// page in proportion to its change frequency over the world's repeating
// cycles, p_i = (cycles page i changed in)/(cycles): Σp_i²/Σp_i, what
// sampling.FrequencyBased tends to once its estimates have converged.
func (w *SamplingWorld) FrequencyLimit() float64 {
	var s1, s2 float64
	for p := range w.changed[0] {
		k := 0
		for _, ch := range w.changed {
			if ch[p] {
				k++
			}
		}
		f := float64(k) / float64(len(w.changed))
		s1 += f
		s2 += f * f
	}
	return s2 / s1
}
