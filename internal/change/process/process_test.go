package process

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

func TestKindNames(t *testing.T) {
	for k := Poisson; k <= QuasiDeterministic; k++ {
		got, err := ParseKind(k.String())
		if err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", k.String(), got, err)
		}
	}
	if k, err := ParseKind("Quasi-Deterministic"); err != nil || k != QuasiDeterministic {
		t.Errorf("ParseKind is case-sensitive: %v, %v", k, err)
	}
	if _, err := ParseKind("weibull"); err == nil {
		t.Error("ParseKind(weibull) succeeded")
	}
	if got := Kind(7).String(); got != "kind(7)" {
		t.Errorf("Kind(7) = %q", got)
	}
}

// uniforms returns n uniforms in (0, 1] as the simulators draw them, plus
// the end points' neighbourhoods.
func uniforms(n int) []float64 {
	us := []float64{1, math.Nextafter(1, 0), 0.5, 0x1p-53}
	for i := range n {
		us = append(us, splitmix.Open(splitmix.Hash2(12345, uint64(i))))
	}
	return us
}

// Each continuous draw inverts its survival function: the survival at the
// drawn time is u again (to rounding), so with u uniform the time has the
// law. Survival functions: e^{−λt} (dissertation Lemma 4.1) and
// (β/(β+t))^α (paper 002 §2.3), with β = (α−1)/λ giving the mean 1/λ.
func TestContinuousDrawsInvertTheirLaws(t *testing.T) {
	const rate, alpha = 1.0 / 3600, 1.5
	beta := LomaxScale(rate, alpha)
	if mean := beta / (alpha - 1); math.Abs(mean*rate-1) > 1e-15 {
		t.Fatalf("Lomax mean β/(α−1) = %g, want 1/λ = %g", mean, 1/rate)
	}
	tests := []struct {
		name     string
		draw     func(u float64) float64
		survival func(x float64) float64
	}{
		{"exponential", func(u float64) float64 { return Exponential(u, rate) }, func(x float64) float64 { return math.Exp(-rate * x) }},
		{"lomax", func(u float64) float64 { return Lomax(u, alpha, beta) }, func(x float64) float64 { return math.Pow(beta/(beta+x), alpha) }},
		{"lomax residual", func(u float64) float64 { return Lomax(u, alpha-1, beta) }, func(x float64) float64 { return math.Pow(beta/(beta+x), alpha-1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, u := range uniforms(5000) {
				x := tt.draw(u)
				// The draw's relative error is a few ulps of log u; the
				// survival's is then a few ulps of u for u not near 1.
				if s := tt.survival(x); !(x >= 0) || math.Abs(s-u) > 1e-12*max(u, 1e-3) {
					t.Fatalf("u = %g: t = %g has survival %g", u, x, s)
				}
			}
		})
	}
	if x := Exponential(0.5, 0); !math.IsInf(x, 1) {
		t.Errorf("rate 0: %g, want +Inf", x)
	}
}

// The geometric draws against brute force: count the potential updates
// that do not happen, one by one. Failures n before the first success have
// P(N ≥ n) = (1−k)^n, so inversion picks the n with
// (1−k)^{n+1} < u ≤ (1−k)^n; trials are one more, and u on a boundary
// (1−k)^n belongs, under ⌈·⌉, to the lower count.
func TestGeometricDrawsMatchBruteForce(t *testing.T) {
	for _, k := range []float64{0.01, 1.0 / 3, 0.5, 0.9, 1} {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			lm := LogMiss(k)
			for _, u := range uniforms(3000) {
				n := 0.0
				for k < 1 && u <= math.Pow(1-k, n+1) {
					n++
				}
				// Near a boundary the quotient log u / log(1−k) is a
				// whole number up to rounding and either count is right.
				q := math.Log(u) / lm
				onBoundary := k < 1 && math.Abs(q-math.Round(q)) < 1e-9
				if got := SkippedSlots(u, lm); got != n && !onBoundary {
					t.Fatalf("u = %g: SkippedSlots = %g, brute force %g", u, got, n)
				}
				if got := SlotsToChange(u, lm); got != n+1 && !onBoundary {
					t.Fatalf("u = %g: SlotsToChange = %g, brute force %g", u, got, n+1)
				}
			}
		})
	}
	if LogMiss(1) != 0 || LogMiss(0.5) != math.Log(0.5) {
		t.Errorf("LogMiss(1) = %g, LogMiss(0.5) = %g", LogMiss(1), LogMiss(0.5))
	}
}

// The calendar periods are simweb's (DESIGN.md §5; paper 002 §B.7:
// periodic pages): the longest of hour, day, week, 30 and 365 days not
// above the mean, else the mean; k = period/mean. The float64-seconds and
// the nanosecond forms agree exactly.
func TestCalendar(t *testing.T) {
	const day = 86400.0
	tests := []struct {
		mean, period, k float64 // seconds
	}{
		{1800, 1800, 1},
		{3600, 3600, 1},
		{2 * 3600, 3600, 0.5},
		{3 * day, day, 1.0 / 3},
		{10 * day, 7 * day, 0.7},
		{45 * day, 30 * day, 30.0 / 45},
		{730 * day, 365 * day, 0.5},
	}
	for _, tt := range tests {
		p, k := Calendar(tt.mean, 1)
		if p != tt.period || math.Abs(k-tt.k) > 1e-15 {
			t.Errorf("mean %gs: period %g k %g, want %g %g", tt.mean, p, k, tt.period, tt.k)
		}
		pd, kd := Calendar(time.Duration(tt.mean*1e9), time.Second)
		if pd.Seconds() != tt.period || kd != k {
			t.Errorf("mean %gs in ns: period %v k %g, float form %g %g", tt.mean, pd, kd, p, k)
		}
	}
}

// The slot functions against brute force: walk the grid phase + j·period.
func TestSlotAtOrBefore(t *testing.T) {
	const period, phase = 7, 3
	for tm := int64(-30); tm <= 30; tm++ {
		want := int64(phase - 10*period)
		for want+period <= tm {
			want += period
		}
		if got := SlotAtOrBeforeNs(tm, period, phase); got != want {
			t.Errorf("SlotAtOrBeforeNs(%d) = %d, want %d", tm, got, want)
		}
		if got := SlotAtOrBefore(float64(tm), period, phase); got != float64(want) {
			t.Errorf("SlotAtOrBefore(%d) = %g, want %d", tm, got, want)
		}
	}
}
