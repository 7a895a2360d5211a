package policy

import (
	"fmt"
	"math"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/policy/brute"
)

// TestTable52 checks the closed forms of Table 5.2 against the spec's
// evaluation of them (seed-refresh-estimation.md §3.5, printed to 5
// decimals, so the tolerance is 5e-6). Age is Ā/I, so f = 1 and λ = r.
func TestTable52(t *testing.T) {
	tests := []struct {
		r                  float64
		fFix, fRand, fPure float64
		aFix, aRand, aPure float64
	}{
		{0.1, 0.95163, 0.94408, 0.90909, 0.01626, 0.02416, 0.09091},
		{0.25, 0.88480, 0.86854, 0.80000, 0.03919, 0.05749, 0.20000},
		{0.5, 0.78694, 0.76146, 0.66667, 0.07388, 0.10624, 0.33333},
		{1, 0.63212, 0.60042, 0.50000, 0.13212, 0.18376, 0.50000},
		{2, 0.43233, 0.40654, 0.33333, 0.21617, 0.28661, 0.66667},
		{4, 0.24542, 0.23494, 0.20000, 0.31136, 0.39207, 0.80000},
		{10, 0.10000, 0.09900, 0.09091, 0.41000, 0.49323, 0.90909},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint("r=", tt.r), func(t *testing.T) {
			for _, c := range []struct {
				name      string
				got, want float64
			}{
				{"F fixed", Freshness(FixedOrder, tt.r, 1), tt.fFix},
				{"F random", Freshness(RandomOrder, tt.r, 1), tt.fRand},
				{"F purely", Freshness(PurelyRandom, tt.r, 1), tt.fPure},
				{"A fixed", Age(FixedOrder, tt.r, 1), tt.aFix},
				{"A random", Age(RandomOrder, tt.r, 1), tt.aRand},
				{"A purely", Age(PurelyRandom, tt.r, 1), tt.aPure},
			} {
				if math.Abs(c.got-c.want) > 5e-6 {
					t.Errorf("%s = %.6f, table %.5f", c.name, c.got, c.want)
				}
			}
		})
	}
}

// TestOrderClaims checks the exact values behind §5.4.4's claims (spec
// §7.2 items 3–8, derived in double precision; tolerance 1e-6 for the
// 6-decimal values).
func TestOrderClaims(t *testing.T) {
	tests := []struct {
		name      string
		got, want float64
	}{
		{"fixed F, r=1: (e−1)/e", Freshness(FixedOrder, 1, 1), 0.632121},
		{"fixed A/I, r=1: 1/2 − 1/e", Age(FixedOrder, 1, 1), 0.132121},
		{"random F, r=1", Freshness(RandomOrder, 1, 1), 0.600424},
		{"random A/I, r=1", Age(RandomOrder, 1, 1), 0.183756},
		{"purely F, r=1", Freshness(PurelyRandom, 1, 1), 0.5},
		{"purely A/I, r=1", Age(PurelyRandom, 1, 1), 0.5},
		{"fixed/purely F, r=1", Freshness(FixedOrder, 1, 1) / Freshness(PurelyRandom, 1, 1), 1.264241},
		{"fixed/purely A, r=1", Age(FixedOrder, 1, 1) / Age(PurelyRandom, 1, 1), 0.264241},
		{"fixed/random A, r=1 (spec: 0.7190)", math.Round(1e4*Age(FixedOrder, 1, 1)/Age(RandomOrder, 1, 1)) / 1e4, 0.7190},
		{"E[F(t)], λ=t=1", ExpectedFreshnessAt(1, 1), 0.367879},
		{"E[A(t)], λ=t=1", ExpectedAgeAt(1, 1), 0.367879},
		{"E[A(t)], λ=1, t=10", ExpectedAgeAt(1, 10), 9.000045},
		// Units: λ = 2 per day visited daily is r = 2, Ā = 0.21617 days.
		{"fixed A in seconds, λ=2/day, f=1/day", Age(FixedOrder, 2/day, 1/day) / day, 0.216166},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if math.Abs(tt.got-tt.want) > 1e-6 {
				t.Errorf("got %.7f, want %.6f", tt.got, tt.want)
			}
		})
	}
	// §5.4.4: F = 0.8 at r = 0.46421, 0.9 at 0.21456, 0.5 at 1.59362.
	for _, c := range [][2]float64{{0.8, 0.46421}, {0.9, 0.21456}, {0.5, 1.59362}} {
		if f := Freshness(FixedOrder, c[1], 1); math.Abs(f-c[0]) > 1e-5 {
			t.Errorf("fixed F at r=%g = %.6f, want %g", c[1], f, c[0])
		}
	}
}

// renewalAverage is the brute-force time average over one renewal interval
// W with density fw on [0, wmax] of a quantity whose expectation t after a
// sync is at(t): ∫ f_W(s) ∫_0^s at(t) dt ds / ∫ f_W(s) s ds (eq. 5.3),
// both integrals by Simpson's rule.
func renewalAverage(fw func(float64) float64, wmax float64, at func(float64) float64) float64 {
	n := int(wmax * 100)
	num := brute.Simpson(func(s float64) float64 {
		return fw(s) * brute.Simpson(at, 0, s, 200)
	}, 0, wmax, n)
	den := brute.Simpson(func(s float64) float64 { return fw(s) * s }, 0, wmax, n)
	return num / den
}

// TestOrderBruteForce integrates E[F(t)] = e^{−λt} and E[A(t)] over each
// order's interval distribution (fixed: W = I; random: triangular on
// (0, 2I), Lemma 5.1; purely random: exponential, truncated at 30I where
// its tail is e^{−30}) and compares with Table 5.2. Simpson's error at
// these step counts is below 1e-7; the tolerance is 1e-6.
func TestOrderBruteForce(t *testing.T) {
	const I = 1.0
	tri := func(s float64) float64 {
		if s <= I {
			return s / (I * I)
		}
		return (2*I - s) / (I * I)
	}
	exp := func(s float64) float64 { return math.Exp(-s/I) / I }
	for _, lambda := range []float64{0.05, 0.3, 1, 2.5, 7} {
		fresh := func(t float64) float64 { return ExpectedFreshnessAt(lambda, t) }
		age := func(t float64) float64 { return ExpectedAgeAt(lambda, t) }
		fixedF := brute.Simpson(fresh, 0, I, 2000) / I
		fixedA := brute.Simpson(age, 0, I, 2000) / I
		tests := []struct {
			o            Order
			wantF, wantA float64
		}{
			{FixedOrder, fixedF, fixedA},
			{RandomOrder, renewalAverage(tri, 2*I, fresh), renewalAverage(tri, 2*I, age)},
			{PurelyRandom, renewalAverage(exp, 30*I, fresh), renewalAverage(exp, 30*I, age)},
		}
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%v/λ=%g", tt.o, lambda), func(t *testing.T) {
				if f := Freshness(tt.o, lambda, 1/I); math.Abs(f-tt.wantF) > 1e-6 {
					t.Errorf("F̄ = %.8f, integration %.8f", f, tt.wantF)
				}
				if a := Age(tt.o, lambda, 1/I); math.Abs(a-tt.wantA) > 1e-6 {
					t.Errorf("Ā = %.8f, integration %.8f", a, tt.wantA)
				}
			})
		}
	}
}

// TestOrderSmallR checks that the closed forms keep their digits as r → 0,
// where the printed forms cancel: against the leading terms of their series
// (1 − F̄ ≈ r/2 fixed, 7r/12 random, from E[W²] = I², 7I²/6; Ā/I ≈ r/6
// fixed, r/4 random, r purely random, from E[W³] = I³, 3I³/2, 6I³), to 1e-5 relative at
// r = 1e-6, where the next term is 1e-6 relative.
func TestOrderSmallR(t *testing.T) {
	const r = 1e-6
	tests := []struct {
		name      string
		got, want float64
	}{
		{"F fixed", 1 - Freshness(FixedOrder, r, 1), r / 2},
		{"F random", 1 - Freshness(RandomOrder, r, 1), 7 * r / 12},
		{"A fixed", Age(FixedOrder, r, 1), r / 6},
		{"A random", Age(RandomOrder, r, 1), r / 4},
		{"A purely", Age(PurelyRandom, r, 1), r},
	}
	for _, tt := range tests {
		if e := relErr(tt.got, tt.want); e > 1e-5 {
			t.Errorf("%s: %.10g, series %.10g (rel %.2g)", tt.name, tt.got, tt.want, e)
		}
	}
	// Edges: a page that never changes is fresh; one never visited is not.
	if Freshness(FixedOrder, 0, 0) != 1 || Freshness(FixedOrder, 1, 0) != 0 || !math.IsInf(Age(RandomOrder, 1, 0), 1) || Age(FixedOrder, 0, 1) != 0 {
		t.Error("edge cases wrong")
	}
}
