package change

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestBinIndex checks the quarter-octave bins: bin i starts at 2^(i/4) s,
// the edges are the constants' powers of two, and both ends clamp.
func TestBinIndex(t *testing.T) {
	near(t, "edge1", edge1, math.Pow(2, 0.25), 1e-16)
	near(t, "edge2", edge2, math.Sqrt2, 1e-16)
	near(t, "edge3", edge3, math.Pow(2, 0.75), 1e-16)
	tests := []struct {
		t    float64
		want int
	}{
		{0, 0}, {1e-9, 0}, {0.99, 0}, {1, 0}, {1.18, 0}, {1.19, 1}, {1.5, 2}, {1.99, 3}, {2, 4},
		{3600, 47}, {7200, 51}, {86400, 65}, {math.Pow(2, 31.75), 127}, {1e300, 127},
	}
	for _, tt := range tests {
		if got := binIndex(tt.t); got != tt.want {
			t.Errorf("binIndex(%v) = %d, want %d", tt.t, got, tt.want)
		}
	}
	for i := range NumBins {
		lo, hi := binBounds(i)
		if binIndex(lo) != i || binIndex(math.Nextafter(hi, 0)) != i || i < NumBins-1 && binIndex(hi) != i+1 {
			t.Errorf("bin %d: bounds [%v, %v) disagree with binIndex", i, lo, hi)
		}
	}
	for i := 1; i < NumBins; i++ {
		lower := math.Pow(2, float64(i)/4)
		if got := binIndex(lower * (1 + 1e-12)); got != i {
			t.Errorf("just above 2^(%d/4): bin %d", i, got)
		}
		if got := binIndex(lower * (1 - 1e-12)); got != i-1 {
			t.Errorf("just below 2^(%d/4): bin %d", i, got)
		}
	}
}

// randomHistory returns n seeded observations around a daily interval, with
// changes at rate lambda and Last-Modified on about half the visits, and the
// visit times.
func randomHistory(seed uint64, n int, lambda float64) ([]Observation, []float64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	obs := make([]Observation, n)
	at := make([]float64, n)
	now := 0.0
	for i := range obs {
		iv := day * math.Exp(rng.NormFloat64()/2)
		back := rng.ExpFloat64() / lambda
		since := -1.0
		if rng.IntN(2) == 0 {
			since = back
		}
		now += iv
		obs[i] = Observation{Interval: iv, Changed: back < iv, SinceModified: since}
		at[i] = now
	}
	return obs, at
}

// TestStatsAccumulators checks Stats against the quantities computed
// directly from the list of observations, including the Last-Modified
// accumulators run as the pseudocode of dissertation Fig. 6.11.
func TestStatsAccumulators(t *testing.T) {
	obs, at := randomHistory(1, 300, 1/day)
	var s Stats
	var n, x, sumI, sumU, minC float64
	var lmN, lmX, lmT float64
	lm := 0
	for i, o := range obs {
		s.Add(o, at[i])
		n++
		sumI += o.Interval
		if o.Changed {
			x++
			if minC == 0 || o.Interval < minC {
				minC = o.Interval
			}
		} else {
			sumU += o.Interval
		}
		if o.SinceModified >= 0 { // Fig. 6.11 Update(T_i, I_i)
			lm++
			lmN++
			if o.SinceModified < o.Interval {
				lmX++
				lmT += o.SinceModified
			} else {
				lmT += o.Interval
			}
		}
	}
	near(t, "n", s.N(), n, 0)
	near(t, "X", s.Changed(), x, 0)
	nearRel(t, "ΣI", s.SumIntervals(), sumI, 1e-12)
	nearRel(t, "Σt_u", s.SumUnchanged(), sumU, 1e-12)
	near(t, "min changed", s.MinChanged(), minC, 0)
	gotN, gotX, gotT := s.LastModified()
	near(t, "LM N", gotN, lmN, 0)
	near(t, "LM X", gotX, lmX, 0)
	nearRel(t, "LM T", gotT, lmT, 1e-12)
	if s.Count() != len(obs) || s.LMCount() != lm {
		t.Errorf("counts %d, %d; want %d, %d", s.Count(), s.LMCount(), len(obs), lm)
	}
	near(t, "last", s.Last(), at[len(at)-1], 0)
	// The bins hold every changed interval: their weights sum to X and
	// their lengths to ΣI − Σt_u.
	var w, l float64
	for _, b := range s.bins {
		w += b.w
		l += b.t
	}
	near(t, "Σ bin weights", w, x, 0)
	nearRel(t, "Σ bin lengths", l, sumI-sumU, 1e-12)
}

// TestAddIgnoresInvalid checks that Add drops observations it cannot use.
func TestAddIgnoresInvalid(t *testing.T) {
	for _, c := range []struct {
		o  Observation
		at float64
	}{
		{Observation{Interval: 0, Changed: true}, 1},
		{Observation{Interval: -1}, 1},
		{Observation{Interval: math.NaN()}, 1},
		{Observation{Interval: math.Inf(1)}, 1},
		{Observation{Interval: 1}, math.NaN()},
		{Observation{Interval: 1}, math.Inf(1)},
	} {
		var s Stats
		s.Add(c.o, c.at)
		if s != (Stats{}) {
			t.Errorf("Add(%+v, %v) changed the Stats", c.o, c.at)
		}
	}
	// A NaN Last-Modified is unknown, like a negative one.
	var s Stats
	s.Add(Observation{Interval: 1, SinceModified: math.NaN()}, 1)
	if s.LMCount() != 0 || s.Count() != 1 {
		t.Errorf("NaN SinceModified: counts %d, %d", s.Count(), s.LMCount())
	}
}

// TestDecayWeights checks the decay rule on a closed form: an observation
// made Δ seconds before the newest weighs e^(−Δ/τ), and observations older
// than the newest are added at full weight without moving the clock back.
func TestDecayWeights(t *testing.T) {
	const tau = 10 * day
	s := Stats{Decay: tau}
	s.Add(Observation{Interval: day, Changed: true, SinceModified: -1}, 0)
	s.Add(Observation{Interval: 2 * day, SinceModified: -1}, 5*day)
	s.Add(Observation{Interval: 3 * day, Changed: true, SinceModified: -1}, 12*day)
	w0, w1 := math.Exp(-12.0/10), math.Exp(-7.0/10)
	nearRel(t, "n", s.N(), w0+w1+1, 1e-14)
	nearRel(t, "X", s.Changed(), w0+1, 1e-14)
	nearRel(t, "ΣI", s.SumIntervals(), (w0+2*w1+3)*day, 1e-14)
	nearRel(t, "Σt_u", s.SumUnchanged(), 2*w1*day, 1e-14)
	s.Add(Observation{Interval: day, SinceModified: -1}, 3*day) // out of order
	nearRel(t, "n after an old observation", s.N(), w0+w1+2, 1e-14)
	near(t, "clock", s.Last(), 12*day, 0)
}

// TestDecayInfinite checks that a time constant far beyond the history
// gives the estimates of no decay.
func TestDecayInfinite(t *testing.T) {
	obs, at := randomHistory(2, 500, 0.7/day)
	plain, decayed := Stats{}, Stats{Decay: 1e300}
	for i, o := range obs {
		plain.Add(o, at[i])
		decayed.Add(o, at[i])
	}
	for _, est := range All() {
		a, b := est.Estimate(&plain), est.Estimate(&decayed)
		nearRel(t, est.Name(), b.Rate, a.Rate, 1e-12)
	}
}

// TestDecayFollowsRateSwitch simulates 100 seeded pages visited daily whose
// rate jumps from 0.2 to 1 change a day after 300 days, and estimates 300
// days after the jump. With τ = 30 days the decayed MLE forgets the old rate
// (its weight is e^(−10)) and sees about 2τ = 60 effective visits, a
// relative standard error near 17 % per page and 1.7 % for the mean over
// pages, so the mean is within 6 % of the new rate; without decay the
// estimate is stuck near the blend of the two rates, more than 25 % below.
func TestDecayFollowsRateSwitch(t *testing.T) {
	const before, after = 0.2 / day, 1 / day
	rng := rand.New(rand.NewPCG(300, 300))
	var meanDecayed, meanPlain float64
	const pages = 100
	for range pages {
		plain, decayed := Stats{}, Stats{Decay: 30 * day}
		at, next := 0.0, rng.ExpFloat64()/before
		for i := range 600 {
			at += day
			changed := next <= at
			for next <= at {
				rate := before
				if i >= 300 {
					rate = after
				}
				next += rng.ExpFloat64() / rate
			}
			o := Observation{Interval: day, Changed: changed, SinceModified: -1}
			plain.Add(o, at)
			decayed.Add(o, at)
		}
		meanDecayed += MLE{}.Estimate(&decayed).Rate / pages
		meanPlain += MLE{}.Estimate(&plain).Rate / pages
	}
	t.Logf("mean estimate with decay %.3f/day, without %.3f/day (true %.1f/day)", meanDecayed*day, meanPlain*day, after*day)
	nearRel(t, "decayed", meanDecayed, after, 0.06)
	if meanPlain > 0.75*after {
		t.Errorf("undecayed mean %.3f/day, want below %.3f/day", meanPlain*day, 0.75*after*day)
	}
}

// TestMerge checks that merging Stats built from two parts of a history
// equals adding the whole history to one Stats, for a split in time and an
// interleaved one, with and without decay, field by field and estimate by
// estimate.
func TestMerge(t *testing.T) {
	obs, at := randomHistory(3, 400, 0.5/day)
	for _, decay := range []float64{0, 20 * day} {
		for _, split := range []struct {
			name string
			in   func(i int) bool
		}{
			{"halves", func(i int) bool { return i < 200 }},
			{"interleaved", func(i int) bool { return i%3 == 0 }},
		} {
			whole, a, b := Stats{Decay: decay}, Stats{Decay: decay}, Stats{Decay: decay}
			for i, o := range obs {
				whole.Add(o, at[i])
				if split.in(i) {
					a.Add(o, at[i])
				} else {
					b.Add(o, at[i])
				}
			}
			a.Merge(&b)
			statsNear(t, split.name, &a, &whole)
			for _, est := range All() {
				nearRel(t, split.name+" "+est.Name(), est.Estimate(&a).Rate, est.Estimate(&whole).Rate, 1e-9)
			}
		}
	}
	// Merging into an empty Stats copies; merging an empty one does nothing.
	var empty, c Stats
	c.Merge(&empty)
	if c != (Stats{}) {
		t.Error("merging an empty Stats changed an empty one")
	}
	full := regular(5, 2, day)
	c.Merge(full)
	statsNear(t, "into empty", &c, full)
}

// statsNear fails t unless a and b hold the same statistics to 1e-12.
func statsNear(t *testing.T, what string, a, b *Stats) {
	t.Helper()
	fa, fb := a.floats(), b.floats()
	for i := range fa {
		if i == fHint {
			continue
		}
		if math.Abs(fa[i]-fb[i]) > 1e-12*math.Abs(fb[i]) {
			t.Errorf("%s: field %d = %v, want %v", what, i, fa[i], fb[i])
		}
	}
	if a.count != b.count || a.lmCount != b.lmCount || a.lo != b.lo || a.hi != b.hi {
		t.Errorf("%s: counts or bin range differ: %d %d %d %d vs %d %d %d %d", what,
			a.count, a.lmCount, a.lo, a.hi, b.count, b.lmCount, b.lo, b.hi)
	}
	for i := range a.bins {
		if math.Abs(a.bins[i].w-b.bins[i].w) > 1e-12*b.bins[i].w || math.Abs(a.bins[i].t-b.bins[i].t) > 1e-12*b.bins[i].t {
			t.Errorf("%s: bin %d = %v, want %v", what, i, a.bins[i], b.bins[i])
		}
	}
}

// TestScale checks that scaling all weights leaves the scale-invariant
// estimators unchanged and multiplies the sums.
func TestScale(t *testing.T) {
	obs, at := randomHistory(4, 100, 1/day)
	var s Stats
	for i, o := range obs {
		s.Add(o, at[i])
	}
	c := s
	c.Scale(0.37)
	nearRel(t, "n", c.N(), 0.37*s.N(), 1e-15)
	for _, est := range []Estimator{Naive{}, MLE{}, LM{}} {
		nearRel(t, est.Name(), est.Estimate(&c).Rate, est.Estimate(&s).Rate, 1e-10)
	}
	c = s
	c.Scale(-1)
	c.Scale(math.Inf(1))
	c.Scale(math.NaN())
	statsNear(t, "invalid factors ignored", &c, &s)
}

// TestRegistry checks the names of All and ByName.
func TestRegistry(t *testing.T) {
	want := []string{"naive", "improved", "mle", "lm", "lm-reduced", "bayes", "prior-mle"}
	all := All()
	if len(all) != len(want) {
		t.Fatalf("All has %d estimators, want %d", len(all), len(want))
	}
	obs, at := randomHistory(5, 50, 1/day)
	var s Stats
	for i, o := range obs {
		s.Add(o, at[i])
	}
	for i, e := range all {
		if e.Name() != want[i] {
			t.Errorf("All()[%d] is %q, want %q", i, e.Name(), want[i])
		}
		got, err := ByName(want[i])
		if err != nil || got.Name() != want[i] {
			t.Errorf("ByName(%q) = %v, %v", want[i], got, err)
		}
		if est := e.Estimate(&s); !est.OK || !(est.Rate > 0) {
			t.Errorf("%s on 50 visits: %+v", e.Name(), est)
		}
	}
	if _, err := ByName("nope"); !errors.Is(err, ErrUnknownEstimator) {
		t.Errorf("ByName(nope) error %v", err)
	}
}

// TestDecayForgets checks that decay far past the time constant forgets the
// bins rather than leave weights so small that their mean length is
// rounding noise, and that such a Stats still encodes and decodes, whether
// it got there by Add or by Merge.
func TestDecayForgets(t *testing.T) {
	old := Stats{Decay: 1}
	old.Add(Observation{Interval: 5, Changed: true, SinceModified: -1}, 0)
	old.Add(Observation{Interval: 7, Changed: false, SinceModified: -1}, 1)
	added := old
	added.Add(Observation{Interval: 9, Changed: false, SinceModified: -1}, 700)
	fresh := Stats{Decay: 1}
	fresh.Add(Observation{Interval: 9, Changed: false, SinceModified: -1}, 700)
	merged := fresh
	merged.Merge(&old)
	for name, s := range map[string]*Stats{"added": &added, "merged": &merged} {
		for i, b := range s.bins {
			if b != (bin{}) {
				t.Errorf("%s: bin %d = %v, want forgotten", name, i, b)
			}
		}
		enc, _ := s.MarshalBinary()
		var back Stats
		if err := back.UnmarshalBinary(enc); err != nil || back != *s {
			t.Errorf("%s: round trip: %v", name, err)
		}
		if e := (MLE{}).Estimate(s); !e.OK || !(e.Rate < 1e-200) {
			t.Errorf("%s: MLE %+v, want a rate near 0", name, e)
		}
	}
}
