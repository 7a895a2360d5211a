package sim

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

// ks returns the Kolmogorov–Smirnov statistic D of samples against cdf.
func ks(samples []float64, cdf func(float64) float64) float64 {
	s := slices.Clone(samples)
	slices.Sort(s)
	n := float64(len(s))
	d := 0.0
	for i, x := range s {
		f := cdf(x)
		d = max(d, f-float64(i)/n, float64(i+1)/n-f)
	}
	return d
}

// ks2 returns the two-sample KS statistic of samples a and b: the largest
// gap between their empirical CDFs, evaluated after each distinct value
// (so that atoms, tied in both samples, do not open false gaps).
func ks2(a, b []float64) float64 {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	d, i, j := 0.0, 0, 0
	for i < len(a) && j < len(b) {
		x := min(a[i], b[j])
		for i < len(a) && a[i] == x {
			i++
		}
		for j < len(b) && b[j] == x {
			j++
		}
		d = max(d, math.Abs(float64(i)/float64(len(a))-float64(j)/float64(len(b))))
	}
	return d
}

// ksCritical001 is the asymptotic KS critical value at α = 0.001,
// 1.949/√n_eff (Smirnov); n_eff = n for one sample, nm/(n+m) for two.
func ksCritical001(nEff float64) float64 { return 1.949 / math.Sqrt(nEff) }

func testStream(key uint64) (stream, *uint32) {
	n := new(uint32)
	return stream{key: key, n: n}, n
}

// Inter-change times: advancing a process from a change c to the time c
// itself returns the next change, so next − c is one ordinary interval.
// They must be exponential (dissertation Lemma 4.1), Lomax with mean 1/λ
// (paper 002 §2.3) and, for quasi-deterministic pages, on the update grid
// with Geometric(k) slot gaps.
func TestProcessIntervals(t *testing.T) {
	const n = 20000
	lambda := 1 / (5 * day)
	alpha := 1.5
	beta := (alpha - 1) / lambda
	tests := []struct {
		name string
		p    Process
		cdf  func(float64) float64
	}{
		{"poisson", PoissonProcess(lambda), func(x float64) float64 { return 1 - math.Exp(-lambda*x) }},
		{"pareto", ParetoProcess(lambda, alpha), func(x float64) float64 { return 1 - math.Pow(beta/(beta+x), alpha) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newProc(tt.p, true)
			s, _ := testStream(3)
			xs := make([]float64, n)
			c := 0.0
			for i := range xs {
				_, next := q.advance(s, c, c)
				xs[i], c = next-c, next
			}
			if d := ks(xs, tt.cdf); d > ksCritical001(n) {
				t.Errorf("KS D = %.4f > %.4f", d, ksCritical001(n))
			}
		})
	}
	t.Run("quasi-deterministic", func(t *testing.T) {
		p := QDProcess(day, 0.25, 3600)
		q := newProc(p, true)
		s, _ := testStream(5)
		c := q.slotAtOrBefore(0) + day // any slot
		slots := 0.0
		for i := 0; i < n; i++ {
			_, next := q.advance(s, c, c)
			g := (next - c) / day
			if math.Abs(g-math.Round(g)) > 1e-6 || g < 1 {
				t.Fatalf("gap %g slots is not a positive whole number", g)
			}
			slots += math.Round(g)
			c = next
		}
		// n successes in `slots` Bernoulli(k) trials: k̂ = n/slots has
		// standard error √(k(1−k)/slots); allow 4.
		kHat := n / slots
		if se := math.Sqrt(p.K * (1 - p.K) / slots); !within(kHat, p.K, se, 4) {
			t.Errorf("k̂ = %.4f, want %.4f ± 4×%.4f", kHat, p.K, se)
		}
	})
}

// At time 0 the processes are stationary: the forward and backward
// recurrence times of an equilibrium renewal process both have density
// λḠ (paper 002 §B.1): exponential for Poisson, Lomax with shape α−1 for
// Pareto.
func TestProcessStartIsStationary(t *testing.T) {
	const n = 20000
	lambda := 1 / day
	alpha := 1.5
	beta := (alpha - 1) / lambda
	tests := []struct {
		name string
		p    Process
		cdf  func(float64) float64
	}{
		{"poisson", PoissonProcess(lambda), func(x float64) float64 { return 1 - math.Exp(-lambda*x) }},
		{"pareto", ParetoProcess(lambda, alpha), func(x float64) float64 { return 1 - math.Pow(beta/(beta+x), alpha-1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newProc(tt.p, true)
			fw, bw := make([]float64, n), make([]float64, n)
			for i := range fw {
				s, _ := testStream(uint64(i) * 7919)
				last, next := q.start(s)
				fw[i], bw[i] = next, -last
			}
			for name, xs := range map[string][]float64{"forward": fw, "backward": bw} {
				if d := ks(xs, tt.cdf); d > ksCritical001(n) {
					t.Errorf("%s: KS D = %.4f > %.4f", name, d, ksCritical001(n))
				}
			}
		})
	}
}

// advance skips the changes between the first change c and the fetch t for
// Poisson and quasi-deterministic pages. Brute force walks them one by one
// with ordinary intervals; the distributions of the time since the last
// change (t − last) and of the time to the next (next − t) must agree
// (two-sample KS, α = 0.001, continuous for Poisson; for the lattice-valued
// quasi-deterministic times the test is conservative).
func TestAdvanceMatchesBruteForce(t *testing.T) {
	const n = 20000
	tests := []struct {
		name string
		p    Process
		gap  float64 // t − c
	}{
		{"poisson", PoissonProcess(1 / day), 2.5 * day},
		{"quasi-deterministic", QDProcess(3600, 0.3, 1200), 7 * 3600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newProc(tt.p, true)
			c := 1200.0 // a change time (on the QD grid)
			tf := c + tt.gap
			var fastB, fastF, slowB, slowF []float64
			for i := 0; i < n; i++ {
				s, _ := testStream(uint64(i))
				last, next := q.advance(s, c, tf)
				fastB, fastF = append(fastB, tf-last), append(fastF, next-tf)
				// Brute force: walk ordinary intervals from c.
				s2, _ := testStream(uint64(i) + 1<<40)
				x := c
				for {
					_, nx := q.advance(s2, x, x)
					if nx > tf {
						slowB, slowF = append(slowB, tf-x), append(slowF, nx-tf)
						break
					}
					x = nx
				}
			}
			crit := ksCritical001(n / 2)
			if d := ks2(fastB, slowB); d > crit {
				t.Errorf("time since last change: KS D = %.4f > %.4f", d, crit)
			}
			if d := ks2(fastF, slowF); d > crit {
				t.Errorf("time to next change: KS D = %.4f > %.4f", d, crit)
			}
		})
	}
}

// The lean processes are simweb's: Pareto inter-change times of a simweb
// web's pages, scaled by their rates, have the same distribution as ours
// (two-sample KS), and simweb's quasi-deterministic pages change only on
// the grid QDProcessMean derives from their mean interval, at its k.
func TestMatchesSimweb(t *testing.T) {
	cfg := simweb.DefaultConfig()
	cfg.Hosts, cfg.PagesPerHost, cfg.Churn = 12, 20, 0
	cfg.ParetoShare, cfg.QDShare = 0.5, 0.5
	w, err := simweb.New(cfg, &simweb.ManualClock{})
	if err != nil {
		t.Fatal(err)
	}
	const horizon = int64(4 * 365 * day * 1e9)
	var theirs []float64
	qdChecked := 0
	for si := int32(0); si < int32(w.NumSites()); si++ {
		for slot := int32(0); slot < int32(w.PagesPerSite()); slot++ {
			v := w.VersionAt(si, slot, 0)
			ts := w.ChangeTimes(si, slot, v.Gen, 0, horizon)
			switch v.Process {
			case simweb.Pareto:
				for k := 1; k < len(ts); k++ {
					theirs = append(theirs, float64(ts[k]-ts[k-1])/1e9*v.Rate)
				}
			case simweb.QuasiDeterministic:
				if len(ts) < 200 {
					continue
				}
				p := QDProcessMean(1/v.Rate, float64(ts[0])/1e9)
				slots := (float64(ts[len(ts)-1]-ts[0]) / 1e9) / p.Period
				for _, x := range ts {
					if r := math.Mod(float64(x-ts[0])/1e9, p.Period); math.Min(r, p.Period-r) > 1e-3 {
						t.Fatalf("simweb QD change at %d ns is off our grid of period %g s", x, p.Period)
					}
				}
				kHat := float64(len(ts)-1) / slots
				if se := math.Sqrt(p.K * (1 - p.K) / slots); !within(kHat, p.K, se, 4) {
					t.Errorf("QD page rate %g/day: simweb k̂ = %.4f, ours %.4f ± 4×%.4f", v.Rate*day, kHat, p.K, se)
				}
				qdChecked++
			}
		}
	}
	if len(theirs) < 2000 || qdChecked < 5 {
		t.Fatalf("too little data: %d Pareto intervals, %d QD pages", len(theirs), qdChecked)
	}
	q := newProc(ParetoProcess(1, cfg.ParetoAlpha), false)
	s, _ := testStream(17)
	ours := make([]float64, 20000)
	for i := range ours {
		_, next := q.advance(s, 0, 0)
		ours[i] = next
	}
	nEff := float64(len(theirs)*len(ours)) / float64(len(theirs)+len(ours))
	if d := ks2(theirs, ours); d > ksCritical001(nEff) {
		t.Errorf("Pareto intervals × rate: KS D = %.4f > %.4f (%d simweb intervals)", d, ksCritical001(nEff), len(theirs))
	}
	t.Logf("%d simweb Pareto intervals, %d QD pages", len(theirs), qdChecked)
}

func TestProcessValidate(t *testing.T) {
	tests := []struct {
		p  Process
		ok bool
	}{
		{PoissonProcess(0), true},
		{PoissonProcess(-1), false},
		{ParetoProcess(1, 1), false},
		{ParetoProcess(1, 1.5), true},
		{QDProcess(3600, 0, 0), false},
		{QDProcess(3600, 1, 0), true},
		{Process{Kind: 9}, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v", tt.p), func(t *testing.T) {
			if err := tt.p.validate(); (err == nil) != tt.ok {
				t.Errorf("validate = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}
