package policy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/policy/brute"
)

// TestPoissonStaleness checks Staleness for Poisson updates against paper
// 002 eq. 14, 𝒜(x) = 1 + ((x + 1)/(λT))(e^{−λT/(x+1)} − 1), in the paper's
// fresh-start convention (relative 1e-13 plus the 4e-16·(x+1)/(λT) that
// eq. 14's printed form loses to cancellation), the steady state against
// 1 − F̄(λ, x/T), and both for being decreasing and convex in x (spec B.10
// item 1).
func TestPoissonStaleness(t *testing.T) {
	const T = day
	for _, lt := range []float64{0.01, 0.5, 1.5, 10, 200} {
		m := PoissonUpdates{Rate: lt / T}
		prev, prevD := 1.0, math.Inf(-1)
		for x := range 60 {
			eq14 := 1 + float64(x+1)/lt*(math.Exp(-lt/float64(x+1))-1)
			if got := Staleness(m, T, x, true); math.Abs(got-eq14) > 1e-13*eq14+4e-16*float64(x+1)/lt {
				t.Errorf("λT=%g x=%d: %.15g, eq. 14 %.15g", lt, x, got, eq14)
			}
			if x > 0 {
				if got, want := Staleness(m, T, x, false), 1-Freshness(FixedOrder, lt/T, float64(x)/T); relErr(got, want) > 1e-13 {
					t.Errorf("steady state λT=%g x=%d: %g, 1 − F̄ %g", lt, x, got, want)
				}
			}
			s := Staleness(m, T, x, false)
			if d := s - prev; x > 0 && (d > 0 || d < prevD-1e-15) {
				t.Errorf("λT=%g: not decreasing and convex at x=%d (Δ %g after %g)", lt, x, d, prevD)
			} else if x > 0 {
				prevD = d
			}
			prev = s
		}
	}
}

// TestEqualSpacing checks that equal spacing minimises eq. 10's staleness
// for a given number of crawls (paper 002 §3.2, spec B.10 item 1) against
// 2000 random spacings.
func TestEqualSpacing(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 0))
	stale := func(lt float64, gaps []float64) float64 { // eq. 10 with T = 1
		s := 1.0
		for _, g := range gaps {
			s += (math.Exp(-lt*g) - 1) / lt
		}
		return s
	}
	for range 2000 {
		lt, x := math.Exp(2*rng.NormFloat64()), 1+rng.IntN(8)
		gaps := make([]float64, x+1)
		var sum float64
		for i := range gaps {
			gaps[i] = rng.ExpFloat64()
			sum += gaps[i]
		}
		for i := range gaps {
			gaps[i] /= sum
		}
		if eq := Staleness(PoissonUpdates{Rate: lt}, 1, x, true); stale(lt, gaps) < eq-1e-12 {
			t.Fatalf("λT=%g x=%d: spacing %v beats equal spacing (%g < %g)", lt, x, gaps, stale(lt, gaps), eq)
		}
	}
}

// TestParetoStaleness checks the Pareto closed form against numerical
// integration of its definition, h(τ)/τ with p(s) = 1 − λ∫_s^∞ Ḡ(u)du
// (paper 002 eq. 3): the tail integral by Simpson's rule after the
// substitution u = (β + s)/w − β, w in (0, 1], which maps the infinite
// range onto a smooth integrand for integer α ≥ 2, the outer by Simpson's
// rule. Tolerance 1e-7, Simpson's error at these steps.
func TestParetoStaleness(t *testing.T) {
	for _, m := range []ParetoUpdates{{3, 1}, {2, 2}, {3, 0.5}, {4, 10}} {
		tail := func(u float64) float64 { return math.Pow(m.Beta/(m.Beta+u), m.Alpha) }
		p := func(s float64) float64 {
			in := brute.Simpson(func(w float64) float64 {
				if w == 0 {
					return 0 // Ḡ(u)·du/dw → 0 for α > 2 and is finite at 2
				}
				return tail((m.Beta+s)/w-m.Beta) * (m.Beta + s) / (w * w)
			}, 0, 1, 60)
			if m.Alpha == 2 {
				in = brute.Simpson(func(w float64) float64 {
					if w == 0 {
						return m.Beta * m.Beta / (m.Beta + s)
					}
					return tail((m.Beta+s)/w-m.Beta) * (m.Beta + s) / (w * w)
				}, 0, 1, 60)
			}
			return 1 - m.Rate()*in
		}
		for _, tau := range []float64{0.1, 1, 5, 30} {
			t.Run(fmt.Sprintf("α=%g,β=%g,τ=%g", m.Alpha, m.Beta, tau), func(t *testing.T) {
				want := brute.Simpson(p, 0, tau, 4000) / tau
				if got := m.StaleFraction(tau); math.Abs(got-want) > 1e-7 {
					t.Errorf("%.9f, integration %.9f", got, want)
				}
			})
		}
	}
	// α near 2 is continuous with α = 2.
	if a, b := (ParetoUpdates{2, 1}).StaleFraction(3), (ParetoUpdates{2 + 1e-9, 1}).StaleFraction(3); math.Abs(a-b) > 1e-8 {
		t.Errorf("α = 2: %g, α = 2 + 1e-9: %g", a, b)
	}
}

// TestEmbarrassmentAllocate checks the allocator end to end: the
// frequencies are whole crawls per period summing to round(budget·T); with
// many crawls per page its steady-state Poisson objective approaches the
// continuous freshness optimum from below (the relaxation bounds it) to
// within 1e-3; and under Pareto models it beats uniform and proportional
// crawls (spec B.10 item 5).
func TestEmbarrassmentAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	pages := randomPages(rng, 200, true)
	for i := range pages {
		pages[i].Rate = min(pages[i].Rate, 20/day)
	}
	budget := 200 * 50 / day
	f := make([]float64, len(pages))
	if err := (Embarrassment{Exact: true}).Allocate(pages, budget, f); err != nil {
		t.Fatal(err)
	}
	var s float64
	for _, v := range f {
		if c := v * day; math.Abs(c-math.Round(c)) > 1e-9 {
			t.Fatalf("%g crawls per period", c)
		}
		s += v
	}
	if math.Abs(s-budget) > 0.5/day {
		t.Errorf("Σf = %g, budget %g", s, budget)
	}
	disc, _ := Collection(pages, f)
	cont := make([]float64, len(pages))
	OptimalFreshness{}.Allocate(pages, budget, cont)
	opt, _ := Collection(pages, cont)
	if disc > opt+1e-12 || opt-disc > 1e-3 {
		t.Errorf("discrete freshness %.6f, continuous optimum %.6f", disc, opt)
	}

	models := make([]UpdateModel, len(pages))
	for i, p := range pages {
		models[i] = ParetoUpdates{Alpha: 1.5, Beta: 0.5 / p.Rate} // mean 1/λ
	}
	e := Embarrassment{Models: models}
	prob, err := e.Problem(pages, 200*3/day)
	if err != nil {
		t.Fatal(err)
	}
	x, err := Greedy(prob)
	if err != nil {
		t.Fatal(err)
	}
	cost := func(freq []float64) float64 {
		var c float64
		for i, v := range freq {
			c += prob.Cost(i, int(math.Round(v*day)))
		}
		return c
	}
	var best float64
	for i, v := range x {
		best += prob.Cost(i, v)
	}
	for _, a := range []Allocator{Uniform{}, Proportional{}} {
		a.Allocate(pages, 200*3/day, f)
		if c := cost(f); c < best {
			t.Errorf("%T costs %g, below the optimum %g", a, c, best)
		}
	}
}

// TestEmbarrassmentWeight checks eq. 8 on a worked 2×2 example:
// 0.5·(0.5·0.2 + 0.25·0.1 + 0.1·0 + 0.05·0.3) = 0.07.
func TestEmbarrassmentWeight(t *testing.T) {
	w, err := EmbarrassmentWeight(0.5, [][]float64{{0.2, 0.1}, {0, 0.3}}, [][]float64{{0.5, 0.25}, {0.1, 0.05}})
	if err != nil || math.Abs(w-0.07) > 1e-15 {
		t.Errorf("w = %g (%v), want 0.07", w, err)
	}
	if _, err := EmbarrassmentWeight(1, [][]float64{{1}}, [][]float64{{1, 2}}); err == nil {
		t.Error("shape mismatch accepted")
	}
}
