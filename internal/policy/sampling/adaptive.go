package sampling

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// AdaptiveSampling configures paper 004's adaptive-sampling policy
// (Algorithm 3.1, Fig. 3): instead of a fixed sample size it samples K more
// pages of every undecided site per round, and decides a site as soon as
// the α confidence interval of its changed share ρ_i lies wholly above the
// threshold ρ_t (download all its pages) or wholly below it (drop it).
//
// The paper leaves three things open (spec §C.7 flag), decided here:
//   - the interval is Wilson's score interval at confidence α, with the
//     finite-population correction (N − n)/(N − 1) of sampling without
//     replacement, so that a fully sampled site's interval is its exact ρ;
//   - ρ_t is the ρ̂ of the undecided site at which the remaining budget runs
//     out when the undecided sites are taken in order of ρ̂, greedily, with
//     all their unsampled pages (the paper: "if we can download about half
//     of the sites, and if half of the estimated ρ_i's are above 0.6, ρ_t =
//     0.6"); when the budget covers them all, every site is downloaded;
//   - when the budget cannot pay for another full round, or every site is
//     decided with budget left, the rest goes greedily by ρ̂ over the sites
//     not downloaded (Finish).
type AdaptiveSampling struct {
	// Alpha is the confidence level α, in (0, 1); zero means 0.9, the
	// paper's recommendation (§4.6).
	Alpha float64
	// K is the number of pages sampled per undecided site per round; zero
	// means 10, the paper's recommendation.
	K int
}

// Site states of an adaptive cycle.
const (
	siteOpen = iota
	siteDropped
	siteDownloaded
)

// An AdaptiveCycle runs Algorithm 3.1 for one download cycle. The caller
// loops
//
//	for sample := c.Round(); sample != nil; sample = c.Round() {
//		// download sample[i] random unsampled pages of site i
//		download := c.Observe(changed) // changed[i] of them had changed
//		// download download[i] more random pages of site i
//	}
//	// download Finish(rng)[i] more random pages of site i
//
// and every count it is given is already paid for from the budget.
type AdaptiveCycle struct {
	z      float64
	k      int
	sites  []SiteSample // the samples
	extra  []int        // pages downloaded beyond the samples
	state  []uint8
	round  []int
	budget int
}

// Start begins a cycle over sites of the given page counts with budget
// downloads.
func (a AdaptiveSampling) Start(pages []int, budget int) *AdaptiveCycle {
	if a.Alpha == 0 {
		a.Alpha = 0.9
	}
	if a.K == 0 {
		a.K = 10
	}
	c := &AdaptiveCycle{k: a.K, budget: budget, extra: make([]int, len(pages)),
		// z = Φ⁻¹((1 + α)/2), the two-sided normal quantile.
		z:     math.Sqrt2 * math.Erfinv(a.Alpha),
		sites: make([]SiteSample, len(pages)), state: make([]uint8, len(pages)), round: make([]int, len(pages))}
	for i, p := range pages {
		c.sites[i].Pages = p
		if p == 0 {
			c.state[i] = siteDropped
		}
	}
	return c
}

// Round returns how many more pages to sample from each site in the next
// round (steps [3]–[4]: K from each undecided site, fewer if it has fewer
// left), and takes them from the budget; it returns nil when no site is
// undecided or the budget cannot pay for the round.
func (c *AdaptiveCycle) Round() []int {
	need := 0
	for i, s := range c.sites {
		c.round[i] = 0
		if c.state[i] == siteOpen {
			c.round[i] = min(c.k, s.Left())
			need += c.round[i]
		}
	}
	if need == 0 || need > c.budget {
		return nil
	}
	c.budget -= need
	return slices.Clone(c.round)
}

// Observe records the round's samples, changed[i] of site i's having
// changed, re-estimates ρ̂_i and its interval (steps [5]–[6]), sets ρ_t
// (step [7]), drops the sites wholly below it (step [9]) and returns the
// pages to download from the sites wholly above it (step [10]): all that
// are left, highest ρ̂ first, as far as the budget goes.
func (c *AdaptiveCycle) Observe(changed []int) []int {
	for i, n := range c.round {
		c.sites[i].Sampled += n
		c.sites[i].Changed += changed[i]
	}
	var open []int
	for i := range c.sites {
		if c.state[i] == siteOpen {
			if c.sites[i].Left() == 0 {
				c.state[i] = siteDownloaded // fully sampled: nothing left to decide
				continue
			}
			open = append(open, i)
		}
	}
	slices.SortStableFunc(open, func(a, b int) int { return cmp.Compare(c.sites[b].Rho(), c.sites[a].Rho()) })
	rhoT := -1.0
	for acc, j := 0, 0; j < len(open); j++ {
		acc += c.sites[open[j]].Left()
		if acc >= c.budget {
			rhoT = c.sites[open[j]].Rho()
			break
		}
	}
	out := make([]int, len(c.sites))
	for _, i := range open {
		lo, hi := c.Interval(i)
		switch {
		case hi < rhoT:
			c.state[i] = siteDropped
		case rhoT < lo && c.budget > 0:
			out[i] = min(c.sites[i].Left(), c.budget)
			c.budget -= out[i]
			c.extra[i] += out[i]
			c.state[i] = siteDownloaded
		}
	}
	return out
}

// Finish spends what is left of the budget greedily by ρ̂ over the sites
// not yet downloaded, undecided and dropped alike, ties in an order drawn
// from rng, and returns the pages to download from each.
func (c *AdaptiveCycle) Finish(rng *rand.Rand) []int {
	rest := make([]SiteSample, len(c.sites))
	for i, s := range c.sites {
		if c.state[i] != siteDownloaded {
			rest[i] = SiteSample{Pages: s.Pages - c.extra[i], Sampled: s.Sampled, Changed: s.Changed}
		}
	}
	out := SampledGreedy.Allocate(rest, c.budget, rng)
	for i, d := range out {
		c.budget -= d
		c.extra[i] += d
		if d > 0 {
			c.state[i] = siteDownloaded
		}
	}
	return out
}

// Interval is the Alpha confidence interval (l_i, h_i) for site i's ρ_i
// from its samples so far: Wilson's score interval with the finite
// population correction; (0, 1) without samples.
func (c *AdaptiveCycle) Interval(i int) (lo, hi float64) {
	s := c.sites[i]
	if s.Sampled == 0 {
		return 0, 1
	}
	p := s.Rho()
	if s.Sampled >= s.Pages {
		return p, p
	}
	// The effective sample size n' = n(N − 1)/(N − n) turns the
	// without-replacement variance p(1 − p)(N − n)/(n(N − 1)) into
	// p(1 − p)/n'.
	n := float64(s.Sampled)
	if s.Pages > 1 {
		n *= float64(s.Pages-1) / float64(s.Pages-s.Sampled)
	}
	z2 := c.z * c.z
	den := 1 + z2/n
	mid := (p + z2/(2*n)) / den
	half := c.z / den * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	return max(0, mid-half), min(1, mid+half)
}

// Sites returns each site's samples so far: its pages, the pages sampled
// and how many of them had changed.
func (c *AdaptiveCycle) Sites() []SiteSample { return slices.Clone(c.sites) }

// Budget is what is left of the cycle's budget.
func (c *AdaptiveCycle) Budget() int { return c.budget }
