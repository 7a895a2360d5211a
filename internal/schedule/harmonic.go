package schedule

import (
	"math"
	"slices"
	"sort"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// cappedHarmonic is Capped for Harmonic (policy.OptimalHarmonic under the
// hosts' capacities). The KKT conditions give page i of host h the
// frequency policy.HarmonicFrequency at the multiplier ν + η_h, with
// η_h ≥ 0 positive only on a saturated host, whose pages then add up to
// its capacity c_h. So a host's multiplier is max(ν, m_h), where m_h is
// the one at which its pages ask for exactly c_h: m_h does not depend on
// ν, and is found once per host by a search over its pages alone; then ν
// by one search over all of them, both over the curve's table (curve.go),
// the hosts shared between the CPUs; the frequencies written are policy's
// exact ones. (The freshness and age solver, kkt.go, shares its passes
// between hosts instead, which their abandoned pages make worth it.)
// Every page that changes gets visits, unless its host may not be fetched
// at all.
func cappedHarmonic(pages []policy.Page, hosts Hosts, budget float64, freq []float64) Solution {
	nh := len(hosts.Capacity)
	g := groupByHost(pages, hosts)
	// xh[h] = ln m_h: −Inf for a host that never binds, +Inf for one that
	// may not be fetched.
	xh := make([]float64, nh)
	capped := 0.0 // Σ c_h over the hosts with pages
	policy.SumChunks(nh, func(lo, hi int) (_, _ float64) {
		for h := lo; h < hi; h++ {
			ps, c := g.of(h), hosts.Capacity[h]
			switch {
			case len(ps) == 0 || math.IsInf(c, 1):
				xh[h] = math.Inf(-1)
			case c == 0:
				xh[h] = math.Inf(1)
			default:
				xh[h] = harmonicRoot(ps, c)
			}
		}
		return
	})
	for h := range nh {
		if len(g.of(h)) > 0 {
			capped += hosts.Capacity[h]
		}
	}
	x := math.Inf(-1) // every host saturated: no common multiplier
	if len(g.of(nh)) > 0 || budget < capped*(1-rootTol) {
		total := func(x float64) (s, ds float64) {
			return policy.SumChunks(len(g.pages), func(lo, hi int) (s, ds float64) {
				// The pages [lo, hi), host by host: a saturated (or barred)
				// host adds its capacity, shared by its pages.
				for h := sort.SearchInts(g.start, lo+1) - 1; lo < hi; h++ {
					end := min(hi, g.start[h+1])
					if h < nh && xh[h] >= x {
						s += hosts.Capacity[h] * float64(end-lo) / float64(g.start[h+1]-g.start[h])
					} else {
						hs, hds := harmonicSum(g.pages[lo:end], x)
						s, ds = s+hs, ds+hds
					}
					lo = end
				}
				return s, ds
			})
		}
		x0 := harmonicStart(g.pages, budget)
		r := newRoot(budget, x0, x0)
		for !r.done {
			r.update(total(r.x))
		}
		x = r.x
		if r.bracketed() {
			x = r.lo + (r.hi-r.lo)/2
		}
	}
	sol := Solution{Saturated: make([]bool, nh), HostMultiplier: make([]float64, nh)}
	if !math.IsInf(x, -1) {
		sol.Multiplier = math.Exp(x)
	}
	for h := range nh + 1 {
		m := x
		if h < nh {
			if xh[h] > x && len(g.of(h)) > 0 {
				sol.Saturated[h] = true
				sol.HostMultiplier[h] = math.Exp(xh[h]) - sol.Multiplier
			}
			if math.IsInf(xh[h], 1) {
				continue
			}
			m = max(x, xh[h])
		}
		nu := math.Exp(m)
		for k, p := range g.of(h) {
			f := policy.HarmonicFrequency(p.Rate, weightOr1(p.Weight), nu)
			freq[g.orig[g.start[h]+k]] = f
			sol.Spent += f
		}
	}
	return sol
}

// hostGroups is the changing pages ordered by host, so that a host's
// pages are read in one run: host h's are pages[start[h]:start[h+1]],
// the pages on no host last (h = number of hosts); orig maps them back.
type hostGroups struct {
	pages []policy.Page
	orig  []int
	start []int
}

func (g *hostGroups) of(h int) []policy.Page { return g.pages[g.start[h]:g.start[h+1]] }

// groupByHost orders the changing pages by host (a counting sort).
func groupByHost(pages []policy.Page, hosts Hosts) *hostGroups {
	nh := len(hosts.Capacity)
	g := &hostGroups{start: make([]int, nh+2)}
	slot := func(i int) int {
		if h := hostOf(hosts, i); h != NoHost {
			return h
		}
		return nh
	}
	for i, p := range pages {
		if p.Rate > 0 {
			g.start[slot(i)+1]++
		}
	}
	for h := range nh + 1 {
		g.start[h+1] += g.start[h]
	}
	n := g.start[nh+1]
	g.pages, g.orig = make([]policy.Page, n), make([]int, n)
	next := slices.Clone(g.start)
	for i, p := range pages {
		if p.Rate > 0 {
			k := slot(i)
			g.pages[next[k]], g.orig[next[k]] = p, i
			next[k]++
		}
	}
	return g
}

// hostOf is page i's host, NoHost if none limits it.
func hostOf(hosts Hosts, i int) int {
	if hosts.Of == nil {
		return NoHost
	}
	return int(hosts.Of[i])
}

// harmonicSum is Σ f over pages at the multiplier e^x, and its derivative
// in x: f = λ·χ(c), c = νλ/w, from the table of χ (curve.go, within 3e-10
// of policy.HarmonicFrequency).
func harmonicSum(pages []policy.Page, x float64) (s, ds float64) {
	nu, tab := math.Exp(x), tables()
	for _, p := range pages {
		chi, dchi := tab.harmChi(nu * p.Rate / weightOr1(p.Weight))
		s += p.Rate * chi
		ds += p.Rate * dchi
	}
	return s, ds
}

// harmonicStart is an x = ln ν at which the pages' sum is at most target:
// em2(r) ≤ r²/2 bounds each page's frequency by √(λw/(2ν)).
func harmonicStart(pages []policy.Page, target float64) float64 {
	k := 0.0
	for _, p := range pages {
		k += math.Sqrt(p.Rate * weightOr1(p.Weight) / 2)
	}
	return 2 * math.Log(k/target)
}

// harmonicRoot is ln m_h: the multiplier at which pages ask for c visits
// a second in all.
func harmonicRoot(pages []policy.Page, c float64) float64 {
	x0 := harmonicStart(pages, c)
	r := newRoot(c, x0, x0)
	for !r.done {
		r.update(harmonicSum(pages, r.x))
	}
	if r.bracketed() {
		return r.lo + (r.hi-r.lo)/2
	}
	return r.x
}
