package simweb

import (
	"math"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/freshcrawl/freshcrawl/internal/change/evolution"
	"github.com/freshcrawl/freshcrawl/internal/change/process"
	"github.com/freshcrawl/freshcrawl/internal/change/process/processtest"
	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// ksLevel is the significance of the Kolmogorov–Smirnov tests below: a
// correct generator fails one with probability 0.01; seeds are fixed, so
// each test is deterministic.
const ksLevel = 0.01

// chiSquareP returns the p-value of Pearson's statistic for observed
// counts against expected probabilities.
func chiSquareP(obs []float64, probs []float64) (stat, p float64, df int) {
	n := 0.0
	for _, o := range obs {
		n += o
	}
	for i, o := range obs {
		e := n * probs[i]
		if e == 0 {
			continue
		}
		stat += (o - e) * (o - e) / e
		df++
	}
	df--
	return stat, distuv.ChiSquared{K: float64(df)}.Survival(stat), df
}

func testIncarnation(kind process.Kind, mean time.Duration, key uint64) incarnation {
	return incarnation{key: key, born: 0, died: math.MaxInt64, origin: 0, model: newChangeModel(kind, mean, 1.5, int64(3*time.Hour))}
}

func intervals(in *incarnation, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(in.delta(uint32(i+1))) / 1e9
	}
	return out
}

// Inter-change times of a Poisson page are exponential with mean 1/λ
// (dissertation Lemma 4.1).
func TestPoissonIntervalsAreExponential(t *testing.T) {
	for _, mean := range []time.Duration{time.Hour, 10 * day} {
		in := testIncarnation(process.Poisson, mean, 42)
		xs := intervals(&in, 20000)
		d, crit := processtest.KS(xs, processtest.ExponentialCDF(1/mean.Seconds())), processtest.Critical(ksLevel, float64(len(xs)))
		if d > crit {
			t.Errorf("mean %v: KS D = %.4f > %.4f", mean, d, crit)
		}
	}
}

// The same, end to end: the change times the web generates for one of its
// Poisson pages, over enough simulated time for 5,000 changes.
func TestWebPoissonPageChangeTimes(t *testing.T) {
	w, _ := newTestWeb(t, func(c *Config) { c.Hosts, c.PagesPerHost, c.Churn = 4, 50, 0 })
	// Find a fast page so that the sample is large.
	var si, slot int32 = -1, 0
	for s := int32(0); s < 4 && si < 0; s++ {
		for p := int32(0); p < 50; p++ {
			if v := w.VersionAt(s, p, 0); v.Rate > 1.0/7200 {
				si, slot = s, p
				break
			}
		}
	}
	if si < 0 {
		t.Fatal("no page changing faster than every 2 hours")
	}
	v := w.VersionAt(si, slot, 0)
	horizon := int64(5000 / v.Rate * 1e9)
	ts := w.ChangeTimes(si, slot, v.Gen, 0, horizon)
	xs := make([]float64, 0, len(ts))
	prev := int64(0)
	for _, x := range ts {
		xs = append(xs, float64(x-prev)/1e9)
		prev = x
	}
	d, crit := processtest.KS(xs, processtest.ExponentialCDF(v.Rate)), processtest.Critical(ksLevel, float64(len(xs)))
	if d > crit {
		t.Errorf("KS D = %.4f > %.4f over %d intervals", d, crit, len(xs))
	}
}

// Pareto pages have Lomax inter-change times (β/(β+t))^α with mean 1/λ,
// and pages alive at time 0 start with the equilibrium residual, Lomax
// with shape α−1 (paper 002 §2.3; renewal theory).
func TestParetoIntervals(t *testing.T) {
	mean := 5 * day
	in := testIncarnation(process.Pareto, mean, 7)
	alpha := in.model.alpha
	beta := (alpha - 1) * mean.Seconds()
	xs := intervals(&in, 20000)
	if d, crit := processtest.KS(xs, processtest.LomaxCDF(alpha, beta)), processtest.Critical(ksLevel, float64(len(xs))); d > crit {
		t.Errorf("ordinary intervals: KS D = %.4f > %.4f", d, crit)
	}
	first := make([]float64, 5000)
	for i := range first {
		p := testIncarnation(process.Pareto, mean, uint64(1000+i))
		p.born = -1 // alive before the origin: stationary start
		first[i] = float64(p.delta(1)) / 1e9
	}
	if d, crit := processtest.KS(first, processtest.LomaxCDF(alpha-1, beta)), processtest.Critical(ksLevel, float64(len(first))); d > crit {
		t.Errorf("residual at the origin: KS D = %.4f > %.4f", d, crit)
	}
}

// Quasi-deterministic pages change only at their potential update times
// (phase + j·period) and each potential update happens with probability k
// (paper 002 §2.3): the number of slots between changes is geometric.
func TestQuasiDeterministicChanges(t *testing.T) {
	in := testIncarnation(process.QuasiDeterministic, 3*day, 11)
	m := in.model
	if m.period != int64(day) || math.Abs(m.k-1.0/3) > 1e-12 {
		t.Fatalf("period %v k %g, want 24h and 1/3", time.Duration(m.period), m.k)
	}
	n := 20000
	tm := in.origin
	slots := 0.0
	for i := 1; i <= n; i++ {
		tm += in.delta(uint32(i))
		if (tm-m.phase)%m.period != 0 {
			t.Fatalf("change %d at %v is not on the update grid", i, time.Duration(tm))
		}
	}
	slots = float64(m.nextSlot(tm)-m.nextSlot(in.origin)) / float64(m.period)
	// n successes in `slots` Bernoulli(k) trials: the estimate's standard
	// error is √(k(1−k)/slots); allow 4 of them.
	kHat := float64(n) / slots
	if se := math.Sqrt(m.k * (1 - m.k) / slots); math.Abs(kHat-m.k) > 4*se {
		t.Errorf("realised k = %.4f, want %.4f ± %.4f", kHat, m.k, 4*se)
	}
}

// The realised mean change intervals of a whole web (changes counted over
// four simulated years) follow the calibration: the expected share of
// each Fig. 4.2 bin is computed independently by integrating the Poisson
// count distribution over each calibration bin's log-uniform rates, and a
// chi-square test compares the two. Pages with no change in the window go
// to the last bar, as in ch. 4. α = 0.001 with a fixed seed: deterministic.
func TestRealisedIntervalsMatchCalibration(t *testing.T) {
	w, _ := newTestWeb(t, func(c *Config) { c.Hosts, c.PagesPerHost, c.Churn = 200, 40, 0 })
	const years = 4
	horizon := int64(years * 365 * day)
	obs := make([]float64, 5)
	var pages [evolution.NumDomains]float64
	for si := range w.sites {
		for slot := int32(0); slot < w.sites[si].pages; slot++ {
			pages[w.sites[si].domain]++
			n := 0
			in, _ := w.state(int32(si), slot, 0)
			tm := in.origin
			for i := uint32(1); ; i++ {
				tm += in.delta(i)
				if tm >= horizon {
					break
				}
				n++
			}
			b := len(evolution.Bins) - 1
			if n > 0 {
				b = evolution.BinOf(time.Duration(horizon / int64(n)))
			}
			obs[b]++
		}
	}
	// Expected: P(bin k) = Σ_d w_d Σ_b share_{d,b} E_λ~LogU(bin b)[P(H/N ∈ bin k)].
	total := float64(w.NumPages())
	probs := make([]float64, 5)
	H := float64(horizon) / 1e9
	for b, bin := range evolution.Bins {
		var inner [5]float64
		const steps = 400
		lo, hi := math.Log(float64(bin.Lo)/1e9), math.Log(float64(bin.Hi)/1e9)
		for s := 0; s < steps; s++ {
			mean := math.Exp(lo + (float64(s)+0.5)/steps*(hi-lo))
			mu := H / mean
			p := distuv.Poisson{Lambda: mu}
			inner[len(evolution.Bins)-1] += p.Prob(0) / steps
			// Sum over counts in a window around the mean (±12 sd).
			sd := math.Sqrt(mu)
			for n := max(1, int(mu-12*sd)); float64(n) <= mu+12*sd+20; n++ {
				inner[evolution.BinOf(time.Duration(H/float64(n)*1e9))] += p.Prob(float64(n)) / steps
			}
		}
		for d := evolution.Domain(0); d < evolution.NumDomains; d++ {
			for k := range probs {
				probs[k] += pages[d] / total * evolution.DomainShares[d][b] * inner[k]
			}
		}
	}
	stat, p, df := chiSquareP(obs, probs)
	t.Logf("observed %v, expected shares %.4f, chi2 = %.2f, df = %d, p = %.3f", obs, probs, stat, df, p)
	if p < 0.001 {
		t.Errorf("realised change intervals do not match the calibration: chi2 = %.2f (df %d), p = %.2g", stat, df, p)
	}
}

// Seeking the event cursor forwards and backwards gives the same version
// as counting the change times from the origin (brute force).
func TestCursorMatchesBruteForce(t *testing.T) {
	w, _ := newTestWeb(t, func(c *Config) { c.Hosts, c.PagesPerHost, c.ParetoShare, c.QDShare = 3, 30, 0.34, 0.33 })
	r := splitmix.NewStream(99)
	for k := 0; k < 3000; k++ {
		si, slot := int32(r.IntN(3)), int32(r.IntN(30))
		at := int64(r.Float64() * float64(200*day))
		v := w.VersionAt(si, slot, at)
		if !v.Alive {
			t.Fatalf("VersionAt returned a dead incarnation at %v", time.Duration(at))
		}
		born, died := w.lifetime(si, slot, v.Gen)
		if at < born || at >= died {
			t.Fatalf("generation %d lives [%d, %d), not at %d", v.Gen, born, died, at)
		}
		n := uint32(len(w.ChangeTimes(si, slot, v.Gen, math.MinInt64, at+1)))
		if n != v.Version {
			t.Fatalf("site %d slot %d at %v: cursor says version %d, brute force %d", si, slot, time.Duration(at), v.Version, n)
		}
		if v.Version > 0 && w.ChangeTime(si, slot, v.Gen, v.Version) != v.Modified {
			t.Fatalf("ChangeTime(%d) = %d, VersionAt.Modified = %d", v.Version, w.ChangeTime(si, slot, v.Gen, v.Version), v.Modified)
		}
		if v.Next <= at || v.Next != w.ChangeTime(si, slot, v.Gen, v.Version+1) {
			t.Fatalf("next change %d is not after %d or disagrees with ChangeTime", v.Next, at)
		}
	}
}
