package refresh

import (
	"math"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// This file holds the revisits' share of the budget and how the plan looks
// past the pages held: each page's discovery value, the new URLs a visit
// of it finds.
//
// Discovery is priced in the freshness optimum's own unit. A page born on
// the web and not yet fetched counts as a page not fresh, so a page that
// reveals new URLs at rate δ (per second), visited every I seconds, leaves
// on average δ·I/2 of them unfound: a loss of δ/(2f) fresh pages at visit
// frequency f. Adding it to the objective Σ w_i·F(λ_i, f_i) whose
// multiplier μ the planner solves for, the page's optimum asks
// w·∂F/∂f + δ/(2f²) = μ; the discovery term alone gives f = √(δ/(2μ)).
// The page is visited at the shorter of that interval and its freshness
// interval, which is at most a factor √2 more often than the joint
// optimum would (where both terms matter equally) and exact where either
// dominates, as it does for an index page (fast to change, and given up
// by freshness alone) and for a leaf (no discovery).

// revisitBudget is the rate of revisits the held pages share, per second:
// the share of the budget the pages held are of the capacity (as the
// uniform interval gives them), or, without a budget, the collection once
// per Revisit interval (DefaultRevisit if unset). A plan that asked for
// more, the whole budget once the queue had emptied, spent no more (the
// hosts' politeness held it back) but planned beyond what the hosts could
// take: on simweb's demo, whose 50 hosts take about the budget, every
// interval fell to the shortest and the held pages' freshness from 0.70 to
// 0.65 (planBudget now bounds that feedback).
func (m *Module) revisitBudget() float64 {
	return float64(m.size.Held()) / m.Uniform().Seconds()
}

// Discovered folds into p's discovery record what its fetch at now led to
// (found new URLs queued), given the fetch before it at prev (zero for
// the first, which covers no time of the page's life and so says nothing
// of how fast it reveals URLs); under the freshness optimum it then brings
// p's next visit forward to its discovery interval if that is sooner.
func (m *Module) Discovered(p *store.Page, found int, prev, now time.Time) {
	if prev.IsZero() || !now.After(prev) {
		return
	}
	dt := now.Sub(prev).Seconds()
	keep := 1.0
	if tau := m.decay(); tau > 0 {
		keep = math.Exp(-dt / tau)
	}
	p.Found = p.Found*keep + float64(found)
	p.Exposure = p.Exposure*keep + dt
	if p.NextDue.IsZero() {
		return
	}
	if iv := m.discoveryInterval(p); iv > 0 && now.Add(iv).Before(p.NextDue) {
		p.NextDue = now.Add(iv)
	}
}

// discoveryInterval is p's discovery interval, √(2μ/δ) for its discovery
// rate δ and the plan's multiplier μ; zero if p has none or the plan does
// not price it (only the freshness optimum does).
func (m *Module) discoveryInterval(p *store.Page) time.Duration {
	if m.planner == nil || !m.acts || !(p.Found > 0) || !(p.Exposure > 0) {
		return 0
	}
	mu := m.multiplier()
	if !(mu > 0) {
		return 0
	}
	delta := p.Found / p.Exposure
	return secondsDuration(max(math.Sqrt(2*mu/delta), minRevisit.Seconds()))
}

// multiplier is the freshness optimum's current μ, in seconds of fresh
// page per visit: what one more visit a second buys.
func (m *Module) multiplier() float64 {
	m.syncPlanner()
	return m.planner.Multiplier()
}

// syncPlanner gives the planner the budget it divides (or, in a
// cluster, the parameter the cluster's plan solved: share.go) and the
// longest interval as they stand now.
func (m *Module) syncPlanner() {
	m.shareMu.Lock()
	if sh := m.shared.Load(); sh != nil && sh.Param > 0 {
		m.planner.Pin(sh.Param)
	} else {
		m.planner.Pin(0)
		m.planner.SetBudget(m.planBudget())
	}
	m.shareMu.Unlock()
	m.planner.SetMaxInterval(m.maxRevisit().Seconds())
}

// explore is the number of comparisons a page must have had before the
// plan may space its visits wider than the uniform interval, unless every
// one of them found a change (plan's probes deal with those). Until then
// its estimate is mostly the prior, and a page planned slow on the prior
// alone is seldom visited, so seldom seen changing, and stays slow: on a
// documentation site whose pages change in mass edits, 543 of 758 pages
// ten months in had been fetched in one version only. Three comparisons
// tell a page that changes once per interval from one that does not with
// a chance of error of e^{−3} = 5 %.
const explore = 3

// crawlPrior is the prior of a page of a host with too little history of
// its own: learnt from the crawl's pooled observations (all hosts, on the
// crawler's clock) once there are poolMin of them, paper 001's before.
// Re-solved every priorEvery observations. The pool lives in memory only:
// a restarted crawl learns it again, its hosts' own pools being stored.
func (m *Module) crawlPrior() change.Prior {
	if m.pool.Count() < poolMin {
		return m.basePrior
	}
	if m.poolPrior == (change.Prior{}) || m.pool.Count()-m.poolAt >= priorEvery {
		if p, err := change.PriorFromPopulation(&m.pool, m.basePrior, priorWeight); err == nil {
			m.poolPrior, m.poolAt = p, m.pool.Count()
		}
	}
	if m.poolPrior == (change.Prior{}) {
		return m.basePrior
	}
	return m.poolPrior
}

// priorEvery is how many observations the crawl's pool takes between two
// solves of its prior.
const priorEvery = 256
