package policy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/policy/brute"
)

// gammaAverage integrates fn(λ) against the gamma density of mean 1 and
// δ² = delta2 (eq. 5.6: α = 1/δ², rate α) by Simpson's rule on [0, 80],
// beyond which the density is below e^{−80}, substituting λ = u³ so that
// the x^{α−2} singularity of the proportional age's integrand at 0 becomes
// smooth.
func gammaAverage(delta2 float64, fn func(lambda float64) float64) float64 {
	a := 1 / delta2
	lg, _ := math.Lgamma(a)
	dens := func(x float64) float64 {
		if x == 0 {
			if a == 1 {
				return 1
			}
			return 0
		}
		return math.Exp(a*math.Log(a) + (a-1)*math.Log(x) - a*x - lg)
	}
	return brute.Simpson(func(u float64) float64 {
		x := u * u * u
		if x == 0 {
			return 0 // the integrand times 3u² vanishes at 0 for α ≥ 1
		}
		return dens(x) * fn(x) * 3 * u * u
	}, 0, math.Cbrt(80), 40000)
}

// TestTable53 checks Table 5.3's closed forms against numerical
// integration over the gamma density (spec §4.1 recon: they agree to 5
// decimals) and against the spec's values; the tolerance is 5e-6. Mean λ
// is 1, so f = 1/r and I = r.
func TestTable53(t *testing.T) {
	tests := []struct {
		delta2, r      float64
		fu, fp, au, ap float64 // spec §4.1 table; ap = 0 where not listed
	}{
		{0.1, 1, 0.63989, 0.63212, 0.12985, 0.14680},
		{0.3, 1, 0.65405, 0.63212, 0.12566, 0.18874},
		{0.3, 2, 0.47573, 0.43233, 0.20146, 0.30881},
		{0.3, 5, 0.25203, 0.19865, 0.31504, 0.48533},
		{0.45, 1, 0.66364, 0.63212, 0.12278, 0.24022},
		{0.45, 5, 0.27753, 0.19865, 0.30395, 0.61769},
		{0.5, 2, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("δ²=%g,r=%g", tt.delta2, tt.r), func(t *testing.T) {
			f := 1 / tt.r
			intFU := gammaAverage(tt.delta2, func(l float64) float64 { return Freshness(FixedOrder, l, f) })
			intAU := gammaAverage(tt.delta2, func(l float64) float64 { return Age(FixedOrder, l, f) }) / tt.r
			intAP := gammaAverage(tt.delta2, func(l float64) float64 { return Age(FixedOrder, l, l/tt.r) }) / tt.r
			fu, fp := GammaUniformFreshness(tt.r, tt.delta2), GammaProportionalFreshness(tt.r)
			au, ap := GammaUniformAge(tt.r, tt.delta2), GammaProportionalAge(tt.r, tt.delta2)
			for _, c := range []struct {
				name             string
				got, integ, spec float64
			}{
				{"F_u", fu, intFU, tt.fu}, {"F_p", fp, Freshness(FixedOrder, tt.r, 1), tt.fp},
				{"A_u/I", au, intAU, tt.au}, {"A_p/I", ap, intAP, tt.ap},
			} {
				if math.Abs(c.got-c.integ) > 5e-6 {
					t.Errorf("%s = %.6f, integration %.6f", c.name, c.got, c.integ)
				}
				if c.spec != 0 && math.Abs(c.got-c.spec) > 5e-6 {
					t.Errorf("%s = %.6f, spec %.5f", c.name, c.got, c.spec)
				}
			}
		})
	}
	// δ² = 1: exponential rates, the 0/0 limit ln(1 + r)/r (spec §7.3 item 11).
	if got := GammaUniformFreshness(1, 1); math.Abs(got-0.693147) > 5e-7 {
		t.Errorf("δ²=1 limit %.7f, want 0.693147", got)
	}
	if got, integ := GammaUniformFreshness(2, 1), gammaAverage(1, func(l float64) float64 { return Freshness(FixedOrder, l, 0.5) }); math.Abs(got-integ) > 5e-6 {
		t.Errorf("δ²=1, r=2: %.6f, integration %.6f", got, integ)
	}
}

// TestUniformBeatsProportional is the property of Theorems 5.3 and 5.4 on
// random rate vectors: under one sync frequency, uniform allocation has at
// least the freshness of the mean rate and proportional allocation at
// least uniform's age (up to 1e-12 of rounding).
func TestUniformBeatsProportional(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for trial := range 200 {
		n := 2 + rng.IntN(20)
		pages := make([]Page, n)
		var mean float64
		for i := range pages {
			pages[i].Rate = math.Exp(rng.NormFloat64() * 1.5)
			mean += pages[i].Rate / float64(n)
		}
		budget := float64(n) * math.Exp(rng.NormFloat64())
		fu, fp := make([]float64, n), make([]float64, n)
		Uniform{}.Allocate(pages, budget, fu)
		Proportional{}.Allocate(pages, budget, fp)
		frU, ageU := Collection(pages, fu)
		frP, ageP := Collection(pages, fp)
		if frU < Freshness(FixedOrder, mean, budget/float64(n))-1e-12 || frP > frU+1e-12 || ageU > ageP*(1+1e-12) {
			t.Fatalf("trial %d: uniform F %.6g A %.6g, proportional F %.6g A %.6g", trial, frU, ageU, frP, ageP)
		}
	}
}
