package sim

import (
	"fmt"
	"math"

	"github.com/freshcrawl/freshcrawl/internal/change/process"
	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// Process is a page's change process, in seconds: its kind (the laws are
// package process's) and parameters. Build one with PoissonProcess,
// ParetoProcess or QDProcess; the zero value is a Poisson page that never
// changes.
type Process struct {
	Kind process.Kind
	// Rate is the mean number of changes per second, λ = 1/(mean interval).
	Rate float64
	// Alpha is the Pareto shape α > 1: inter-change times have the Lomax
	// tail (β/(β+t))^α with β = (α−1)/λ (paper 002 §2.3).
	Alpha float64
	// Period is the spacing in seconds of a quasi-deterministic page's
	// potential update times Phase + j·Period, each of which happens with
	// probability K, independently (paper 002 §B.2, eq. 17 with k_{i,j} = K).
	Period, K, Phase float64
}

// PoissonProcess returns a Poisson process of rate changes per second.
func PoissonProcess(rate float64) Process { return Process{Kind: process.Poisson, Rate: rate} }

// ParetoProcess returns a Lomax renewal process of mean rate changes per
// second and shape alpha > 1.
func ParetoProcess(rate, alpha float64) Process {
	return Process{Kind: process.Pareto, Rate: rate, Alpha: alpha}
}

// QDProcess returns a quasi-deterministic process with potential updates at
// phase + j·period, each happening with probability k; its mean rate is
// k/period.
func QDProcess(period, k, phase float64) Process {
	return Process{Kind: process.QuasiDeterministic, Rate: k / period, Period: period, K: k, Phase: phase}
}

// QDProcessMean returns the quasi-deterministic process simweb gives a page
// of the given mean change interval (seconds): process.Calendar's period
// and k, so that the mean rate is 1/mean.
func QDProcessMean(mean, phase float64) Process {
	p, k := process.Calendar(mean, 1)
	return QDProcess(p, k, math.Mod(phase, p))
}

// validate reports what is wrong with p.
func (p Process) validate() error {
	switch p.Kind {
	case process.Poisson:
		if !(p.Rate >= 0) || math.IsInf(p.Rate, 1) {
			return fmt.Errorf("poisson rate must be finite and ≥ 0, got %g", p.Rate)
		}
	case process.Pareto:
		if !(p.Rate > 0) || math.IsInf(p.Rate, 1) || !(p.Alpha > 1) {
			return fmt.Errorf("pareto needs a finite rate > 0 and alpha > 1, got rate %g alpha %g", p.Rate, p.Alpha)
		}
	case process.QuasiDeterministic:
		if !(p.Period > 0) || math.IsInf(p.Period, 1) || !(p.K > 0 && p.K <= 1) || math.IsNaN(p.Phase) || math.IsInf(p.Phase, 0) {
			return fmt.Errorf("quasi-deterministic needs period > 0, k in (0, 1] and a finite phase, got %g, %g, %g", p.Period, p.K, p.Phase)
		}
	default:
		return fmt.Errorf("unknown process kind %d", p.Kind)
	}
	return nil
}

// proc is a Process with its derived constants, as the event loop uses it.
type proc struct {
	kind process.Kind
	lm   bool    // the page's host sends Last-Modified
	a    float64 // Poisson, Pareto: λ; QD: period
	b    float64 // Pareto: β = (α−1)/λ; QD: log(1−k), 0 when k = 1
	c    float64 // Pareto: α; QD: phase reduced to [0, period)
}

func newProc(p Process, lm bool) proc {
	q := proc{kind: p.Kind, lm: lm}
	switch p.Kind {
	case process.Pareto:
		q.a, q.b, q.c = p.Rate, process.LomaxScale(p.Rate, p.Alpha), p.Alpha
	case process.QuasiDeterministic:
		q.a, q.b = p.Period, process.LogMiss(p.K)
		q.c = math.Mod(p.Phase, p.Period)
		if q.c < 0 {
			q.c += p.Period
		}
	default:
		q.a = p.Rate
	}
	return q
}

// slotAtOrBefore returns the last potential update time ≤ t.
func (q *proc) slotAtOrBefore(t float64) float64 { return process.SlotAtOrBefore(t, q.a, q.c) }

// start draws a stationary process's state at time 0: the last change at
// or before 0 (version 0's Last-Modified) and the first change after 0.
func (q *proc) start(s stream) (last, next float64) {
	switch q.kind {
	case process.Pareto:
		// Equilibrium renewal process: the backward recurrence time B has
		// the equilibrium density λḠ, Lomax with shape α−1 (paper 002 §B.1,
		// g_B = λḠ), and given B = b the forward time is the residual life
		// of an interval that has lasted b: P(A > a | b) = Ḡ(a+b)/Ḡ(b),
		// Lomax with shape α and scale β+b. Together they are exact.
		b := process.Lomax(s.u(), q.c-1, q.b)
		return -b, process.Lomax(s.u(), q.c, q.b+b)
	case process.QuasiDeterministic:
		s0 := q.slotAtOrBefore(0)
		last = s0 - q.a*process.SkippedSlots(s.u(), q.b)
		next = s0 + q.a*(1+process.SkippedSlots(s.u(), q.b))
		return last, next
	default:
		// Poisson: backward and forward recurrence times are independent
		// exponentials (dissertation Lemma 4.1, memorylessness).
		return -s.exp(q.a), s.exp(q.a)
	}
}

// advance moves the process past a fetch at t, given that its first change
// after the previous fetch is at c ≤ t. It returns the last change at or
// before t, the first change after t, and the harmonic penalty the copy
// accrued on [max(c, a), t) (see harmonic; a is the start of the
// measurement window). Poisson and quasi-deterministic pages need no walk
// over the changes in between: given a change at c the changes in (c, t]
// are again Poisson (or independent Bernoulli slots), so the time back
// from t to the last of them is a truncated exponential (or geometric)
// draw, and the penalty is its expectation given c. The last-change draw
// is skipped when the page sends no Last-Modified, since nothing else
// needs it. A Pareto page's changes are walked, and its penalty counted
// exactly.
func (q *proc) advance(s stream, c, t, a float64) (last, next, harm float64) {
	switch q.kind {
	case process.Pareto:
		x, h := c, 1.0 // h = H_n after the n-th change since the fetch
		for n := 2; ; n++ {
			y := x + process.Lomax(s.u(), q.c, q.b)
			harm += h * max(0, min(y, t)-max(x, a))
			if y > t {
				return x, y, harm
			}
			x = y
			h += 1 / float64(n)
		}
	case process.QuasiDeterministic:
		sl := q.slotAtOrBefore(t)
		if sl < c { // rounding: c is itself the last slot
			sl = c
		}
		last = c
		if q.lm {
			if g := process.SkippedSlots(s.u(), q.b); sl-g*q.a > c {
				last = sl - g*q.a
			}
		}
		return last, sl + q.a*(1+process.SkippedSlots(s.u(), q.b)), q.harmonic(c, a, t)
	default:
		last = c
		if q.lm {
			if e := s.exp(q.a); e < t-c {
				last = t - e
			}
		}
		return last, t + s.exp(q.a), q.harmonic(c, a, t)
	}
}

// tail is the harmonic penalty on [max(c, a), b) of a stretch that starts
// with a change at c and is still open when the run ends at b.
func (q *proc) tail(s stream, c, b, a float64) float64 {
	if q.kind == process.Pareto {
		_, _, h := q.advance(s, c, b, a)
		return h
	}
	return q.harmonic(c, a, b)
}

// harmonic is the expected harmonic penalty ∫ H_{N(x)} dx over
// [max(c, a), b) of a Poisson or quasi-deterministic copy whose page
// changed at c and was not fetched since, N(x) being the changes in
// [c, x] (Kolobov et al.'s harmonic staleness: a copy that missed N
// changes costs H_N = 1 + 1/2 + … + 1/N).
//
// Poisson: policy.HarmonicStretch of the stretch up to b less that up to
// a. Quasi-deterministic: on [c + jP, c + (j+1)P) the copy has missed
// 1 + B_j changes, B_j ~ Binomial(j, k), and h_j = E[H_{1+B_j}] obeys
// h_0 = 1, h_{j+1} = h_j + k·E[1/(2 + B_j)], where k·E[1/(2 + B_j)] =
// (1 − E[1/(1 + B_{j+1})])/(j + 1) (by parts on ∫₀¹ t(1−k+kt)ʲ dt) and
// E[1/(1 + B_m)] = (1 − (1−k)^{m+1})/((m+1)k): one step a slot while
// (1−k)^{j+2} matters, then the closed form qdTail sums the rest.
func (q *proc) harmonic(c, a, b float64) float64 {
	lo := max(c, a)
	if !(b > lo) {
		return 0
	}
	if q.kind != process.QuasiDeterministic {
		lam := q.a
		return (policy.HarmonicStretch(lam*(b-c)) - policy.HarmonicStretch(lam*(lo-c))) / lam
	}
	k, miss := 1.0, 0.0 // miss = 1 − k
	if q.b != 0 {
		miss = math.Exp(q.b)
		k = -math.Expm1(q.b)
	}
	P := q.a
	var harm float64
	h, pow := 1.0, miss*miss // pow = (1−k)^{j+2}
	j := 0
	for ; pow > 1e-17*k; j++ {
		x0, x1 := c+float64(j)*P, c+float64(j+1)*P
		harm += h * max(0, min(x1, b)-max(x0, lo))
		if x1 >= b {
			return harm
		}
		h += qdStep(j, k, pow)
		pow *= miss
	}
	// From slot j on the steps are 1/(i+1) − 1/(k(i+1)(i+2)), so
	// h_i = C + H_i + 1/(k(i+1)).
	C := h - harmonicNumber(j) - 1/(k*float64(j+1))
	return harm + qdTail(C, k, j, c, P, lo, b)
}

// qdStep is h_{j+1} − h_j = k·E[1/(2 + B_j)], pow = (1−k)^{j+2}. Where
// (j+2)k is small, 1 − E[1/(1 + B_{j+1})] would cancel, and the binomial's
// mass sits near 0: there it is summed term by term.
func qdStep(j int, k, pow float64) float64 {
	m := float64(j + 2)
	if m*k >= 0.5 {
		return (1 - (1-pow)/(m*k)) / float64(j+1)
	}
	p := math.Exp(float64(j) * math.Log1p(-k)) // P(B_j = 0)
	var e float64
	for i := 0; i <= j; i++ {
		e += p / float64(i+2)
		if p < 1e-18*e {
			break
		}
		p *= float64(j-i) / float64(i+1) * k / (1 - k)
	}
	return k * e
}

// qdTail is Σ_{i ≥ j0} h_i·|[c + iP, c + (i+1)P) ∩ [lo, b)| for h_i = C +
// H_i + 1/(k(i+1)): the segments at either end one by one, those between
// by Σ H_i = S(e) − S(a − 1), S(n) = (n+1)H_n − n.
func qdTail(C, k float64, j0 int, c, P, lo, b float64) float64 {
	hAt := func(i int) float64 { return C + harmonicNumber(i) + 1/(k*float64(i+1)) }
	seg := func(i int) float64 {
		x0, x1 := c+float64(i)*P, c+float64(i+1)*P
		return hAt(i) * max(0, min(x1, b)-max(x0, lo))
	}
	first := max(j0, int(math.Floor((lo-c)/P)))
	last := int(math.Floor((b - c) / P))
	if last <= first {
		return seg(first)
	}
	sum := seg(first) + seg(last)
	if a, e := first+1, last-1; e >= a {
		S := func(n int) float64 { return float64(n+1)*harmonicNumber(n) - float64(n) }
		sum += P * (float64(e-a+1)*C + S(e) - S(a-1) + (harmonicNumber(e+1)-harmonicNumber(a))/k)
	}
	return sum
}

// harmonicNumber is H_n = 1 + 1/2 + … + 1/n (H_0 = 0): summed below 64,
// from its asymptotic series ln n + γ + 1/(2n) − 1/(12n²) + 1/(120n⁴) −
// 1/(252n⁶) above (the next term, 1/(240n⁸), is under 1e-16 there).
func harmonicNumber(n int) float64 {
	if n < 64 {
		h := 0.0
		for i := n; i >= 1; i-- {
			h += 1 / float64(i)
		}
		return h
	}
	x := float64(n)
	x2 := x * x
	return math.Log(x) + 0.57721566490153286061 + 1/(2*x) - 1/(12*x2) + 1/(120*x2*x2) - 1/(252*x2*x2*x2)
}
