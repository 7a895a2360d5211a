package sim

import (
	"fmt"
	"math"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/change/process/processtest"
)

// ksLevel is the significance of the Kolmogorov–Smirnov tests below: with
// fixed seeds each is deterministic, and a correct process fails one with
// probability 0.001.
const ksLevel = 0.001

// renewalCase is a continuous process with its laws: the distribution
// function of an ordinary interval between changes, and of the forward
// (and backward) recurrence time of the stationary process.
type renewalCase struct {
	name               string
	p                  Process
	interval, residual func(float64) float64
}

// renewalCases are the continuous processes of mean rate lambda. The
// recurrence times have density λḠ (paper 002 §B.1): exponential for
// Poisson (dissertation Lemma 4.1), Lomax with shape α−1 for Pareto (§2.3).
func renewalCases(lambda float64) []renewalCase {
	const alpha = 1.5
	beta := (alpha - 1) / lambda
	exp := processtest.ExponentialCDF(lambda)
	return []renewalCase{
		{"poisson", PoissonProcess(lambda), exp, exp},
		{"pareto", ParetoProcess(lambda, alpha), processtest.LomaxCDF(alpha, beta), processtest.LomaxCDF(alpha-1, beta)},
	}
}

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
	for _, tt := range renewalCases(1 / (5 * day)) {
		t.Run(tt.name, func(t *testing.T) {
			q := newProc(tt.p, true)
			s, _ := testStream(3)
			xs := make([]float64, n)
			c := 0.0
			for i := range xs {
				_, next, _ := q.advance(s, c, c, 0)
				xs[i], c = next-c, next
			}
			if d, crit := processtest.KS(xs, tt.interval), processtest.Critical(ksLevel, n); d > crit {
				t.Errorf("KS D = %.4f > %.4f", d, crit)
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
			_, next, _ := q.advance(s, c, c, 0)
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
// recurrence times both have the equilibrium law.
func TestProcessStartIsStationary(t *testing.T) {
	const n = 20000
	for _, tt := range renewalCases(1 / day) {
		t.Run(tt.name, func(t *testing.T) {
			q := newProc(tt.p, true)
			fw, bw := make([]float64, n), make([]float64, n)
			for i := range fw {
				s, _ := testStream(uint64(i) * 7919)
				last, next := q.start(s)
				fw[i], bw[i] = next, -last
			}
			for name, xs := range map[string][]float64{"forward": fw, "backward": bw} {
				if d, crit := processtest.KS(xs, tt.residual), processtest.Critical(ksLevel, n); d > crit {
					t.Errorf("%s: KS D = %.4f > %.4f", name, d, crit)
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
				last, next, _ := q.advance(s, c, tf, 0)
				fastB, fastF = append(fastB, tf-last), append(fastF, next-tf)
				// Brute force: walk ordinary intervals from c.
				s2, _ := testStream(uint64(i) + 1<<40)
				x := c
				for {
					_, nx, _ := q.advance(s2, x, x, 0)
					if nx > tf {
						slowB, slowF = append(slowB, tf-x), append(slowF, nx-tf)
						break
					}
					x = nx
				}
			}
			crit := processtest.Critical(ksLevel, n/2)
			if d := processtest.KS2(fastB, slowB); d > crit {
				t.Errorf("time since last change: KS D = %.4f > %.4f", d, crit)
			}
			if d := processtest.KS2(fastF, slowF); d > crit {
				t.Errorf("time to next change: KS D = %.4f > %.4f", d, crit)
			}
		})
	}
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
