package change

import (
	"math"
	"math/rand/v2"
	"testing"
)

// classOf returns the grid class nearest rate (changes per second).
func classOf(rate float64) int {
	return int(math.Round((math.Log2(rate) - gridMinExp) * GridPerOctave))
}

// TestLogChangedTable checks the interpolated log(1 − e^(−x)) against the
// exact value over 2^−25 ≤ x ≤ 2^10, through the table and both tails;
// the bound 1e-5 is the interpolation error h²/8·|g″| with margin.
func TestLogChangedTable(t *testing.T) {
	worst := 0.0
	for v := -25.0; v <= 10; v += 1.0 / 997 {
		exact := math.Log(-math.Expm1(-math.Exp2(v)))
		worst = max(worst, math.Abs(logChanged(v)-exact))
	}
	if worst > 1e-5 {
		t.Errorf("largest error %g, want ≤ 1e-5", worst)
	}
}

// TestLogLikelihood checks LogLikelihood against the Poisson likelihood of
// the exact lists of intervals (dissertation eq. 6.7's factor, summed
// directly): changed intervals of one length, so the bins hold them
// exactly, and unchanged ones of several.
func TestLogLikelihood(t *testing.T) {
	tc := []float64{5 * day, 5 * day, 5 * day}
	tu := []float64{2 * day, 9 * day}
	s := fromLists(tc, tu)
	got := LogLikelihood(s, nil)
	if len(got) != GridLen {
		t.Fatalf("%d classes, want %d", len(got), GridLen)
	}
	for k, lambda := range gridRates {
		want := 0.0
		for _, x := range tc {
			want += math.Log(-math.Expm1(-lambda * x))
		}
		for _, x := range tu {
			want -= lambda * x
		}
		if math.Abs(got[k]-want) > 3e-5+1e-12*math.Abs(want) {
			t.Fatalf("class %d (λ = %g/s): %g, want %g", k, lambda, got[k], want)
		}
	}
}

// TestPosteriorTwoClasses is dissertation §6.6's worked example on two grid
// classes near weekly and monthly, equal prior, one to three changes seen
// at 5-day visits: the posterior of the faster class is eq. 6.7's closed
// form pw/(pw + pm), pw = (1 − e^(−5λ_W))^n.
func TestPosteriorTwoClasses(t *testing.T) {
	kw, km := classOf(1/(7*day)), classOf(1/(30*day))
	pi := make([]float64, GridLen)
	pi[kw], pi[km] = 0.5, 0.5
	for n := 1; n <= 3; n++ {
		s := regular(n, n, 5*day)
		post := Posterior(pi, RelLikelihood(s, nil), nil)
		pw := math.Pow(-math.Expm1(-5*day*gridRates[kw]), float64(n))
		pm := math.Pow(-math.Expm1(-5*day*gridRates[km]), float64(n))
		near(t, "P(weekly)", post[kw], pw/(pw+pm), 1e-5)
		near(t, "P(weekly)+P(monthly)", post[kw]+post[km], 1, 1e-12)
	}
}

// TestFreshnessRate checks the inverse of F(r) = (1 − e^(−r))/r on a wide
// range of r, that a posterior on one class gives that class's rate, and a
// two-class posterior against the expected freshness it must match
// (dissertation §5.4, fixed order), solved independently by bisection.
func TestFreshnessRate(t *testing.T) {
	for _, r := range []float64{1e-6, 1e-3, 0.1, 1, 1.5, 7, 100, 1e5} {
		near(t, "invFreshness(F(r))/r", invFreshness(freshnessOf(r))/r, 1, 1e-9)
	}
	f := 1 / (5 * day)
	post := make([]float64, GridLen)
	k := classOf(1 / day)
	post[k] = 1
	near(t, "one class", FreshnessRate(post, f)/gridRates[k], 1, 1e-9)
	// 30 % weekly, 70 % hourly.
	kw, kh := classOf(1/(7*day)), classOf(1/hour)
	post[k], post[kw], post[kh] = 0, 0.3, 0.7
	want := 0.3*freshnessOf(gridRates[kw]/f) + 0.7*freshnessOf(gridRates[kh]/f)
	lo, hi := math.Log(1e-9), math.Log(1e9)
	for range 200 {
		mid := (lo + hi) / 2
		if r := math.Exp(mid); -math.Expm1(-r)/r > want {
			lo = mid
		} else {
			hi = mid
		}
	}
	near(t, "two classes", FreshnessRate(post, f)/(math.Exp(lo)*f), 1, 1e-9)
}

// drawPages returns the relative likelihoods of pages visited n times
// every interval seconds, a share of them changing at rate a and the rest
// at rate b (Poisson: a visit sees a change with probability 1 − e^(−λI)).
func drawPages(pages, n int, interval, a, b, share float64, rng *rand.Rand) []float32 {
	var lik []float32
	for range pages {
		lambda := b
		if rng.Float64() < share {
			lambda = a
		}
		var s Stats
		for v := range n {
			changed := rng.Float64() < -math.Expm1(-lambda*interval)
			s.Add(Observation{Interval: interval, Changed: changed, SinceModified: -1}, float64(v+1)*interval)
		}
		lik = RelLikelihood(&s, lik)
	}
	return lik
}

// TestFitRecoversMixture draws 4,000 pages from a known two-class mixture
// (60 % changing daily, 40 % monthly, ten visits 3 days apart) and checks
// that EM from uniform weights (Laird 1978: the NPMLE of a mixing
// distribution) puts 0.6 and 0.4 of the mass within a class of the two
// true rates. Binomial noise on 4,000 pages is 0.008 (one standard error),
// so ±0.04 is five of them. It also checks EM's defining property, a
// marginal likelihood that never falls from step to step.
func TestFitRecoversMixture(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	a, b := GridRate(classOf(1/day)), GridRate(classOf(1/(30*day)))
	lik := drawPages(4000, 10, 3*day, a, b, 0.6, rng)
	var p Population
	prev := math.Inf(-1)
	for range 30 {
		p.Fit(lik, 1)
		ll := marginal(&p, lik)
		if ll < prev-1e-9*math.Abs(prev) {
			t.Fatalf("marginal log-likelihood fell from %g to %g", prev, ll)
		}
		prev = ll
	}
	p.Fit(lik, 1000)
	pi := p.Weights(nil)
	mass := func(rate float64) float64 {
		k := classOf(rate)
		return pi[k-1] + pi[k] + pi[k+1]
	}
	near(t, "mass near daily", mass(a), 0.6, 0.04)
	near(t, "mass near monthly", mass(b), 0.4, 0.04)
	near(t, "population size", p.N(), 4000, 0)
}

// marginal returns Σ_i log Σ_k π_k L_ik, the log-likelihood EM raises.
func marginal(p *Population, lik []float32) float64 {
	pi := p.Weights(nil)
	ll := 0.0
	for i := 0; i < len(lik); i += GridLen {
		z := 0.0
		for k := range GridLen {
			z += pi[k] * float64(lik[i+k])
		}
		ll += math.Log(z)
	}
	return ll
}

// TestEmpiricalAllChanged is the fault the estimator is for: in a
// population half of whose pages change hourly and half monthly, a page
// seen changed at each of 5 visits 5 days apart is hourly with posterior
// 1/(1 + (1 − e^(−5/30))^5) (eq. 6.7, the hourly class seeing a change at
// every visit with probability 1 to 1e-52), so its rate is the hourly one
// within the monthly share's weight; the prior-seeded MLE says about one
// change in 2.5 days.
func TestEmpiricalAllChanged(t *testing.T) {
	kh, km := classOf(1/hour), classOf(1/(30*day))
	var p Population
	post := make([]float64, GridLen)
	post[kh], post[km] = 1, 0
	p.Add(post, 1)
	post[kh], post[km] = 0, 1
	p.Add(post, 1)
	s := regular(5, 5, 5*day)
	e := Empirical{Pop: &p, Fallback: Auto{Prior: Paper001Prior()}}.Estimate(s)
	pm := math.Pow(-math.Expm1(-5*day*gridRates[km]), 5)
	qh := 1 / (1 + pm)
	f := 1 / (5 * day)
	want := invFreshness(qh*freshnessOf(gridRates[kh]/f)+(1-qh)*freshnessOf(gridRates[km]/f)) * f
	near(t, "empirical rate", e.Rate/want, 1, 1e-4)
	if e.Rate < 10/day {
		t.Errorf("rate %g/day, want a page changing many times a day", e.Rate*day)
	}
	if old := (Auto{Prior: Paper001Prior()}).Estimate(s); old.Rate > 1/day {
		t.Errorf("prior-mle %g/day: the case no longer shows the fault", old.Rate*day)
	}
	// Removing both members leaves the empty population, uniform weights.
	post[km] = 1
	p.Add(post, -1)
	post[kh], post[km] = 1, 0
	p.Add(post, -1)
	near(t, "emptied population", p.N(), 0, 0)
	near(t, "uniform weight", p.Weights(nil)[0], 1.0/GridLen, 0)
}
