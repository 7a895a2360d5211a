package schedule

import (
	"fmt"
	"math"
	"slices"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// Visit is one planned fetch.
type Visit struct {
	// Time is when to fetch, in seconds on the caller's clock.
	Time float64
	// Page is the index of the page to fetch.
	Page int32
}

// Timetable turns revisit frequencies into fetch times over a window:
// each page evenly spaced at its interval 1/f_i, which is what the
// dissertation's fixed-order policy assumes (Algorithm 5.4.1, the best
// order for both freshness and age) and what paper 002 shows optimal for
// any update process (spec B.2); then, host by host, the visits are moved
// as little as possible, in the least-squares sense, so that no two are
// closer than the host's delay 1/c_h.
type Timetable struct {
	// Start and Horizon are the window [Start, Start + Horizon), in
	// seconds: the pages' ideal visits in it are planned.
	Start, Horizon float64
	// Hosts gives each page's host and each host's capacity c_h; visits
	// to host h are at least 1/c_h apart. Pages on no host are not moved.
	Hosts Hosts
	// Phase[i] in [0, 1) puts page i's first ideal visit at
	// Start + Phase[i]/f_i. To continue from a visit at time t, use
	// Phase = frac((t − Start)·f_i). Nil staggers each host's pages by the
	// golden-ratio sequence, so that pages of equal frequency do not all
	// ask for the same instant.
	Phase []float64
	// NotBefore[h], if not nil, is the earliest time host h may be
	// visited, e.g. its last visit in the previous window plus its delay.
	NotBefore []float64
}

// Plan returns the visits of the pages at frequencies freq (visits per
// second), sorted by time (ties by page). Visits to a host are pushed
// later, never before Start or NotBefore, so they may run past the window
// when a host has more ideal visits than its capacity allows; a host of
// capacity 0 gets no visits. It takes O(V log V) time for V visits.
//
// The steps: each page's phase and number of visits (layout), the ideal
// visits gathered by host, each host's sorted by time (byHost), each host's
// visits spread to its capacity (spreadHosts), and all of them sorted by
// time and page.
func (t Timetable) Plan(freq []float64) ([]Visit, error) {
	if err := t.check(len(freq)); err != nil {
		return nil, err
	}
	phase, count, start, err := t.layout(freq)
	if err != nil {
		return nil, err
	}
	visits, tmp := t.byHost(freq, phase, count, start)
	t.spreadHosts(visits, start)
	sortByTime(visits, tmp)
	// Equal times from different hosts are in host order: put them in
	// page order. Such runs are short.
	for lo := 0; lo < len(visits); {
		hi := lo + 1
		for hi < len(visits) && visits[hi].Time == visits[lo].Time {
			hi++
		}
		if hi-lo > 1 {
			slices.SortFunc(visits[lo:hi], compareVisits)
		}
		lo = hi
	}
	return visits, nil
}

// check reports what is wrong with t for n pages.
func (t Timetable) check(n int) error {
	if err := t.Hosts.check(n); err != nil {
		return err
	}
	if !(t.Horizon >= 0) || math.IsInf(t.Horizon, 1) || math.IsNaN(t.Start) || math.IsInf(t.Start, 0) {
		return fmt.Errorf("%w: window [%v, %v + %v)", policy.ErrInput, t.Start, t.Start, t.Horizon)
	}
	if t.Phase != nil && len(t.Phase) != n || t.NotBefore != nil && len(t.NotBefore) != len(t.Hosts.Capacity) {
		return fmt.Errorf("%w: %d phases, %d host bounds for %d pages, %d hosts",
			policy.ErrInput, len(t.Phase), len(t.NotBefore), n, len(t.Hosts.Capacity))
	}
	return nil
}

// layout returns each page's phase and number of visits in the window,
// and where each host's visits start in a list of them grouped by host:
// host g's are [start[g], start[g+1]), the pages on no host last.
func (t Timetable) layout(freq []float64) (phase []float64, count, start []int, err error) {
	nh := len(t.Hosts.Capacity)
	phase = make([]float64, len(freq))
	count = make([]int, len(freq))
	start = make([]int, nh+2)
	rank := make([]int, nh+1) // pages seen so far per host, for the stagger
	for i, f := range freq {
		if !(f >= 0) || math.IsInf(f, 1) {
			return nil, nil, nil, fmt.Errorf("%w: page %d has frequency %v", policy.ErrInput, i, f)
		}
		g := t.Hosts.group(i, nh)
		if f == 0 || g < nh && t.Hosts.Capacity[g] == 0 {
			continue
		}
		x := float64(rank[g]) * goldenFrac
		phase[i] = x - math.Floor(x)
		rank[g]++
		if t.Phase != nil {
			phase[i] = t.Phase[i]
			if !(phase[i] >= 0 && phase[i] < 1) {
				return nil, nil, nil, fmt.Errorf("%w: page %d has phase %v", policy.ErrInput, i, phase[i])
			}
		}
		// The k ≥ 0 with (phase + k)/f < Horizon.
		count[i] = max(0, int(math.Ceil(t.Horizon*f-phase[i])))
		start[g+1] += count[i]
	}
	for g := range nh + 1 {
		start[g+1] += start[g]
	}
	return phase, count, start, nil
}

// byHost returns the pages' ideal visits grouped by host as layout's start
// says, each host's in order of time, then page, and a scratch slice as
// long. Generated in page order, sorted by time and then (stably, by a
// counting sort) by host, each host's visits come out in that order.
func (t Timetable) byHost(freq, phase []float64, count, start []int) (visits, tmp []Visit) {
	nh := len(t.Hosts.Capacity)
	visits = make([]Visit, 0, start[nh+1])
	for i, f := range freq {
		for j := range count[i] {
			visits = append(visits, Visit{Time: t.Start + (phase[i]+float64(j))/f, Page: int32(i)})
		}
	}
	tmp = make([]Visit, len(visits))
	sortByTime(visits, tmp)
	next := slices.Clone(start[:nh+1])
	for _, v := range visits {
		g := t.Hosts.group(int(v.Page), nh)
		tmp[next[g]] = v
		next[g]++
	}
	return tmp, visits
}

// spreadHosts moves each host's visits (grouped as start says) as little
// as possible so that they are at least the host's delay apart and not
// before Start or the host's NotBefore.
func (t Timetable) spreadHosts(visits []Visit, start []int) {
	var times []float64
	for g := range len(t.Hosts.Capacity) {
		hv := visits[start[g]:start[g+1]]
		if len(hv) == 0 {
			continue
		}
		gap, floor := 1/t.Hosts.Capacity[g], t.Start
		if t.NotBefore != nil {
			floor = max(floor, t.NotBefore[g])
		}
		if gap > 0 || floor > hv[0].Time {
			times = times[:0]
			for _, v := range hv {
				times = append(times, v.Time)
			}
			spread(times, gap, floor)
			for k := range times {
				hv[k].Time = times[k]
			}
		}
	}
}

// sortByTime sorts v by time, stably, with tmp (as long as v) for
// scratch: an LSD radix sort on the times' bits, a byte a pass, skipping
// the bytes all the times share (the exponent, in a window of a day).
// On 10⁶ visits it is some ten times quicker than a comparison sort
// through a function value.
func sortByTime(v, tmp []Visit) {
	key := func(t float64) uint64 { // orders as the floats do
		b := math.Float64bits(t)
		if b>>63 != 0 {
			return ^b
		}
		return b | 1<<63
	}
	if len(v) < 2 {
		return
	}
	src, dst := v, tmp
	for shift := 0; shift < 64; shift += 8 {
		var count [256]int
		for _, x := range src {
			count[key(x.Time)>>shift&0xff]++
		}
		if count[key(src[0].Time)>>shift&0xff] == len(src) {
			continue // every time has this byte
		}
		at := 0
		for d, c := range count {
			count[d], at = at, at+c
		}
		for _, x := range src {
			d := key(x.Time) >> shift & 0xff
			dst[count[d]] = x
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &v[0] {
		copy(v, src)
	}
}

// goldenFrac is the fractional part of the golden ratio: k·goldenFrac
// mod 1 spreads any number of points evenly over [0, 1).
const goldenFrac = 0.6180339887498949

// compareVisits orders visits by time, then page. (Times are finite: the
// plain comparisons are quicker than cmp.Compare's, which order NaNs.)
func compareVisits(a, b Visit) int {
	switch {
	case a.Time < b.Time:
		return -1
	case a.Time > b.Time:
		return 1
	}
	return int(a.Page - b.Page)
}

// spread moves the sorted times t as little as possible in the least
// squares, min Σ(t′_k − t_k)², so that t′_{k+1} − t′_k ≥ gap and
// t′_0 ≥ floor. Keeping the order is optimal (exchanging two visits'
// targets never lowers a sum of squares), and with u_k = t_k − k·gap the
// constraints say that v_k = t′_k − k·gap is non-decreasing and ≥ floor:
// an isotonic regression, which the pool-adjacent-violators algorithm
// solves in O(n), and whose solution clamped at floor is the bounded one.
func spread(t []float64, gap, floor float64) {
	type block struct {
		sum float64
		n   int
	}
	blocks := make([]block, 0, len(t))
	for k, v := range t {
		b := block{v - float64(k)*gap, 1}
		for len(blocks) > 0 {
			last := blocks[len(blocks)-1]
			if last.sum*float64(b.n) <= b.sum*float64(last.n) { // last mean ≤ b's mean
				break
			}
			b.sum += last.sum
			b.n += last.n
			blocks = blocks[:len(blocks)-1]
		}
		blocks = append(blocks, b)
	}
	k := 0
	for _, b := range blocks {
		v := max(b.sum/float64(b.n), floor)
		for range b.n {
			t[k] = v + float64(k)*gap
			k++
		}
	}
}
