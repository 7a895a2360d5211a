package refresh

import (
	"math"
	"sync"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// This file holds the two ways the plan looks past the pages held: the
// share of the budget left to revisits after the new URLs waiting, and
// each page's discovery value, the new URLs a visit of it finds.
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

// queueHorizon is the time, in uniform intervals, in which the plan
// counts on the queued new URLs being fetched: their share of the budget
// is the queue over it. Short enough that a queue of a few URLs takes
// little from the revisits, long enough that a crawl's first pass, whose
// queue is most of the web, leaves revisits only the held pages' share.
const queueHorizon = 0.25

// queuedCache holds Size.Queued, asked at most once a second.
type queuedCache struct {
	mu sync.Mutex
	n  int64
	at time.Time
}

// queued is the number of new URLs waiting, as of at most a second ago.
func (m *Module) queued() int64 {
	now := m.cfg.Now()
	q := &m.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.at.IsZero() || now.Sub(q.at) >= time.Second || now.Before(q.at) {
		q.n, q.at = m.size.Queued(), now
	}
	return q.n
}

// revisitBudget is the rate of revisits the held pages share, per second.
// With a budget and no fixed interval it is what the other fetches leave
// of the budget: the fetches that are not planned revisits (new URLs,
// sitemaps, retries), as measured (NoteFetch), or, if more, what fetching
// the queued new URLs within queueHorizon uniform intervals needs; but at
// least the held pages' share of it by the uniform interval (so a crawl's
// first pass does not starve the revisits). A crawl that has found
// everything spends its whole budget on revisits. A plan that asked more
// than is left would let its overdue revisits pile up without end, every
// page later than planned by a growing backlog: planned at the whole
// budget on simweb's demo, where a few per cent of the fetches are new
// pages and dead links, the held pages' freshness fell from 0.70 to 0.65
// in six minutes. Without a budget it is the collection once per Revisit
// interval (DefaultRevisit if unset).
func (m *Module) revisitBudget() float64 {
	held := float64(m.size.Held())
	u := m.Uniform().Seconds()
	base := held / u
	if m.cfg.Budget <= 0 || m.cfg.Revisit > 0 || held == 0 {
		return base
	}
	need := float64(m.queued()) / (queueHorizon * u)
	other := m.other.at(m.cfg.Now(), otherWindow*u)
	return max(base, m.cfg.Budget-max(need, other))
}

// otherWindow is the averaging window of the rate of the other fetches, in
// uniform intervals.
const otherWindow = 0.25

// spend tracks the rate of fetches that are not planned revisits, an
// exponentially weighted count.
type spend struct {
	mu   sync.Mutex
	rate float64 // per second, at last
	last time.Time
}

// note counts one fetch at now, averaged over window seconds.
func (s *spend) note(now time.Time, window float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rate = s.decayed(now, window) + 1/window
	if now.After(s.last) {
		s.last = now
	}
}

// at is the rate at now.
func (s *spend) at(now time.Time, window float64) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.decayed(now, window)
}

func (s *spend) decayed(now time.Time, window float64) float64 {
	if s.last.IsZero() || !now.After(s.last) {
		return s.rate
	}
	return s.rate * math.Exp(-now.Sub(s.last).Seconds()/window)
}

// NoteFetch tells the module of a fetch at now that was not the planned
// revisit of a held page: a new URL, a sitemap, a retry. Their rate is
// taken out of the budget before the revisits share it.
func (m *Module) NoteFetch(now time.Time) {
	m.other.note(now, otherWindow*m.Uniform().Seconds())
}

// uniformInterval is the interval at which the held pages, visited
// equally often, spend the revisit budget.
func (m *Module) uniformInterval() time.Duration {
	u := m.Uniform()
	held := float64(m.size.Held())
	if b := m.revisitBudget(); held > 0 && b > held/u.Seconds() {
		return min(u, secondsDuration(held/b))
	}
	return u
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
	if m.planner == nil || !m.planFast || !(p.Found > 0) || !(p.Exposure > 0) {
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
	m.planner.SetBudget(m.planBudget())
	m.planner.SetMaxInterval(m.maxRevisit().Seconds())
	return m.planner.Multiplier()
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
// Re-solved every priorEvery observations.
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
