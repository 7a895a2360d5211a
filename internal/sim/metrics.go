package sim

import "math"

// Result is what a run measured. Averages are over the window
// [Config.WarmUp, Config.Duration) and over pages; counts are of events in
// the window unless said otherwise.
type Result struct {
	Pages  int     // number of pages
	Window float64 // length of the measurement window, seconds

	// Freshness is the time- and page-averaged freshness F̄(S)
	// (dissertation Definitions 5.1 and 5.3); WeightedFreshness weighs page
	// i by Weight_i.
	Freshness, WeightedFreshness float64
	// Age is the time- and page-averaged age Ā(S) in seconds (Definition
	// 5.2: t minus the first change not yet fetched); WeightedAge weighs
	// page i by Weight_i.
	Age, WeightedAge float64
	// Harmonic is the time- and page-averaged harmonic staleness of
	// Kolobov et al. (SIGIR 2019, NeurIPS 2019): a copy that has missed N
	// changes of its page costs H_N = 1 + 1/2 + … + 1/N (0 while fresh).
	// Poisson and quasi-deterministic pages contribute its expectation
	// given when each stale stretch began, Pareto pages their drawn
	// changes. WeightedHarmonic weighs page i by Weight_i.
	Harmonic, WeightedHarmonic float64
	// Embarrassment is paper 002's objective Σ_i w_i a_i (eq. 5, spec §B.1
	// and §B.3): the weighted sum over pages of the fraction of time each
	// is stale, i.e. the expected weight of stale pages at an instant.
	Embarrassment float64
	// StaleHours is the total time pages spent stale in the window, in
	// page-hours.
	StaleHours float64
	// CostPerHour is paper 001's total cost per hour summed over pages,
	// C_s·(stale page-hours) + C_c·(crawls), divided by the window in hours
	// (spec §A.2); CostPerPageHour divides it by the number of pages, the
	// quantity of the paper's Fig. 1.
	CostPerHour, CostPerPageHour float64

	// Fetches is the number of fetches in the window; ChangesDetected of
	// those saw a changed page, and ChangeRatio is their share.
	Fetches, ChangesDetected int64
	ChangeRatio              float64
	// VeryStaleShare is the share of revisit intervals ending in the window
	// whose staleness (fetch time minus the first change in the interval,
	// 0 if none) reached Config.VeryStale/λ_i (spec §A.7); 0 when
	// Config.VeryStale is 0.
	VeryStaleShare float64
	// MeanDelay and MaxDelay are the mean and largest fetch time minus due
	// time over the window's fetches: what the budget and politeness cost.
	MeanDelay, MaxDelay float64
	// Intervals summarises the revisit intervals ending in the window.
	Intervals IntervalSummary

	// Series is freshness and age over the whole run (warm-up included),
	// one point per Config.SeriesStep.
	Series []Point
	// PerPage holds each page's own averages when Config.PerPage is set.
	PerPage []PageResult

	// Events counts the work the run did over its whole length.
	Events Events
}

// Events counts what the engine did over the whole run, warm-up included.
type Events struct {
	Fetches   int64 // fetches, including warm-up
	Draws     int64 // random numbers drawn for the change processes
	Deferrals int64 // times a page waited for its host (politeness)
	Replans   int64 // calls to Replanner.Replan
}

// Point is one step of Result.Series: the average freshness and age of all
// pages over [Start, End).
type Point struct {
	Start, End     float64
	Freshness, Age float64
}

// PageResult is one page's averages over the window.
type PageResult struct {
	Freshness float64 // share of the window the copy was fresh
	Age       float64 // time-averaged age, seconds
	Harmonic  float64 // time-averaged harmonic staleness (Result.Harmonic)
	Fetches   int     // fetches in the window
	Changes   int     // of those, fetches that saw a change
	VeryStale int     // revisit intervals ending in the window that were very stale
}

// IntervalSummary describes a set of revisit intervals (seconds). Mean,
// Std, Min and Max are exact; the quantiles come from a histogram of
// HistBinsPerOctave log-spaced bins an octave (bin midpoints, within
// 2^(1/16) ≈ 4.4 % of the exact quantile).
type IntervalSummary struct {
	Count                int64
	Mean, Std, Min, Max  float64
	P10, P50, P90, P99   float64
	Hist                 []int64 // Hist[j] counts intervals in [2^(j/8), 2^((j+1)/8)) s; bin 0 also holds shorter ones
	HistLo, HistBinWidth float64 // lower edge of bin 1 (1 s) and bin width in octaves (1/8)
}

// HistBinsPerOctave is the resolution of IntervalSummary.Hist.
const HistBinsPerOctave = 8

// histBins covers 1 s to 2^40 s (35,000 years) at 8 bins an octave.
const histBins = 40 * HistBinsPerOctave

// intervals accumulates revisit intervals.
type intervals struct {
	n                 int64
	sum, sumSq        float64
	min, max          float64
	hist              [histBins]int64
	delaySum, delayMx float64
}

func (h *intervals) add(x float64) {
	if h.n == 0 || x < h.min {
		h.min = x
	}
	h.max = max(h.max, x)
	h.n++
	h.sum += x
	h.sumSq += x * x
	j := 0
	if x >= 1 {
		// Octave from the exponent, eighth of an octave from the mantissa.
		frac, exp := math.Frexp(x) // x = frac·2^exp, frac in [0.5, 1)
		j = (exp-1)*HistBinsPerOctave + int(math.Log2(2*frac)*HistBinsPerOctave)
		j = min(j, histBins-1)
	}
	h.hist[j]++
}

func (h *intervals) summary() IntervalSummary {
	s := IntervalSummary{Count: h.n, Min: h.min, Max: h.max, HistLo: 1, HistBinWidth: 1.0 / HistBinsPerOctave}
	s.Hist = append([]int64(nil), h.hist[:]...)
	if h.n == 0 {
		return s
	}
	n := float64(h.n)
	s.Mean = h.sum / n
	s.Std = math.Sqrt(max(0, h.sumSq/n-s.Mean*s.Mean))
	q := func(p float64) float64 {
		target := p * n
		acc := 0.0
		for j, c := range h.hist {
			acc += float64(c)
			if acc >= target && c > 0 {
				x := math.Exp2((float64(j) + 0.5) / HistBinsPerOctave)
				return math.Min(math.Max(x, h.min), h.max)
			}
		}
		return h.max
	}
	s.P10, s.P50, s.P90, s.P99 = q(0.1), q(0.5), q(0.9), q(0.99)
	return s
}

// series integrates the stale count and the age sum over a grid of points
// x_0 = 0 < x_1 < … < x_n = Duration with one O(1) update per stale
// interval, using difference arrays. A stale interval [c, b) contributes
// to the integral G(x) = ∫_0^x stale count: clamp(x − c, 0, b − c); to the
// integral of the age sum: (x − c)²/2 on (c, b) and (b − c)²/2 after b.
// Both are polynomials in x_j on the index ranges [ja, jb) and [jb, n], so
// each is one coefficient change at ja and one at jb.
type series struct {
	step float64
	end  float64
	// Difference arrays of the coefficients of x and 1 in G, and of x²/2,
	// x and 1 in the age integral.
	g1, g0, a2, a1, a0 []float64
}

func newSeries(step, end float64) *series {
	if !(step > 0) {
		return nil
	}
	n := int(math.Ceil(end/step)) + 2
	return &series{step: step, end: end,
		g1: make([]float64, n), g0: make([]float64, n),
		a2: make([]float64, n), a1: make([]float64, n), a0: make([]float64, n)}
}

func (s *series) x(j int) float64 { return math.Min(float64(j)*s.step, s.end) }

// index returns the first grid index j with x_j > t.
func (s *series) index(t float64) int {
	j := int(math.Floor(t/s.step)) + 1
	return min(max(j, 0), len(s.g1)-1)
}

// stale records that one page was stale on [c, b) with age t − c.
func (s *series) stale(c, b float64) {
	ja, jb := s.index(c), s.index(b)
	if ja == jb { // the interval falls inside one grid step: constants only
		s.g0[jb] += b - c
		s.a0[jb] += (b - c) * (b - c) / 2
		return
	}
	s.g1[ja]++
	s.g1[jb]--
	s.g0[ja] -= c
	s.g0[jb] += b
	s.a2[ja]++
	s.a2[jb]--
	s.a1[ja] -= c
	s.a1[jb] += c
	s.a0[ja] += c * c / 2
	s.a0[jb] += (b-c)*(b-c)/2 - c*c/2
}

// points turns the integrals into averages over n pages per grid step.
func (s *series) points(n int) []Point {
	var g1, g0, a2, a1, a0 float64
	prevG, prevA := 0.0, 0.0
	var out []Point
	for j := 0; j < len(s.g1); j++ {
		g1 += s.g1[j]
		g0 += s.g0[j]
		a2 += s.a2[j]
		a1 += s.a1[j]
		a0 += s.a0[j]
		x := s.x(j)
		G := g1*x + g0
		A := a2*x*x/2 + a1*x + a0
		if j > 0 {
			lo := s.x(j - 1)
			if w := x - lo; w > 0 {
				out = append(out, Point{Start: lo, End: x,
					Freshness: 1 - (G-prevG)/(float64(n)*w),
					Age:       (A - prevA) / (float64(n) * w)})
			}
		}
		prevG, prevA = G, A
	}
	return out
}
