package sim

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// syncOrders are the three synchronisation orders of dissertation §5.4.
var syncOrders = []policy.Order{policy.FixedOrder, policy.RandomOrder, policy.PurelyRandom}

// measured is the simulator's freshness and age (in units of I) of
// Poisson pages of rate r/I synchronised every I in one order, each with
// its Monte-Carlo standard error: the standard error of the mean over
// independent pages, each averaged over ≈ 300 intervals.
type measured struct{ f, fse, a, ase float64 }

var (
	table52Mu   sync.Mutex
	table52Runs = map[string]measured{}
)

// simulateOrder runs (once per order and r) 600 pages of rate r/I, each
// visited every I = 1 day in the given order, for 300 days.
func simulateOrder(t *testing.T, order policy.Order, r float64) measured {
	t.Helper()
	key := fmt.Sprint(order, r)
	table52Mu.Lock()
	defer table52Mu.Unlock()
	if m, ok := table52Runs[key]; ok {
		return m
	}
	const n = 600
	I := 1 * day
	cfg := Config{Pages: poissonPages(n, r/I), Seed: 7, Duration: 300 * I, WarmUp: 3 * I, PerPage: true}
	res := run(t, cfg, FixedIntervals(constIntervals(n, I), order, 11))
	var m measured
	m.f, m.fse = meanSE(perPage(res, func(p PageResult) float64 { return p.Freshness }))
	m.a, m.ase = meanSE(perPage(res, func(p PageResult) float64 { return p.Age / I }))
	if math.Abs(m.f-res.Freshness) > 1e-9 || math.Abs(m.a-res.Age/I) > 1e-6 {
		t.Fatalf("aggregate %g/%g disagrees with the per-page mean %g/%g", res.Freshness, res.Age/I, m.f, m.a)
	}
	table52Runs[key] = m
	return m
}

// The simulator's freshness and age under each order match Table 5.2 of
// the dissertation (§5.4; paper 003 Table 2), evaluated by
// policy.Freshness and policy.Age (whose closed forms policy's tests pin to
// the table), within four Monte-Carlo standard errors.
func TestTable52Simulated(t *testing.T) {
	for _, order := range syncOrders {
		for _, r := range []float64{0.25, 1, 4} {
			t.Run(fmt.Sprintf("%v/r=%g", order, r), func(t *testing.T) {
				m := simulateOrder(t, order, r)
				// With I = 1, λ = r and f = 1.
				wantF, wantA := policy.Freshness(order, r, 1), policy.Age(order, r, 1)
				t.Logf("F = %.5f ± %.5f (want %.5f), A/I = %.5f ± %.5f (want %.5f)", m.f, m.fse, wantF, m.a, m.ase, wantA)
				if !within(m.f, wantF, m.fse, 4) {
					t.Errorf("freshness %.5f, want %.5f ± 4×%.5f", m.f, wantF, m.fse)
				}
				if !within(m.a, wantA, m.ase, 4) {
					t.Errorf("age %.5f I, want %.5f I ± 4×%.5f", m.a, wantA, m.ase)
				}
			})
		}
	}
}

// The numbers the dissertation prints about Table 5.2 (§5.4.4), measured
// in the simulator. Each is printed to two digits, so the tolerance is
// half a unit of the last digit plus four standard errors.
//
//   - r = 1, fixed order: "the freshness of the local database is
//     (e − 1)/e ≈ 0.63".
//   - "if we want at least 0.8 freshness, the frequency ratio r should be
//     less than 0.46 (fixed-order policy)": at r = 0.46, F ≈ 0.80.
//   - "The fixed-order policy performs best by both metrics."
//   - "the age of the fixed-order policy is only one fourth of the
//     random-order policy" (r = 1). The ratio is one fourth against the
//     purely-random order; against the random order it is 0.72 (spec
//     seed-refresh-estimation §3.6 flags the misattribution), and that is
//     what is asserted for it.
//   - "30% higher than that of the purely-random policy": the freshness
//     ratio is 1.26 (flagged likewise); asserted to 1.26.
func TestTable52PrintedClaims(t *testing.T) {
	const printed = 0.005 // half a unit of a two-digit print
	fix1 := simulateOrder(t, policy.FixedOrder, 1)
	rnd1 := simulateOrder(t, policy.RandomOrder, 1)
	pur1 := simulateOrder(t, policy.PurelyRandom, 1)
	fix046 := simulateOrder(t, policy.FixedOrder, 0.46)
	if tol := printed + 4*fix1.fse; math.Abs(fix1.f-0.63) > tol {
		t.Errorf("fixed order, r = 1: F = %.4f, printed 0.63 ± %.4f", fix1.f, tol)
	}
	if tol := printed + 4*fix046.fse; math.Abs(fix046.f-0.80) > tol {
		t.Errorf("fixed order, r = 0.46: F = %.4f, printed 0.80 ± %.4f", fix046.f, tol)
	}
	for _, r := range []float64{0.25, 1, 4} {
		fix, rnd, pur := simulateOrder(t, policy.FixedOrder, r), simulateOrder(t, policy.RandomOrder, r), simulateOrder(t, policy.PurelyRandom, r)
		if !(fix.f > rnd.f+2*rnd.fse && rnd.f > pur.f+2*pur.fse) || !(fix.a+2*fix.ase < rnd.a && rnd.a+2*rnd.ase < pur.a) {
			t.Errorf("r = %g: fixed order not best: F %.4f/%.4f/%.4f, A/I %.4f/%.4f/%.4f (fixed/random/purely)", r, fix.f, rnd.f, pur.f, fix.a, rnd.a, pur.a)
		}
	}
	// Ratios at r = 1. The relative error of a ratio is at most the sum of
	// its terms' relative errors; "one fourth" is a one-digit fraction.
	for _, c := range []struct {
		name           string
		x, xse, y, yse float64
		want, printTol float64
	}{
		{"A fixed / A purely (printed: one fourth)", fix1.a, fix1.ase, pur1.a, pur1.ase, 0.25, 0.025},
		{"A fixed / A random (flagged: 0.72)", fix1.a, fix1.ase, rnd1.a, rnd1.ase, 0.72, printed},
		{"F fixed / F purely (printed: 30 % higher; flagged: 1.26)", fix1.f, fix1.fse, pur1.f, pur1.fse, 1.26, printed},
	} {
		q := c.x / c.y
		if tol := c.printTol + 4*q*(c.xse/c.x+c.yse/c.y); math.Abs(q-c.want) > tol {
			t.Errorf("%s = %.4f, want %.2f ± %.4f", c.name, q, c.want, tol)
		}
	}
}
