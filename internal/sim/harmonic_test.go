package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/change/process"
	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// A Poisson page visited every I has time-averaged harmonic staleness
// Ḡ(λI) (policy.HarmonicStaleness, checked there against the Poisson sum),
// whether or not its host sends Last-Modified (which changes only the
// draws, not the penalty's expectation).
func TestHarmonicPoisson(t *testing.T) {
	const n = 2000
	I := 1 * day
	for _, r := range []float64{0.3, 2, 8} { // λI
		for _, lm := range []bool{false, true} {
			t.Run(fmt.Sprintf("lambdaI=%g/lastmod=%v", r, lm), func(t *testing.T) {
				pages := poissonPages(n, r/I)
				for i := range pages {
					pages[i].LastModified = lm
				}
				res := run(t, Config{Pages: pages, Seed: 11, Duration: 60 * I, WarmUp: 3 * I, PerPage: true},
					FixedIntervals(constIntervals(n, I), policy.FixedOrder, 0))
				h, se := meanSE(perPage(res, func(p PageResult) float64 { return p.Harmonic }))
				want := policy.HarmonicStaleness(r/I, 1/I)
				t.Logf("harmonic %.5f ± %.5f, Ḡ(%g) = %.5f", h, se, r, want)
				if !within(h, want, se, 4) {
					t.Errorf("harmonic %.5f, want %.5f ± 4×%.5f", h, want, se)
				}
				if math.Abs(res.Harmonic-h) > 1e-12*h || math.Abs(res.WeightedHarmonic-h) > 1e-12*h {
					t.Errorf("Result.Harmonic %g, weighted %g, per-page mean %g", res.Harmonic, res.WeightedHarmonic, h)
				}
			})
		}
	}
}

// The quasi-deterministic expectation equals the binomial sum it stands
// for: on [c + jP, c + (j+1)P) the copy has missed 1 + B_j changes, B_j ~
// Binomial(j, k), and costs E[H_{1+B_j}], summed term by term here over
// the binomial's probabilities. The windows start before, at and inside
// the stretch, and run long enough (1,500 slots) for the closed form of
// the far slots to take over; k runs from 1 down to 10^-6, where the steps
// are summed term by term.
func TestHarmonicQuasiDeterministic(t *testing.T) {
	const P = 3600.0
	brute := func(k, c, a, b float64) float64 {
		var sum float64
		pmf := []float64{1} // P(B_j = m), m = 0..j
		for j := 0; c+float64(j)*P < b; j++ {
			if j > 0 { // B_j = B_{j−1} + Bernoulli(k)
				next := make([]float64, j+1)
				for m, p := range pmf {
					next[m] += p * (1 - k)
					next[m+1] += p * k
				}
				pmf = next
			}
			seg := max(0, min(c+float64(j+1)*P, b)-max(c+float64(j)*P, a, c))
			var e, h float64
			for m, p := range pmf {
				h += 1 / float64(m+1) // H_{1+m}
				e += p * h
			}
			sum += seg * e
		}
		return sum
	}
	for _, k := range []float64{1, 0.7, 0.25, 0.01, 1e-6} {
		for _, w := range [][3]float64{{0, 0, 0.5 * P}, {0, 0, 7.3 * P}, {100, 2.5 * P, 40.2 * P}, {50 * P, 10 * P, 60.7 * P}, {0, 3.3 * P, 1500.5 * P}} {
			q := newProc(QDProcess(P, k, 0), false)
			c, a, b := w[0], w[1], w[2]
			got, want := q.harmonic(c, a, b), brute(k, c, a, b)
			if math.Abs(got-want) > 1e-9*max(want, 1) {
				t.Errorf("k = %g, c = %g, [%g, %g): %.10g, binomial sum %.10g", k, c, a, b, got, want)
			}
		}
	}
	if got := harmonicNumber(64) - harmonicNumber(63); math.Abs(got-1.0/64) > 1e-15 {
		t.Errorf("H_64 − H_63 = %.17g, want 1/64", got)
	}
}

// A Pareto page's penalty is counted from its drawn changes; here it is
// compared with a separate Monte-Carlo run of the same renewal process
// (Lomax gaps, started in equilibrium as proc.start does) visited every τ,
// which integrates H_N between consecutive changes and visits.
func TestHarmonicPareto(t *testing.T) {
	const n = 1500
	tau := 1 * day
	for _, alpha := range []float64{1.5, 4} {
		t.Run(fmt.Sprintf("alpha=%g", alpha), func(t *testing.T) {
			lambda := 2 / tau
			pages := make([]Page, n)
			for i := range pages {
				pages[i] = Page{Process: ParetoProcess(lambda, alpha), Weight: 1}
			}
			H, W := 100*tau, 2*tau
			res := run(t, Config{Pages: pages, Seed: 7, Duration: H, WarmUp: W, PerPage: true},
				FixedIntervals(constIntervals(n, tau), policy.FixedOrder, 0))
			got, se := meanSE(perPage(res, func(p PageResult) float64 { return p.Harmonic }))

			rng := rand.New(rand.NewPCG(1, 2))
			beta := process.LomaxScale(lambda, alpha)
			mc := make([]float64, n)
			for i := range mc {
				first := (float64(i) + 0.5) / n * tau // policy.FixedOrder's first due
				b := process.Lomax(rng.Float64(), alpha-1, beta)
				x := process.Lomax(rng.Float64(), alpha, beta+b) // first change after 0
				last := 0.0                                      // last visit
				nMiss, h, sum := 0, 0.0, 0.0
				for v := first; ; v += tau {
					end := min(v, H)
					for x < end { // changes before the visit
						sum += h * max(0, x-max(last, W))
						last = max(last, x)
						nMiss++
						h += 1 / float64(nMiss)
						x += process.Lomax(rng.Float64(), alpha, beta)
					}
					sum += h * max(0, end-max(last, W))
					if v >= H {
						break
					}
					last, nMiss, h = v, 0, 0
				}
				mc[i] = sum / (H - W)
			}
			want, se2 := meanSE(mc)
			t.Logf("harmonic %.5f ± %.5f, Monte Carlo %.5f ± %.5f", got, se, want, se2)
			if !within(got, want, math.Hypot(se, se2), 4) {
				t.Errorf("harmonic %.5f, Monte Carlo %.5f ± 4×%.5f", got, want, math.Hypot(se, se2))
			}
		})
	}
}
