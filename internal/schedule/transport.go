package schedule

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// Crawl is one crawl task of paper 002's scheduling problem (Wolf et al.,
// §5; spec B.6): the j-th of the x_i crawls its discrete allocation gives
// page i in the scheduling interval, with the ideal time t*_{i,j} the
// allocation assumed.
type Crawl struct {
	Page int32
	// Ideal is t*_{i,j}, in seconds from the start of the interval.
	Ideal float64
	// Release marks a quasi-deterministic page's crawl, which is useless
	// before its ideal time (the page updates then) and costs t − t* after
	// it (paper 002 eq. 22); any other crawl costs |t − t*|.
	Release bool
}

// Slot is one crawler time slot.
type Slot struct {
	Crawler int32
	// Start is when the slot begins, in seconds from the start of the
	// interval.
	Start float64
}

// Slots returns the slots of crawlers that do perCrawler[k] crawls each in
// an interval of period seconds, each crawl taking the same time: crawler
// k's l-th slot (l from 1) starts at (l − 1)·T/S_k. (Paper 002 prints
// (l − 1)/T, a typo; spec B.6.)
func Slots(period float64, perCrawler []int) []Slot {
	var out []Slot
	for k, s := range perCrawler {
		for l := range s {
			out = append(out, Slot{Crawler: int32(k), Start: float64(l) * period / float64(s)})
		}
	}
	return out
}

// IdealTimes lays out x[i] crawls of page i evenly over an interval of
// period seconds, which is optimal for any update process (paper 002 §3.2;
// spec B.2): T/x_i apart. The paper leaves open how the last crawl before
// the interval shifts the grid (spec B.6, flagged); here, if last[i] (≤ 0,
// seconds from the interval's start) is known, the first crawl is due
// T/x_i after it, or at 0 if that is past, so the page's intervals stay
// T/x_i; a NaN or a nil last staggers the pages' grids by the golden-ratio
// sequence instead. release[i] (nil: none) marks quasi-deterministic
// pages. The crawls come out in page order.
func IdealTimes(x []int, period float64, last []float64, release []bool) []Crawl {
	var out []Crawl
	for i, n := range x {
		if n <= 0 {
			continue
		}
		step := period / float64(n)
		first := math.Mod(float64(i)*goldenFrac, 1) * step
		if last != nil && !math.IsNaN(last[i]) {
			first = min(max(0, last[i]+step), step)
		}
		for j := range n {
			out = append(out, Crawl{Page: int32(i), Ideal: first + float64(j)*step, Release: release != nil && release[i]})
		}
	}
	return out
}

// AssignCrawls assigns every crawl to its own slot so as to minimise the
// total cost Σ S(t) of paper 002's transportation problem (§5, eqs. 22–26):
// |t − t*| for a crawl, ∞ for a release crawl before its ideal time. It
// returns slotOf[c], the slot of crawls[c], and the total cost in seconds.
// There must be at least as many slots as crawls; a release crawl with no
// slot at or after its ideal time left makes the problem infeasible
// (ErrInfeasible). Times are compared after rounding to resolution
// seconds, which sets the cost's precision.
//
// The paper's network has an arc from every crawl to every slot, R² arcs.
// Because both costs are distances along the time line, the same optimum
// is a min-cost flow on a chain instead: the distinct slot times are nodes
// linked to their neighbours by arcs that cost the time between them, both
// ways for ordinary crawls and only forward for release crawls (a second
// chain), each time draining into the sink as many crawls as it has slots;
// a crawl enters the chain at the slot times just before and after its
// ideal time, at the cost of getting there (a release crawl only after).
// That is O(R) nodes and arcs, solved by Network, whose searches stay
// within the few slot times around each crawl when the crawls are spread
// like the slots (the paper finds nearly all within ±20 slots): the work
// grows with the total displacement. Within each chain the flow fixes how
// many crawls each slot time takes, and matching the chain's crawls to
// those slots in time order attains the flow's cost (on a line, sorted
// matching minimises Σ|t − t*|, and every feasible matching of release
// crawls costs the same Σ(t − t*)).
func AssignCrawls(crawls []Crawl, slots []Slot, resolution float64) (slotOf []int, cost float64, err error) {
	if !(resolution > 0) || math.IsInf(resolution, 1) {
		return nil, 0, fmt.Errorf("%w: resolution %v", policy.ErrInput, resolution)
	}
	if len(crawls) > len(slots) {
		return nil, 0, fmt.Errorf("%w: %d crawls for %d slots", ErrInfeasible, len(crawls), len(slots))
	}
	if len(crawls) == 0 {
		return []int{}, 0, nil
	}
	tl, err := newTimeline(slots, resolution)
	if err != nil {
		return nil, 0, err
	}
	ent, err := groupCrawls(crawls, &tl)
	if err != nil {
		return nil, 0, err
	}
	ch, err := newChains(&tl, ent, int64(len(crawls)))
	if err != nil {
		return nil, 0, err
	}
	units, err := ch.g.Solve()
	if err != nil {
		return nil, 0, err
	}
	return ch.match(crawls, slots), float64(units) * resolution, nil
}

// timeline is the distinct slot times of a transportation problem, in
// order, each rounded to a whole number of resolution seconds, with the
// number of slots at each.
type timeline struct {
	resolution float64
	times      []int64
	perTime    []int64
}

func newTimeline(slots []Slot, resolution float64) (timeline, error) {
	tl := timeline{resolution: resolution, times: make([]int64, 0, len(slots))}
	for _, s := range slots {
		if math.IsNaN(s.Start) || math.IsInf(s.Start, 0) {
			return tl, fmt.Errorf("%w: slot of crawler %d at %v", policy.ErrInput, s.Crawler, s.Start)
		}
		tl.times = append(tl.times, tl.tick(s.Start))
	}
	slices.Sort(tl.times)
	tl.times = slices.Compact(tl.times)
	tl.perTime = make([]int64, len(tl.times))
	for _, s := range slots {
		tl.perTime[tl.index(s.Start)]++
	}
	return tl, nil
}

// tick rounds a time to the timeline's resolution.
func (tl *timeline) tick(t float64) int64 { return int64(math.Round(t / tl.resolution)) }

// index returns the position in times of a slot's start.
func (tl *timeline) index(start float64) int {
	p, _ := slices.BinarySearch(tl.times, tl.tick(start))
	return p
}

// entry is where crawls enter the chains: a time, and whether the crawls
// are release crawls.
type entry struct {
	t       int64
	release bool
}

// entries are the crawls grouped by entry, and how many crawls each has.
type entries struct {
	list       []entry
	count      map[entry]int64
	hasRelease bool
}

// groupCrawls groups the crawls by where they enter the chain. Solve
// routes the supplies in node order. In time order each search would
// cross all the taken slots before it (their reduced costs are zero); in
// a random order most searches find a free slot nearby, so the entries
// are shuffled, with a fixed seed.
func groupCrawls(crawls []Crawl, tl *timeline) (entries, error) {
	ent := entries{count: map[entry]int64{}}
	for _, c := range crawls {
		if math.IsNaN(c.Ideal) || math.IsInf(c.Ideal, 0) {
			return ent, fmt.Errorf("%w: crawl of page %d at %v", policy.ErrInput, c.Page, c.Ideal)
		}
		e := entry{tl.tick(c.Ideal), c.Release}
		if ent.count[e] == 0 {
			ent.list = append(ent.list, e)
		}
		ent.count[e]++
		ent.hasRelease = ent.hasRelease || c.Release
	}
	rand.New(rand.NewPCG(uint64(len(ent.list)), 5)).Shuffle(len(ent.list), func(i, j int) {
		ent.list[i], ent.list[j] = ent.list[j], ent.list[i]
	})
	return ent, nil
}

// chains is the min-cost flow network of AssignCrawls. Nodes: chain A
// (ordinary crawls) 0..np−1, chain B (release crawls) np..2np−1, per slot
// time a node 2np+p that drains into the sink, then one node per entry.
// intoA[p] and intoB[p] are the arcs from each chain into time p's drain.
type chains struct {
	tl           *timeline
	g            *Network
	hasRelease   bool
	intoA, intoB []int
}

// newChains builds the network; big is the capacity of every arc, more
// than any flow.
func newChains(tl *timeline, ent entries, big int64) (chains, error) {
	times, np := tl.times, len(tl.times)
	ch := chains{tl: tl, g: NewNetwork(3*np + len(ent.list)), hasRelease: ent.hasRelease,
		intoA: make([]int, np), intoB: make([]int, np)}
	g := ch.g
	for p := 0; p+1 < np; p++ {
		d := times[p+1] - times[p]
		g.AddArc(p, p+1, big, d)
		g.AddArc(p+1, p, big, d)
		if ent.hasRelease {
			g.AddArc(np+p, np+p+1, big, d)
		}
	}
	for p, n := range tl.perTime {
		g.SetSupply(2*np+p, -n)
		ch.intoA[p] = g.AddArc(p, 2*np+p, big, 0)
		if ent.hasRelease {
			ch.intoB[p] = g.AddArc(np+p, 2*np+p, big, 0)
		}
	}
	for k, e := range ent.list {
		v := 3*np + k
		g.SetSupply(v, ent.count[e])
		after, exact := slices.BinarySearch(times, e.t) // first slot time ≥ t
		if e.release {
			if after == np {
				return ch, fmt.Errorf("%w: a release crawl at %gs has no slot after it", ErrInfeasible, float64(e.t)*tl.resolution)
			}
			g.AddArc(v, np+after, big, times[after]-e.t)
			continue
		}
		if after < np {
			g.AddArc(v, after, big, times[after]-e.t)
		}
		if after > 0 && !exact {
			g.AddArc(v, after-1, big, e.t-times[after-1])
		}
	}
	return ch, nil
}

// match reads the solved flow: it hands each time's slots to the two
// chains as the flow says, then matches each chain's crawls to its slots
// in time order, and returns each crawl's slot.
func (ch *chains) match(crawls []Crawl, slots []Slot) []int {
	slotOrder := make([]int, len(slots))
	for s := range slotOrder {
		slotOrder[s] = s
	}
	slices.SortStableFunc(slotOrder, func(a, b int) int { return cmp.Compare(slots[a].Start, slots[b].Start) })
	var forA, forB []int
	for k := 0; k < len(slotOrder); {
		p := ch.tl.index(slots[slotOrder[k]].Start)
		n := int(ch.tl.perTime[p])
		a := int(ch.g.Flow(ch.intoA[p]))
		b := 0
		if ch.hasRelease {
			b = int(ch.g.Flow(ch.intoB[p]))
		}
		forA = append(forA, slotOrder[k:k+a]...)
		forB = append(forB, slotOrder[k+a:k+a+b]...)
		k += n
	}
	slotOf := make([]int, len(crawls))
	var inA, inB []int
	for c := range crawls {
		if crawls[c].Release {
			inB = append(inB, c)
		} else {
			inA = append(inA, c)
		}
	}
	byIdeal := func(a, b int) int { return cmp.Compare(crawls[a].Ideal, crawls[b].Ideal) }
	slices.SortStableFunc(inA, byIdeal)
	slices.SortStableFunc(inB, byIdeal)
	for k, c := range inA {
		slotOf[c] = forA[k]
	}
	for k, c := range inB {
		slotOf[c] = forB[k]
	}
	return slotOf
}
