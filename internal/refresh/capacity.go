package refresh

import (
	"math"
	"time"
)

// Host capacity. A host takes at most one request at a time and waits its
// delay after each, so it serves at most 1/(delay + response time)
// fetches a second (Kolobov et al., SIGIR 2019, were the first to put this
// limit into refresh scheduling). Under a planned policy each host keeps
// the planned frequency of its held pages (load); a host whose load
// exceeds its capacity has its pages' intervals stretched by load/capacity
// (scale), and the excess, summed over hosts (excess), is added to what
// the planner divides, so the others get the budget it cannot use. This
// is the host constraint of the optimum met by scaling a saturated host's
// plan rather than by its own multiplier; the loads live in memory and are
// rebuilt by the first round of revisits after a restart.

// capacity is the host's fetches per second.
func (h *Host) capacity() float64 {
	return 1 / (max(h.Delay.Seconds(), 0) + max(h.service, 1e-3))
}

// scale is the factor the host's planned intervals are stretched by.
func (h *Host) scale() float64 {
	if c := h.capacity(); h.load > c {
		return h.load / c
	}
	return 1
}

// NoteService folds a response time of the host into its moving average.
func (h *Host) NoteService(d time.Duration) {
	h.pulls = max(h.pulls-1, 0) // a response: one of the last read's pulls, or a turn they let pass
	if h.service == 0 {
		h.service = d.Seconds()
		return
	}
	h.service += (d.Seconds() - h.service) / 16
}

// stretch is a planned interval iv (seconds) on host h: scaled by the
// host's load over its capacity, but no further than the longest revisit
// interval (politeness holds the host back anyway).
func (m *Module) stretch(h *Host, iv float64) time.Duration {
	return secondsDuration(min(iv*h.scale(), max(iv, m.maxRevisit().Seconds())))
}

// noteLoad replaces a page's planned frequency old with new (per second,
// 0 for none) in its host's load and the crawl's excess. Committer only.
func (m *Module) noteLoad(h *Host, old, new float64) {
	if m.planner == nil || old == new {
		return
	}
	h.load = max(h.load-old+new, 0)
	e := max(h.load-h.capacity(), 0)
	m.excessBits.Store(math.Float64bits(max(m.excess()+e-h.excess, 0)))
	h.excess = e
}

// excess is the planned frequency hosts at capacity cannot take.
func (m *Module) excess() float64 { return math.Float64frombits(m.excessBits.Load()) }

// planBudget is what the planner divides: the revisit budget plus what the
// hosts at capacity cannot take, which the others can, but at most as much
// again, less the trusted sitemaps' reads (up to half of it). The excess
// is a feedback: the more the planner divides, the more the saturated
// hosts are planned beyond their capacity, and the more excess there is.
// While the hosts not at capacity can take it, the loop settles; once the
// budget is more than all hosts together can take it diverges, every
// interval falling to the shortest (on simweb's demo, 50 hosts whose
// delays and response times let them take about the budget, a revisit
// budget of the whole budget planned every page every millisecond, and
// the plan was lost). Bounded, a crawl held back by politeness keeps a
// plan that ranks its pages.
func (m *Module) planBudget() float64 {
	r := m.revisitBudget()
	return r + min(m.excess(), r) - m.SignalReads()
}
