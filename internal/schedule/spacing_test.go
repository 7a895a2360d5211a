package schedule

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// spreadBrute solves min Σ(t′_k − t_k)² subject to t′_{k+1} − t′_k ≥ gap and
// t′_0 ≥ floor by enumeration: the optimum cuts the visits into runs of
// consecutive ones held exactly gap apart, each run placed at its own
// least-squares position (the mean of t_k − k·gap), the first possibly
// pinned at floor. Every cut into runs, with and without the pin, that is
// feasible is a candidate; the optimum is the cheapest of them.
func spreadBrute(t []float64, gap, floor float64) []float64 {
	n := len(t)
	best, bestCost := []float64(nil), math.Inf(1)
	for cuts := 0; cuts < 1<<(n-1); cuts++ {
		for pin := range 2 {
			cand := make([]float64, n)
			for lo := 0; lo < n; {
				hi := lo + 1
				for hi < n && cuts&(1<<(hi-1)) == 0 {
					hi++
				}
				var mean float64
				for k := lo; k < hi; k++ {
					mean += t[k] - float64(k)*gap
				}
				mean /= float64(hi - lo)
				if lo == 0 && pin == 1 {
					mean = floor
				}
				for k := lo; k < hi; k++ {
					cand[k] = mean + float64(k)*gap
				}
				lo = hi
			}
			ok := cand[0] >= floor-1e-12
			for k := 1; k < n; k++ {
				ok = ok && cand[k]-cand[k-1] >= gap-1e-12
			}
			var cost float64
			for k := range t {
				cost += (cand[k] - t[k]) * (cand[k] - t[k])
			}
			if ok && cost < bestCost {
				best, bestCost = cand, cost
			}
		}
	}
	return best
}

// TestSpreadBruteForce checks the pool-adjacent-violators spreading of a
// host's visits against spreadBrute on 2 000 random instances of 1 to 8
// visits: the times must agree within 1e-9 s.
func TestSpreadBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	var worst float64
	for range 2000 {
		n := 1 + rng.IntN(8)
		times := make([]float64, n)
		for k := range times {
			times[k] = rng.Float64() * 10
		}
		slices.Sort(times)
		gap, floor := rng.Float64()*3, rng.Float64()*4-1
		want := spreadBrute(times, gap, floor)
		got := slices.Clone(times)
		spread(got, gap, floor)
		for k := range got {
			worst = max(worst, math.Abs(got[k]-want[k]))
		}
		if worst > 1e-9 {
			t.Fatalf("times %v gap %g floor %g:\ngot  %v\nwant %v", times, gap, floor, got, want)
		}
	}
	t.Logf("worst difference %.2g s", worst)
}

// TestTimetable plans a day of 2 000 pages on 20 hosts whose delays are
// tight enough to move some visits (one host has no delay), and checks the
// timetable: each page has its ideal number of visits, every host's
// visits are at least its delay apart and not before the window or the
// host's NotBefore, and the output is sorted; with caps that never bind,
// the visits are the ideal ones.
func TestTimetable(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const n, nh = 2000, 20
	freq := make([]float64, n)
	of := make([]int32, n)
	for i := range freq {
		freq[i] = math.Exp(rng.NormFloat64()) / day
		of[i] = int32(rng.IntN(nh+2)) - 2 // a tenth on no host
		if of[i] < 0 {
			of[i] = NoHost
		}
	}
	caps := make([]float64, nh)
	notBefore := make([]float64, nh)
	load := hostSums(of, nh, freq)
	for h := range caps {
		caps[h] = load[h] * (0.8 + rng.Float64()) // some hosts over capacity
		notBefore[h] = 1000 + rng.Float64()*3600
	}
	caps[3] = math.Inf(1) // no delay, but a NotBefore
	tt := Timetable{Start: 1000, Horizon: day, Hosts: Hosts{Of: of, Capacity: caps}, NotBefore: notBefore}
	visits, err := tt.Plan(freq)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(visits, compareVisits) {
		t.Error("visits not sorted")
	}
	count := make([]int, n)
	last := make([]float64, nh)
	for h := range last {
		last[h] = math.Inf(-1)
	}
	for _, v := range visits {
		count[v.Page]++
		h := of[v.Page]
		if h < 0 {
			continue
		}
		if v.Time < notBefore[h]-1e-9 || v.Time < tt.Start {
			t.Errorf("host %d visited at %g, before %g", h, v.Time, notBefore[h])
		}
		if gap := 1 / caps[h]; v.Time-last[h] < gap*(1-1e-9) {
			t.Errorf("host %d visited at %g and %g, less than its delay %g apart", h, last[h], v.Time, gap)
		}
		last[h] = v.Time
	}
	var total float64
	for i, f := range freq {
		// Without Phase, page i's visits are at Start + (φ + k)/f for the
		// k with (φ + k)/f < Horizon: ⌈Horizon·f − φ⌉ of them, φ ∈ [0, 1).
		lo, hi := int(math.Floor(day*f)), int(math.Ceil(day*f))
		if count[i] < lo || count[i] > hi {
			t.Errorf("page %d at %g/day has %d visits, want %d to %d", i, f*day, count[i], lo, hi)
		}
		total += f * day
	}
	if math.Abs(float64(len(visits))-total) > float64(n) {
		t.Errorf("%d visits, want about %g", len(visits), total)
	}
	// With capacities that never bind, the visits are the ideal ones.
	phase := make([]float64, n)
	for i := range phase {
		phase[i] = rng.Float64()
	}
	free := Timetable{Horizon: day, Hosts: Hosts{Of: of, Capacity: slices.Repeat([]float64{1e9}, nh)}, Phase: phase}
	got, err := free.Plan(freq)
	if err != nil {
		t.Fatal(err)
	}
	ideal, err := Timetable{Horizon: day, Phase: phase}.Plan(freq)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, ideal) {
		t.Errorf("caps that do not bind moved visits")
	}
}

// TestTimetableStagger checks the default phases: pages of one host at the
// same frequency get distinct, evenly spread first visits (the golden-ratio
// sequence keeps any prefix of k points at least about 1/(2.6k) apart).
func TestTimetableStagger(t *testing.T) {
	const k = 10
	freq := slices.Repeat([]float64{1.0 / 3600}, k)
	of := make([]int32, k)
	visits, err := Timetable{Horizon: 3600, Hosts: Hosts{Of: of, Capacity: []float64{math.Inf(1)}}}.Plan(freq)
	if err != nil {
		t.Fatal(err)
	}
	if len(visits) != k {
		t.Fatalf("%d visits, want %d", len(visits), k)
	}
	for j := 1; j < k; j++ {
		if d := visits[j].Time - visits[j-1].Time; d < 3600/(2.7*k) {
			t.Errorf("visits %d and %d only %g s apart", j-1, j, d)
		}
	}
}
