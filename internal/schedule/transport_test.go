package schedule

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// crawlCost is paper 002's cost of running crawl c at time t (eq. 22 for
// release crawls, |t − t*| otherwise), in the same rounding to whole
// resolution units AssignCrawls uses.
func crawlCost(c Crawl, t, resolution float64) float64 {
	d := math.Round(t/resolution) - math.Round(c.Ideal/resolution)
	if c.Release {
		if d < 0 {
			return math.Inf(1)
		}
		return d * resolution
	}
	return math.Abs(d) * resolution
}

// assignmentCost checks that slotOf uses each slot at most once and
// returns its total cost.
func assignmentCost(t *testing.T, crawls []Crawl, slots []Slot, slotOf []int, resolution float64) float64 {
	t.Helper()
	used := make([]bool, len(slots))
	var cost float64
	for c, s := range slotOf {
		if used[s] {
			t.Fatalf("slot %d used twice", s)
		}
		used[s] = true
		cost += crawlCost(crawls[c], slots[s].Start, resolution)
	}
	return cost
}

// assignBrute is the cheapest injective assignment of crawls to slots, by
// enumerating them all.
func assignBrute(crawls []Crawl, slots []Slot, resolution float64) float64 {
	best := math.Inf(1)
	used := make([]bool, len(slots))
	var rec func(c int, cost float64)
	rec = func(c int, cost float64) {
		if c == len(crawls) {
			best = min(best, cost)
			return
		}
		for s := range slots {
			if !used[s] {
				used[s] = true
				rec(c+1, cost+crawlCost(crawls[c], slots[s].Start, resolution))
				used[s] = false
			}
		}
	}
	rec(0, 0)
	return best
}

// randomCrawls draws n crawls at uniform ideal times in [0, period), each a
// release crawl with probability pRelease.
func randomCrawls(rng *rand.Rand, n int, period, pRelease float64) []Crawl {
	out := make([]Crawl, n)
	for c := range out {
		out[c] = Crawl{Page: int32(c), Ideal: rng.Float64() * period, Release: rng.Float64() < pRelease}
	}
	return out
}

// TestAssignBruteForce compares AssignCrawls with assignBrute on 1 000
// random instances of up to 6 crawls (a third of them release crawls) and
// up to 7 slots on 1 to 3 crawlers: the same cost, or both infeasible,
// and the returned assignment must cost what AssignCrawls reports.
func TestAssignBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	const period, res = 100.0, 0.5
	infeasible := 0
	for trial := range 1000 {
		per := make([]int, 1+rng.IntN(3))
		m := 0
		for k := range per {
			per[k] = 1 + rng.IntN(3)
			m += per[k]
		}
		if m > 7 {
			per, m = per[:1], per[0]
		}
		slots := Slots(period, per)
		crawls := randomCrawls(rng, 1+rng.IntN(m), period, 1.0/3)
		want := assignBrute(crawls, slots, res)
		slotOf, got, err := AssignCrawls(crawls, slots, res)
		if math.IsInf(want, 1) {
			infeasible++
			if !errors.Is(err, ErrInfeasible) {
				t.Fatalf("trial %d: brute force finds no assignment, AssignCrawls: %v", trial, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("trial %d: %v (brute force: %g)", trial, err, want)
		}
		if got != want {
			t.Fatalf("trial %d: cost %g, brute force %g\ncrawls %v\nslots %v", trial, got, want, crawls, slots)
		}
		if c := assignmentCost(t, crawls, slots, slotOf, res); c != got {
			t.Fatalf("trial %d: assignment costs %g, reported %g", trial, c, got)
		}
	}
	if infeasible == 0 || infeasible > 500 {
		t.Errorf("%d infeasible instances: want some, not most", infeasible)
	}
}

// TestAssignSorted checks the closed form for crawls without release
// times: on a line, matching crawls and slots in time order minimises
// Σ|t − t*|, so with as many crawls as slots the optimum is Σ|s_(k) −
// t*_(k)| over the sorted lists. 2 000 crawls on 10 crawlers of 200 slots.
func TestAssignSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 14))
	const period, res = day, 1e-3
	slots := Slots(period, slices.Repeat([]int{200}, 10))
	crawls := randomCrawls(rng, len(slots), period, 0)
	slotOf, got, err := AssignCrawls(crawls, slots, res)
	if err != nil {
		t.Fatal(err)
	}
	var ideal, starts []float64
	for _, c := range crawls {
		ideal = append(ideal, math.Round(c.Ideal/res))
	}
	for _, s := range slots {
		starts = append(starts, math.Round(s.Start/res))
	}
	slices.Sort(ideal)
	slices.Sort(starts)
	var want float64
	for k := range ideal {
		want += math.Abs(starts[k] - ideal[k])
	}
	want *= res
	if math.Abs(got-want) > 1e-6*want {
		t.Errorf("cost %g, sorted matching %g", got, want)
	}
	if c := assignmentCost(t, crawls, slots, slotOf, res); math.Abs(c-got) > 1e-6*got {
		t.Errorf("assignment costs %g, reported %g", c, got)
	}
}

// TestAssignHungarian compares AssignCrawls with the Hungarian algorithm
// on 20 instances of 60 crawls, a fifth of them release crawls, on 4
// crawlers of 15 slots; an early release crawl costs a big M, so the
// Hungarian optimum is feasible iff it is below M.
func TestAssignHungarian(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 15))
	const period, res = 3600.0, 1.0
	const bigM = int64(1) << 40
	for trial := range 20 {
		slots := Slots(period, []int{15, 15, 15, 15})
		crawls := randomCrawls(rng, len(slots), period*0.9, 0.2)
		c := make([][]int64, len(crawls))
		for i, cr := range crawls {
			c[i] = make([]int64, len(slots))
			for j, s := range slots {
				if v := crawlCost(cr, s.Start, res); math.IsInf(v, 1) {
					c[i][j] = bigM
				} else {
					c[i][j] = int64(v / res)
				}
			}
		}
		want := hungarian(c)
		slotOf, got, err := AssignCrawls(crawls, slots, res)
		if want >= bigM {
			if !errors.Is(err, ErrInfeasible) {
				t.Errorf("trial %d: Hungarian finds no feasible assignment, AssignCrawls: %v", trial, err)
			}
			continue
		}
		if err != nil || int64(got/res) != want {
			t.Fatalf("trial %d: cost %g, %v; Hungarian %d", trial, got, err, want)
		}
		assignmentCost(t, crawls, slots, slotOf, res)
	}
}

// TestIdealTimes checks the even spacing of a page's crawls, the shift by a
// known last crawl, and Slots' (l − 1)·T/S_k.
func TestIdealTimes(t *testing.T) {
	crawls := IdealTimes([]int{0, 4, 2}, 100, []float64{math.NaN(), -10, -80}, []bool{false, false, true})
	want := []Crawl{{1, 15, false}, {1, 40, false}, {1, 65, false}, {1, 90, false}, {2, 0, true}, {2, 50, true}}
	if !slices.Equal(crawls, want) {
		t.Errorf("IdealTimes = %v, want %v", crawls, want)
	}
	for _, c := range IdealTimes([]int{3, 3}, 90, nil, nil) {
		if c.Ideal < 0 || c.Ideal >= 90 {
			t.Errorf("crawl %v outside the period", c)
		}
	}
	if s := Slots(10, []int{2, 5}); len(s) != 7 || s[1] != (Slot{0, 5}) || s[6] != (Slot{1, 8}) {
		t.Errorf("Slots = %v", s)
	}
}
