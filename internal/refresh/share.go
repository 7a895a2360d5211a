package refresh

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/schedule"
)

// A crawler cluster (internal/cluster/node) runs one crawl, with its own
// Module, per partition of the web. One crawl divides its budget by one
// multiplier over all its pages (ch. 5); partitions that each divided an
// even share of the budget over their own pages would plan a page by the
// partition it fell in: a partition of slow pages would visit them more
// often than one crawl would, one of fast pages would give more of them
// up, and a partition with too little to do would leave its share unspent
// (the demo's cluster used 0.907 of its budget that way). So the
// partitions share the plan. Each tells the cluster its size, its
// histogram and what its hosts cannot take (Share); one of them solves
// the multiplier of the whole for the cluster's budget, exactly as one
// crawl's planner does over the same histogram (SharePlan); and every
// partition plans at that multiplier (SetShared), its fetch budget being
// what its pages ask for at it plus its share of the discovery.

// Share is what a partition's plan tells the cluster's (cluster.Plans
// carries it in a binary form of its own).
type Share struct {
	Held, Queued int64
	Excess       float64 // planned frequency its hosts at capacity cannot take, per second
	// Bins is the plan's histogram: [rate bin, weight bin, pages] (see
	// schedule.Bin), the weight bin of signalled pages moved up by
	// signalledBin; empty under the policies that plan nothing.
	Bins [][3]int64
}

// signalledBin is added to the weight bin of a bin of signalled pages in
// Share.Bins: above any int16, so that a share keeps the three numbers a
// bin it has always had.
const signalledBin = 1 << 16

// Shared is the cluster's plan, as each partition applies it.
type Shared struct {
	// Uniform is the cluster's uniform interval: as one crawl of the
	// cluster's size and budget would have it (Module.Uniform).
	Uniform time.Duration `json:"uniform"`
	// Param is the parameter of the cluster's planner
	// (schedule.Planner.Param), 0 under the policies that plan nothing.
	Param float64 `json:"param,omitempty"`
}

// Share returns what the module's plan tells the cluster's.
func (m *Module) Share() Share {
	sh := Share{Held: m.size.Held(), Queued: m.size.Queued(), Excess: m.excess()}
	if m.planner != nil {
		m.planner.Bins(func(b schedule.Bin, n float64) {
			w := int64(b.Weight)
			if b.Signalled {
				w += signalledBin
			}
			sh.Bins = append(sh.Bins, [3]int64{int64(b.Rate), w, int64(math.Round(n))})
		})
	}
	return sh
}

// SetShared makes the module plan at the cluster's plan: its uniform
// interval, and its planner's parameter instead of the one its own
// budget would solve for. The zero Shared returns it to its own plan.
func (m *Module) SetShared(s Shared) {
	m.shareMu.Lock()
	defer m.shareMu.Unlock()
	if s == (Shared{}) {
		m.shared.Store(nil)
	} else {
		m.shared.Store(&s)
	}
	if m.planner != nil {
		m.planner.Pin(s.Param)
	}
}

// ErrShares is wrapped by SharePlan's errors about the partitions' shares.
var ErrShares = errors.New("invalid partition shares")

// SharePlan solves the plan of a cluster whose partitions' plans are
// shares: cfg is the partitions' refresh configuration with the cluster's
// Budget and Capacity (the sum of its partitions'). The uniform interval
// is one crawl's of the cluster's size; the parameter is what one
// crawl's planner solves for over the histograms together, its budget
// being the revisit budget plus what hosts at capacity cannot take (as
// Module.planBudget); and partition i's fetch budget, budgets[i], is its
// pages' load at that parameter, less its share of that excess, plus the
// discovery budget in proportion to its queued URLs. The budgets add up
// to cfg.Budget (nil without one), each raised to a hundredth of an even
// share before they are scaled to it, so that no partition stops.
func SharePlan(cfg Config, shares []Share) (plan Shared, budgets []float64, err error) {
	if err := cfg.defaults(); err != nil {
		return Shared{}, nil, err
	}
	if len(shares) == 0 {
		return Shared{}, nil, fmt.Errorf("%w: none", ErrShares)
	}
	var held, queued int64
	var excess float64
	for _, s := range shares {
		if s.Held < 0 || s.Queued < 0 || !(s.Excess >= 0) || math.IsInf(s.Excess, 1) {
			return Shared{}, nil, fmt.Errorf("%w: held %d, queued %d, excess %g", ErrShares, s.Held, s.Queued, s.Excess)
		}
		held, queued, excess = held+s.Held, queued+s.Queued, excess+s.Excess
	}
	plan.Uniform = cfg.uniform(held, queued)
	revisits := float64(held) / plan.Uniform.Seconds()
	loads, x, err := shareLoads(&cfg, shares, plan.Uniform, revisits+min(excess, revisits))
	if err != nil {
		return Shared{}, nil, err
	}
	plan.Param = x
	if cfg.Budget <= 0 {
		return plan, nil, nil
	}
	// The excess the planner divided is planned on the saturated hosts'
	// pages, which cannot take it: it comes off their partitions' shares.
	cut := 0.0
	if excess > 0 {
		cut = min(excess, revisits) / excess
	}
	discovery := max(cfg.Budget-revisits, 0)
	raw := make([]float64, len(shares))
	for i, s := range shares {
		raw[i] = max(loads[i]-cut*s.Excess, 0)
		if queued > 0 {
			raw[i] += discovery * float64(s.Queued) / float64(queued)
		}
	}
	return plan, split(cfg.Budget, raw), nil
}

// shareLoads returns each share's load (visits per second) at the
// parameter one planner of all the shares' histograms solves for budget,
// and that parameter; without a planner, each share's held pages every
// uniform interval u.
func shareLoads(cfg *Config, shares []Share, u time.Duration, budget float64) ([]float64, float64, error) {
	loads := make([]float64, len(shares))
	maxRevisit := cfg.maxRevisit(u)
	all, err := cfg.newPlanner(maxRevisit)
	if err != nil || all == nil {
		for i, s := range shares {
			loads[i] = float64(s.Held) / u.Seconds()
		}
		return loads, 0, err
	}
	parts := make([]*schedule.Planner, len(shares))
	for i, s := range shares {
		parts[i], _ = cfg.newPlanner(maxRevisit)
		for _, b := range s.Bins {
			w, signalled := b[1], b[1] >= signalledBin/2
			if signalled {
				w -= signalledBin
			}
			bin := schedule.Bin{Rate: int16(b[0]), Weight: int16(w), Signalled: signalled}
			if int64(bin.Rate) != b[0] || int64(bin.Weight) != w || b[2] < 0 {
				return nil, 0, fmt.Errorf("%w: bin %v", ErrShares, b)
			}
			parts[i].Add(bin, float64(b[2]))
			all.Add(bin, float64(b[2]))
		}
	}
	all.SetBudget(budget)
	x := all.Param()
	for i, p := range parts {
		loads[i] = p.Load(x)
	}
	return loads, x, nil
}

// split divides budget in proportion to raw, each part raised to a
// hundredth of an even share before all are scaled to add up to budget;
// evenly if raw is all zero.
func split(budget float64, raw []float64) []float64 {
	even := budget / float64(len(raw))
	out := make([]float64, len(raw))
	sum := 0.0
	for _, r := range raw {
		sum += r
	}
	total := 0.0
	for i, r := range raw {
		out[i] = even
		if sum > 0 {
			out[i] = max(budget*r/sum, even/100)
		}
		total += out[i]
	}
	for i := range out {
		out[i] *= budget / total
	}
	return out
}
