package sim

import (
	"math"

	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// Intervals is a Policy that visits each page at a given mean interval I_i
// in a given synchronisation order (dissertation §5.3–5.4), ignoring what
// it observes. It is the adapter through which an allocator's frequencies
// f_i are run: pass I_i = 1/f_i. The orders place the visits so:
//
//   - policy.FixedOrder visits page i exactly every I_i (Algorithm 5.4.1).
//     The first visit of page i of n is at (i + 1/2)·I_i/n, so pages
//     sharing an interval are evenly spread, as when a crawler walks a
//     fixed list.
//   - policy.RandomOrder visits page i once in every cycle
//     [k·I_i, (k+1)·I_i) at a uniformly random point, independently per
//     cycle: the position of one page in a fresh random permutation of a
//     large list (Algorithm 5.4.2; Lemma 5.1's model T_1 ~ U(0, I),
//     T_2 ~ U(I, 2I)).
//   - policy.PurelyRandom visits page i at exponential intervals of mean
//     I_i, the law-of-rare-events limit of picking a random page at each
//     sync point (Algorithm 5.4.3).
//
// The random orders' visit times are random, so give the engine headroom
// over n/I fetches a second, or the budget delays collide.
type Intervals struct {
	iv    []float64
	order policy.Order
	seed  uint64
}

// FixedIntervals returns a policy that visits page i every intervals[i]
// seconds on average, in the given order; seed drives policy.RandomOrder
// and policy.PurelyRandom. An interval of +Inf (or ≤ 0, or NaN) never
// visits the page. The slice is used, not copied.
func FixedIntervals(intervals []float64, order policy.Order, seed uint64) *Intervals {
	return &Intervals{iv: intervals, order: order, seed: seed}
}

// Uniform returns the uniform policy of dissertation §5.3 for n pages and a
// budget in fetches per second: every page in fixed order every n/budget
// seconds.
func Uniform(n int, budget float64) *Intervals {
	iv := make([]float64, n)
	for i := range iv {
		iv[i] = float64(n) / budget
	}
	return FixedIntervals(iv, policy.FixedOrder, 0)
}

// Init places every page's first visit.
func (p *Intervals) Init(s *Schedule) {
	n := s.Len()
	for i := 0; i < n; i++ {
		I := p.interval(i)
		if I == posInf {
			s.SetDue(i, posInf)
			continue
		}
		switch p.order {
		case policy.RandomOrder:
			s.SetDue(i, I*p.u(i, 0))
		case policy.PurelyRandom:
			s.SetDue(i, -I*math.Log(p.u(i, 0)))
		default:
			s.SetDue(i, (float64(i)+0.5)/float64(n)*I)
		}
	}
}

// Fetched returns the next visit. Fixed order counts from the due time,
// not the fetch time, so delays do not shift the page's grid.
func (p *Intervals) Fetched(f *Fetch) float64 {
	I := p.interval(f.Page)
	if I == posInf {
		return posInf
	}
	switch p.order {
	case policy.RandomOrder:
		k := math.Floor(f.Due/I) + 1
		return (k + p.u(f.Page, uint64(k)+1)) * I
	case policy.PurelyRandom:
		return f.Due - I*math.Log(p.u(f.Page, math.Float64bits(f.Due)))
	default:
		return f.Due + I
	}
}

func (p *Intervals) interval(i int) float64 {
	I := p.iv[i]
	if !(I > 0) {
		return posInf
	}
	return I
}

// u is a uniform in (0, 1] for page i and coordinate k.
func (p *Intervals) u(i int, k uint64) float64 {
	return splitmix.Open(splitmix.Hash2(splitmix.Hash2(p.seed, uint64(i)), k))
}

// OracleIntervals is a reference Policy that is told the truth: it visits
// page i at the interval intervalOf(page i) in the given order. It serves
// runs where an allocator is given the true rates, the upper bound an
// estimating policy is compared with.
type OracleIntervals struct {
	Intervals
	intervalOf func(Page) float64
}

// NewOracleIntervals returns an OracleIntervals computing each page's
// interval from its true description.
func NewOracleIntervals(intervalOf func(Page) float64, order policy.Order, seed uint64) *OracleIntervals {
	return &OracleIntervals{Intervals: Intervals{order: order, seed: seed}, intervalOf: intervalOf}
}

// SetTruth computes the intervals from the pages.
func (o *OracleIntervals) SetTruth(pages []Page) {
	o.iv = make([]float64, len(pages))
	for i, pg := range pages {
		o.iv[i] = o.intervalOf(pg)
	}
}
