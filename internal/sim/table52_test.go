package sim

import (
	"fmt"
	"math"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// Table 5.2 of the dissertation (paper 003 Table 2; spec
// seed-refresh-estimation §3.5): freshness and age of a Poisson page of
// rate λ synchronised at mean interval I, r = λI, for the three orders.
func table52(order policy.Order, r, I float64) (f, a float64) {
	e := (1 - math.Exp(-r)) / r
	switch order {
	case policy.RandomOrder:
		return (1 - e*e) / r, I * (1.0/3 + (0.5-1/r)*(0.5-1/r) - e*e/(r*r))
	case policy.PurelyRandom:
		return 1 / (1 + r), I * r / (1 + r)
	default:
		return e, I * (0.5 - 1/r + e/r)
	}
}

// The spec's printed numeric table (§3.5) pins the closed forms above.
func TestTable52ClosedForms(t *testing.T) {
	tests := []struct {
		r                  float64
		fFix, fRand, fPure float64
		aFix, aRand, aPure float64
	}{
		{0.25, 0.88480, 0.86854, 0.80000, 0.03919, 0.05749, 0.20000},
		{1, 0.63212, 0.60042, 0.50000, 0.13212, 0.18376, 0.50000},
		{4, 0.24542, 0.23494, 0.20000, 0.31136, 0.39207, 0.80000},
	}
	for _, tt := range tests {
		for _, c := range []struct {
			o    policy.Order
			f, a float64
		}{{policy.FixedOrder, tt.fFix, tt.aFix}, {policy.RandomOrder, tt.fRand, tt.aRand}, {policy.PurelyRandom, tt.fPure, tt.aPure}} {
			f, a := table52(c.o, tt.r, 1)
			// The table is printed to 5 decimals.
			if math.Abs(f-c.f) > 6e-6 || math.Abs(a-c.a) > 6e-6 {
				t.Errorf("r=%g order %d: F=%.5f A/I=%.5f, table %.5f %.5f", tt.r, c.o, f, a, c.f, c.a)
			}
		}
	}
}

// The simulator's freshness and age of Poisson pages under each order
// match Table 5.2 within four Monte-Carlo standard errors (the standard
// error of the mean over independent pages, each averaged over ≈ 300
// intervals).
func TestTable52Simulated(t *testing.T) {
	const n = 600
	I := 1 * day
	for _, order := range []policy.Order{policy.FixedOrder, policy.RandomOrder, policy.PurelyRandom} {
		for _, r := range []float64{0.25, 1, 4} {
			t.Run(fmt.Sprintf("order%d/r=%g", order, r), func(t *testing.T) {
				iv := make([]float64, n)
				for i := range iv {
					iv[i] = I
				}
				cfg := Config{Pages: poissonPages(n, r/I), Seed: 7, Duration: 300 * I, WarmUp: 3 * I, PerPage: true}
				res := run(t, cfg, FixedIntervals(iv, order, 11))
				wantF, wantA := table52(order, r, I)
				f, fse := meanSE(perPage(res, func(p PageResult) float64 { return p.Freshness }))
				a, ase := meanSE(perPage(res, func(p PageResult) float64 { return p.Age }))
				if math.Abs(f-res.Freshness) > 1e-9 || math.Abs(a-res.Age) > 1e-6*I {
					t.Fatalf("aggregate %g/%g disagrees with the per-page mean %g/%g", res.Freshness, res.Age, f, a)
				}
				t.Logf("F = %.5f ± %.5f (want %.5f), A/I = %.5f ± %.5f (want %.5f)", f, fse, wantF, a/I, ase/I, wantA/I)
				if !within(f, wantF, fse, 4) {
					t.Errorf("freshness %.5f, want %.5f ± 4×%.5f", f, wantF, fse)
				}
				if !within(a, wantA, ase, 4) {
					t.Errorf("age %.5f I, want %.5f I ± 4×%.5f", a/I, wantA/I, ase/I)
				}
			})
		}
	}
}
