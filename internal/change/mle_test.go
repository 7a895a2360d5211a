package change

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMLEExamples solves eq. 6.3 (dissertation §6.4.3) on the worked
// examples and checks the root against the printed or derived value and
// against the exact-list brute force (spec §7.6 items 29 and 30).
func TestMLEExamples(t *testing.T) {
	tests := []struct {
		name   string
		tc, tu []float64 // in units of unit
		unit   float64
		scale  float64 // multiply the rate per unit by this before comparing
		want   float64
		tol    float64
	}{
		// Example 6.5: 4 accesses in 20 hours; printed λ = 2.67 changes/20 h.
		{"example 6.5 printed", []float64{6, 3}, []float64{4, 7}, hour, 20, 2.67, 0.005},
		{"example 6.5 derived", []float64{6, 3}, []float64{4, 7}, hour, 1, 0.133292, 0.0000005},
		// Example 6.2: accesses on days 1, 2, 7, 10; changes at 2 and 7.
		{"example 6.2 derived", []float64{1, 5}, []float64{3}, day, 1, 0.38358, 0.000005},
		{"example 6.2 period", []float64{1, 5}, []float64{3}, day, 1, 1 / 2.607, 0.0005},
		// Equal intervals: the root is −log(X̄/n); n = 10, X = 6.
		{"equal intervals", []float64{1, 1, 1, 1, 1, 1}, []float64{1, 1, 1, 1}, day, 1, 0.916291, 0.0000005},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := scaled(tt.tc, tt.unit)
			tu := scaled(tt.tu, tt.unit)
			got := MLE{}.Estimate(fromLists(tc, tu)).Rate
			nearRel(t, "vs exact-list root", got, exactMLE(tc, tu), 1e-9)
			near(t, "λ̂", got*tt.unit*tt.scale, tt.want, tt.tol)
		})
	}
}

func scaled(v []float64, unit float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x * unit
	}
	return out
}

// TestMLEEdgeCases checks the documented substitutes where eq. 6.3 has no
// root (spec §5.4 flag; paper 001 §A.5).
func TestMLEEdgeCases(t *testing.T) {
	const I = day
	// Ten visits, none changed: exact 97.5 % bound −log(0.025)/ΣI.
	none := regular(10, 0, I)
	e := MLE{}.Estimate(none)
	near(t, "no change: rate", e.Rate, 0, 0)
	near(t, "no change: Lo", e.Lo, 0, 0)
	nearRel(t, "no change: Hi", e.Hi, math.Log(40)/(10*I), 1e-12)
	nearRel(t, "no change, Paper001: rate", MLE{Paper001: true}.Estimate(none).Rate, 1/(10*I), 1e-12)

	// Ten visits, all changed: log(2n+1)/I, the improved estimator's
	// saturation; Lo solves (1 − e^(−λI))^10 = 0.025.
	all := regular(10, 10, I)
	e = MLE{}.Estimate(all)
	nearRel(t, "all changed: rate", e.Rate, math.Log(21)/I, 1e-9)
	nearRel(t, "all changed: rate vs improved", e.Rate, Improved{}.Estimate(all).Rate, 1e-9)
	wantLo := -math.Log(1-math.Pow(0.025, 0.1)) / I
	nearRel(t, "all changed: Lo", e.Lo, wantLo, 1e-9)
	near(t, "all changed: Lo·I", e.Lo*I, 1.176, 0.0005)
	if !math.IsInf(e.Hi, 1) || !(e.Lo < e.Rate) {
		t.Errorf("all changed: [%v, %v] with rate %v", e.Lo, e.Hi, e.Rate)
	}
	// Paper 001's substitute: 1/(shortest changed interval), here below Lo.
	mixed := fromLists([]float64{2 * hour, 5 * hour, 9 * hour}, nil)
	nearRel(t, "all changed, Paper001: rate", MLE{Paper001: true}.Estimate(mixed).Rate, 1/(2*hour), 1e-12)
	nearRel(t, "Paper001 below Lo", MLE{Paper001: true}.Estimate(all).Rate, 1/I, 1e-12)

	// Irregular all-changed: the substitute is the root with half an
	// unchanged interval of the mean changed length.
	tc := []float64{2 * hour, 5 * hour, 9 * hour}
	nearRel(t, "irregular all changed", MLE{}.Estimate(mixed).Rate, exactMLE(tc, []float64{0.5 * 16 * hour / 3}), 1e-9)

	if e := (MLE{}).Estimate(&Stats{}); e.OK || !math.IsNaN(e.Rate) {
		t.Errorf("empty: %+v, want not OK with NaN rate", e)
	}
}

// TestBinnedMLEError measures how far summarising changed intervals in
// quarter-octave bins moves the MLE from the root on the exact list.
func TestBinnedMLEError(t *testing.T) {
	t.Run("worst case in one bin", func(t *testing.T) {
		// Two changed intervals at the opposite edges of one bin, and an
		// unchanged total that puts the exact root at λ. The bound is 0.5 %
		// for λ·t ≤ 2; at λ·t = 4 the error is 0.92 % (documented on NumBins).
		a := math.Pow(2, 40.0/4) // bin 40's lower edge
		b := math.Pow(2, 41.0/4) * (1 - 1e-12)
		tests := []struct {
			lt, max float64
		}{{0.1, 0.00002}, {0.5, 0.0002}, {1, 0.0008}, {1.5, 0.002}, {2, 0.003}, {4, 0.0095}}
		for _, tt := range tests {
			lambda := tt.lt / a
			u := a/math.Expm1(lambda*a) + b/math.Expm1(lambda*b)
			tc, tu := []float64{a, b}, []float64{u}
			exact := exactMLE(tc, tu)
			nearRel(t, "exact root", exact, lambda, 1e-9)
			got := MLE{}.Estimate(fromLists(tc, tu)).Rate
			t.Logf("λt=%.1f: binned error %.3f %%", tt.lt, 100*math.Abs(got/exact-1))
			nearRel(t, "binned root", got, exact, tt.max)
		}
	})
	t.Run("random histories", func(t *testing.T) {
		// Seeded histories: base intervals from a minute to a month,
		// r = λI from 0.05 to 2, each interval jittered by up to ×2 either
		// way, 5 to 200 visits. Every binned root is within 0.5 %.
		rng := rand.New(rand.NewPCG(65, 3))
		worst := 0.0
		for range 300 {
			base := 60 * math.Exp(rng.Float64()*math.Log(43200))
			lambda := math.Exp(math.Log(0.05)+rng.Float64()*math.Log(40)) / base
			n := 5 + rng.IntN(196)
			var tc, tu []float64
			for range n {
				iv := base * math.Exp((2*rng.Float64()-1)*math.Ln2)
				if rng.Float64() < -math.Expm1(-lambda*iv) {
					tc = append(tc, iv)
				} else {
					tu = append(tu, iv)
				}
			}
			if len(tc) == 0 || len(tu) == 0 {
				continue
			}
			exact := exactMLE(tc, tu)
			got := MLE{}.Estimate(fromLists(tc, tu)).Rate
			worst = math.Max(worst, math.Abs(got/exact-1))
		}
		t.Logf("largest relative error over random histories: %.4f %%", 100*worst)
		if worst >= 0.005 {
			t.Errorf("largest relative error %.4f %% ≥ 0.5 %%", 100*worst)
		}
	})
}

// TestMLECoverage checks by seeded simulation that the Wald interval on
// log λ covers the true rate about 95 % of the time. With 2000 replications
// the coverage's standard error is 0.5 %, so the band [93 %, 97 %] is 4σ
// wide either way and also admits the asymptotic interval's small-sample
// slack.
func TestMLECoverage(t *testing.T) {
	tests := []struct {
		n int
		r float64 // λ times the mean interval
	}{{50, 0.5}, {50, 1.5}, {200, 0.2}}
	for _, tt := range tests {
		rng := rand.New(rand.NewPCG(uint64(tt.n), 7))
		const reps = 2000
		lambda := tt.r / day
		covered := 0
		for range reps {
			var s Stats
			at := 0.0
			for range tt.n {
				iv := day * (0.5 + rng.Float64())
				at += iv
				s.Add(Observation{Interval: iv, Changed: rng.Float64() < -math.Expm1(-lambda*iv), SinceModified: -1}, at)
			}
			if e := (MLE{}).Estimate(&s); e.Lo <= lambda && lambda <= e.Hi {
				covered++
			}
		}
		cov := float64(covered) / reps
		t.Logf("n=%d r=%.1f: coverage %.3f", tt.n, tt.r, cov)
		near(t, "coverage", cov, Confidence, 0.02)
	}
}

// TestMLEWarmStart checks that the root does not depend on the cached hint:
// a cold solve, a warm one and ones from hints far off on either side agree
// to 1e-10 (the solver stops after a Halley step below 1e-4 of λ, which
// leaves an error of order 1e-12; the looser stop of warm updates is
// TestWarmUpdateError's).
func TestMLEWarmStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	for range 200 {
		var s Stats
		at := 0.0
		lambda := math.Exp(rng.NormFloat64()) / day
		for range 3 + rng.IntN(50) {
			iv := day * math.Exp(rng.NormFloat64())
			at += iv
			s.Add(Observation{Interval: iv, Changed: rng.Float64() < -math.Expm1(-lambda*iv), SinceModified: -1}, at)
		}
		for _, est := range []Estimator{MLE{}, PriorMLE{}} {
			c := s
			c.hint = 0
			cold := est.Estimate(&c).Rate
			warm := est.Estimate(&c).Rate
			for _, h := range []float64{warm, 1e-3 * cold, 1e3 * cold, 1e-300, 1e300, math.Inf(1), math.NaN()} {
				c.hint = h
				v := est.Estimate(&c).Rate
				if cold == 0 {
					near(t, "rate", v, 0, 0)
					continue
				}
				if math.Abs(v/cold-1) > 1e-10 {
					t.Logf("%s hint %v: %v vs %v", est.Name(), h, v, cold)
				}
				worst = math.Max(worst, math.Abs(v/cold-1))
			}
		}
	}
	t.Logf("largest relative difference %.2g", worst)
	if !(worst <= 1e-10) {
		t.Errorf("warm and cold roots differ by %.2g relative", worst)
	}
}

// TestWarmUpdateError bounds what the crawler's one-evaluation updates
// cost in precision: along 3,000 visits of a page with forgetting (the
// setting of BenchmarkUpdate, where a visit moves the root by a few per
// cent), the warm-started estimate stays within 1e-4 of a cold solve to
// full precision. An estimate's own noise is 10 % and more.
func TestWarmUpdateError(t *testing.T) {
	obs := updateObservations(1024)
	for _, decay := range []float64{0, 30 * day, 3 * day} {
		s := Stats{Decay: decay}
		at, worst := 0.0, 0.0
		for i := range 3000 {
			o := obs[i&1023]
			at += o.Interval
			s.Add(o, at)
			warm := PriorMLE{}.Estimate(&s).Rate
			c := s
			c.hint = 0
			cold := PriorMLE{}.Estimate(&c).Rate
			worst = math.Max(worst, math.Abs(warm/cold-1))
		}
		t.Logf("decay %v days: largest relative error of a warm update %.2g", decay/day, worst)
		if worst > 1e-4 {
			t.Errorf("decay %v days: warm updates off by %.2g relative, want at most 1e-4", decay/day, worst)
		}
	}
}
