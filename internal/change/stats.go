package change

import "math"

// Observation is one visit to a page compared with the previous visit of the
// same page. The first fetch of a page is not an observation: it only sets
// the baseline the next visit is compared with (spec §5.5 flag: the
// dissertation's n accesses are each preceded by an interval).
type Observation struct {
	// Interval is the time in seconds since the previous visit; it must be
	// positive and finite.
	Interval float64
	// Changed reports whether the page differed from the previous visit.
	Changed bool
	// SinceModified is the time in seconds from the page's Last-Modified
	// time to this visit (T_i of dissertation Fig. 6.11). A negative value or
	// NaN means the server sent no usable Last-Modified.
	SinceModified float64
}

// Valid reports whether o can be added to a Stats: its interval is positive
// and finite.
func (o Observation) Valid() bool {
	return o.Interval > 0 && !math.IsInf(o.Interval, 1)
}

// NumBins is the number of log-spaced bins that summarise the lengths of the
// intervals in which a change was seen. Bin i ≥ 1 holds intervals in
// [2^(i/4), 2^((i+1)/4)) seconds; bin 0 also holds everything shorter and
// the last bin everything longer (2^(127/4) s ≈ 109 years).
//
// Four bins an octave keep the binned MLE within 0.3 % of the MLE on the
// exact list of intervals whenever λ·t ≤ 2 for every changed interval t,
// even when two intervals sit at opposite edges of one bin; the error grows
// to 0.9 % at λ·t = 4, far past the r ≈ 1.5 where the dissertation says to
// sample (§6.4.2). TestBinnedMLEError measures it.
const NumBins = 128

// binsPerOctave and the quarter-octave edges 2^(1/4), 2^(1/2), 2^(3/4).
const (
	binsPerOctave = 4
	edge1         = 1.1892071150027210667 // 2^(1/4)
	edge2         = 1.4142135623730950488 // 2^(1/2)
	edge3         = 1.6817928305074290861 // 2^(3/4)
)

// binIndex returns the bin of an interval of t seconds.
func binIndex(t float64) int {
	if t < 1 {
		return 0
	}
	frac, exp := math.Frexp(t) // t = frac·2^exp with frac in [0.5, 1)
	i := (exp - 1) * binsPerOctave
	switch f := 2 * frac; {
	case f >= edge3:
		i += 3
	case f >= edge2:
		i += 2
	case f >= edge1:
		i++
	}
	return min(i, NumBins-1)
}

// bin is the weight w of the changed intervals that fell in one bin and
// their weighted total length t; t/w is the bin mean used by eq. 6.3.
type bin struct{ w, t float64 }

// Stats holds the sufficient statistics of a page's (or a pooled group's)
// change history. Every estimator in this package is computed from a Stats.
// It is a fixed-size value of about 2 KB with no pointers or slices, so it
// lives on the stack, copies with one memmove and encodes compactly
// (MarshalBinary: only the occupied bins). The zero value is an empty
// history with no decay.
//
// Weights are counts of observations, multiplied by the decay factor when
// Decay is set. A Stats is not safe for concurrent use: Add, Merge and even
// Estimate (which caches the last MLE root as a warm start) write to it.
type Stats struct {
	// Decay is the time constant τ in seconds of exponential forgetting
	// (dissertation §6.7 asks for re-estimation when λ drifts but gives no
	// formula; this is our choice, see Add). Zero means no decay: every
	// observation keeps weight 1 for ever.
	Decay float64

	last           float64 // visit time of the newest observation, seconds
	n, x           float64 // weighted number of observations, and of those with a change
	sumI, sumU     float64 // Σ of all intervals; Σ t_u of the unchanged ones
	minC           float64 // shortest changed interval ever added, 0 if none (not decayed)
	lmN, lmX, lmT  float64 // N, X, T of dissertation Fig. 6.11
	hint           float64 // last MLE root, the warm start of the next solve
	count, lmCount uint32  // observations added, and those with Last-Modified (not decayed)
	lo, hi         uint8   // range of the nonzero bins; 0, 0 when there are none
	bins           [NumBins]bin
}

// Add records obs, made at time at (seconds on any fixed clock). If Decay is
// set, every weight and sum is first multiplied by e^(−(at − last)/τ), where
// last is the time of the newest observation so far, so that an observation
// made Δ seconds ago weighs e^(−Δ/τ). An observation older than the newest
// one is added at full weight and does not move the clock back. Add ignores
// an invalid obs (see Observation.Valid) or a non-finite at.
func (s *Stats) Add(obs Observation, at float64) {
	if !obs.Valid() || math.IsNaN(at) || math.IsInf(at, 0) {
		return
	}
	if s.count == 0 {
		s.last = at
	} else if at > s.last {
		if s.Decay > 0 {
			s.scale(math.Exp(-(at - s.last) / s.Decay))
		}
		s.last = at
	}
	s.count = satAdd(s.count, 1)
	s.n++
	s.sumI += obs.Interval
	if obs.Changed {
		s.x++
		s.addBin(binIndex(obs.Interval), obs.Interval)
		if s.minC == 0 || obs.Interval < s.minC {
			s.minC = obs.Interval
		}
	} else {
		s.sumU += obs.Interval
	}
	// Dissertation Fig. 6.11, Update(T_i, I_i): the page changed since the
	// previous access iff T_i < I_i.
	if obs.SinceModified >= 0 {
		s.lmCount = satAdd(s.lmCount, 1)
		s.lmN++
		if obs.SinceModified < obs.Interval {
			s.lmX++
			s.lmT += obs.SinceModified
		} else {
			s.lmT += obs.Interval
		}
	}
}

// addBin adds one changed interval of length t to bin i.
func (s *Stats) addBin(i int, t float64) {
	if s.lo == s.hi && s.bins[s.lo] == (bin{}) {
		s.lo, s.hi = uint8(i), uint8(i) // the first nonzero bin
	} else {
		s.lo = min(s.lo, uint8(i))
		s.hi = max(s.hi, uint8(i))
	}
	s.bins[i].w++
	s.bins[i].t += t
}

// tighten forgets the bins whose weight fell below minBinWeight, where
// t/w would no longer be a length inside the bin, and shrinks lo and hi to
// the nonzero bins, so that equal histories have equal Stats.
func (s *Stats) tighten() {
	for i := int(s.lo); i <= int(s.hi); i++ {
		if s.bins[i].w < minBinWeight {
			s.bins[i] = bin{}
		}
	}
	for s.lo < s.hi && s.bins[s.lo] == (bin{}) {
		s.lo++
	}
	for s.hi > s.lo && s.bins[s.hi] == (bin{}) {
		s.hi--
	}
	if s.bins[s.lo] == (bin{}) {
		s.lo, s.hi = 0, 0
	}
}

// Merge adds o's observations to s, as if they had been added to s
// directly; it pools pages into a site or a group. With decay (s.Decay is
// used) both sides are first decayed to the later of their newest
// observation times.
func (s *Stats) Merge(o *Stats) {
	if o.count == 0 {
		return
	}
	if s.count == 0 {
		decay := s.Decay
		*s = *o
		s.Decay = decay
		return
	}
	last := max(s.last, o.last)
	cs, co := 1.0, 1.0
	if s.Decay > 0 {
		cs = math.Exp(-(last - s.last) / s.Decay)
		co = math.Exp(-(last - o.last) / s.Decay)
	}
	s.scale(cs)
	s.last = last
	s.n += co * o.n
	s.x += co * o.x
	s.sumI += co * o.sumI
	s.sumU += co * o.sumU
	s.lmN += co * o.lmN
	s.lmX += co * o.lmX
	s.lmT += co * o.lmT
	if o.minC > 0 {
		if s.minC == 0 || o.minC < s.minC {
			s.minC = o.minC
		}
		if s.lo == s.hi && s.bins[s.lo] == (bin{}) {
			s.lo, s.hi = o.lo, o.hi
		} else {
			s.lo, s.hi = min(s.lo, o.lo), max(s.hi, o.hi)
		}
		for i := int(o.lo); i <= int(o.hi); i++ {
			s.bins[i].w += co * o.bins[i].w
			s.bins[i].t += co * o.bins[i].t
		}
		s.tighten()
	}
	s.count = satAdd(s.count, o.count)
	s.lmCount = satAdd(s.lmCount, o.lmCount)
}

// Scale multiplies every weight and sum by c ≥ 0, as if each observation
// counted c times. Pooled uses it to give a site's history the weight of a
// few observations. The counts, the clock and the shortest changed interval
// are unchanged.
func (s *Stats) Scale(c float64) {
	if c >= 0 && !math.IsInf(c, 1) {
		s.scale(c)
	}
}

func (s *Stats) scale(c float64) {
	s.n *= c
	s.x *= c
	s.sumI *= c
	s.sumU *= c
	s.lmN *= c
	s.lmX *= c
	s.lmT *= c
	for i := int(s.lo); i <= int(s.hi); i++ {
		s.bins[i].w *= c
		s.bins[i].t *= c
	}
	s.tighten()
}

// minBinWeight is the weight below which decay forgets a bin: e^(−575) of
// one observation, reached after 575 time constants.
const minBinWeight = 1e-250

// binBounds returns the range of lengths bin i holds, [lo, hi).
func binBounds(i int) (lo, hi float64) {
	lo, hi = math.Ldexp(1, i/binsPerOctave), math.Ldexp(1, i/binsPerOctave)
	edges := [...]float64{1, edge1, edge2, edge3, 2}
	lo *= edges[i%binsPerOctave]
	hi *= edges[i%binsPerOctave+1]
	switch i {
	case 0:
		lo = 0
	case NumBins - 1:
		hi = math.Inf(1)
	}
	return lo, hi
}

func satAdd(a, b uint32) uint32 {
	if c := a + b; c >= a {
		return c
	}
	return math.MaxUint32
}

// N returns the weighted number of observations, n.
func (s *Stats) N() float64 { return s.n }

// Changed returns the weighted number of observations that saw a change, X.
func (s *Stats) Changed() float64 { return s.x }

// SumIntervals returns the weighted sum of all intervals, in seconds.
func (s *Stats) SumIntervals() float64 { return s.sumI }

// SumUnchanged returns the weighted sum of the intervals with no change, the
// right side Σ t_u of dissertation eq. 6.3, in seconds.
func (s *Stats) SumUnchanged() float64 { return s.sumU }

// MinChanged returns the shortest interval, in seconds, in which a change was
// seen (never forgotten by decay), or 0 if none was.
func (s *Stats) MinChanged() float64 { return s.minC }

// LastModified returns the weighted accumulators N, X and T of dissertation
// Fig. 6.11, over the observations that carried a usable Last-Modified.
func (s *Stats) LastModified() (n, x, t float64) { return s.lmN, s.lmX, s.lmT }

// Count returns the number of observations added, regardless of decay.
func (s *Stats) Count() int { return int(s.count) }

// LMCount returns the number of observations added that carried a usable
// Last-Modified, regardless of decay.
func (s *Stats) LMCount() int { return int(s.lmCount) }

// Last returns the visit time of the newest observation, in seconds.
func (s *Stats) Last() float64 { return s.last }
