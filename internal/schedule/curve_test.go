package schedule

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// TestCurveAccuracy checks the tabulated curves against policy's exact
// Halley inversions (φ(c) = FreshnessFrequency(1, 1, c), ψ(y) =
// AgeFrequency(1, 1, y)) at random arguments spread over every octave the
// tables cover and beyond. The values must agree within 3e-10 relative (a
// cubic at Chebyshev nodes on a bin 1/64 of an octave wide is within about
// 1.3e-10 for the c^{−1/2} shape of φ near 0; measured 1.7e-10); the
// derivatives, fitted the same way to their closed forms and in ln c, which the
// multiplier searches only use for Newton steps, within 1e-9 of the closed
// forms −(1 + r)c/(r³(1 − c)) and −y/(r³(1 − e^{−r})).
func TestCurveAccuracy(t *testing.T) {
	tab := tables()
	rng := rand.New(rand.NewPCG(1, 2))
	var worst, worstD float64
	for range 200_000 {
		c := math.Exp(-rng.Float64() * 70)
		if rng.IntN(4) == 0 {
			c = 1 - math.Exp(-rng.Float64()*36) // near abandonment
		}
		got, dgot := tab.freshPhi(c)
		want := policy.FreshnessFrequency(1, 1, c)
		r := 1 / want
		dwant := -(1 + r) * c / (r * r * r * (1 - c))
		worst = max(worst, math.Abs(got-want)/want)
		worstD = max(worstD, math.Abs(dgot-dwant)/math.Abs(dwant))

		y := math.Exp((rng.Float64() - 0.5) * 100)
		got, dgot = tab.agePsi(y)
		want = policy.AgeFrequency(1, 1, y)
		r = 1 / want
		dwant = -y / (r * r * r * -math.Expm1(-r))
		worst = max(worst, math.Abs(got-want)/want)
		worstD = max(worstD, math.Abs(dgot-dwant)/math.Abs(dwant))

		got, dgot = tab.harmChi(y)
		want = policy.HarmonicFrequency(1, 1, y)
		r = 1 / want
		dwant = -y / (r * r * -math.Expm1(-r))
		worst = max(worst, math.Abs(got-want)/want)
		worstD = max(worstD, math.Abs(dgot-dwant)/math.Abs(dwant))
	}
	t.Logf("worst relative error: value %.3g, derivative %.3g", worst, worstD)
	if worst > 3e-10 || worstD > 1e-9 {
		t.Errorf("worst relative error: value %.3g (want ≤ 3e-10), derivative %.3g (want ≤ 1e-9)", worst, worstD)
	}
	if phi, _ := tab.freshPhi(1); phi != 0 {
		t.Errorf("φ(1) = %g, want 0 (abandoned)", phi)
	}
}
