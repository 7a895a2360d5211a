package change

import (
	"math"
	"testing"
)

const (
	hour = 3600.0
	day  = 86400.0
)

// regular returns the Stats of n visits every interval seconds, the first x
// of which saw a change.
func regular(n, x int, interval float64) *Stats {
	var s Stats
	for i := range n {
		s.Add(Observation{Interval: interval, Changed: i < x, SinceModified: -1}, float64(i+1)*interval)
	}
	return &s
}

// fromLists returns the Stats of visits with changed intervals tc and
// unchanged intervals tu, in that order.
func fromLists(tc, tu []float64) *Stats {
	var s Stats
	at := 0.0
	for _, t := range tc {
		at += t
		s.Add(Observation{Interval: t, Changed: true, SinceModified: -1}, at)
	}
	for _, t := range tu {
		at += t
		s.Add(Observation{Interval: t, Changed: false, SinceModified: -1}, at)
	}
	return &s
}

// exactMLE solves eq. 6.3 on the exact lists by plain bisection on log λ, an
// independent brute force for the binned Newton solver. It needs at least
// one interval in each list.
func exactMLE(tc, tu []float64) float64 {
	var u float64
	for _, t := range tu {
		u += t
	}
	lo, hi := math.Log(1e-15), math.Log(1e6)
	for range 200 {
		mid := 0.5 * (lo + hi)
		lambda := math.Exp(mid)
		var lhs float64
		for _, t := range tc {
			lhs += t / math.Expm1(lambda*t)
		}
		if lhs > u {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp(0.5 * (lo + hi))
}

// binomPMF returns C(n, k) p^k (1−p)^(n−k).
func binomPMF(n, k int, p float64) float64 {
	lc, _ := math.Lgamma(float64(n + 1))
	lk, _ := math.Lgamma(float64(k + 1))
	lnk, _ := math.Lgamma(float64(n - k + 1))
	if p == 0 {
		return b2f(k == 0)
	}
	if p == 1 {
		return b2f(k == n)
	}
	return math.Exp(lc - lk - lnk + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// rateTable returns est's estimate of r = λI for n visits at interval I = 1 s
// with x = 0..n changes: with regular visits the estimate depends on the
// history only through x.
func rateTable(est Estimator, n int) []float64 {
	rates := make([]float64, n+1)
	for x := range rates {
		rates[x] = est.Estimate(regular(n, x, 1)).Rate
	}
	return rates
}

// moments returns E[r̂] and V[r̂] when each of n = len(rates)−1 visits sees a
// change with probability 1 − e^(−r) (Lemma 6.1): the exact binomial sums of
// dissertation eqs. 6.1 and 6.2.
func moments(rates []float64, r float64) (mean, variance float64) {
	n := len(rates) - 1
	p := -math.Expm1(-r)
	var m2 float64
	for x, v := range rates {
		w := binomPMF(n, x, p)
		mean += w * v
		m2 += w * v * v
	}
	return mean, m2 - mean*mean
}

// bisect returns the root of f in [lo, hi], where f changes sign.
func bisect(f func(float64) float64, lo, hi float64) float64 {
	flo := f(lo)
	for range 200 {
		mid := 0.5 * (lo + hi)
		if fm := f(mid); (fm < 0) == (flo < 0) {
			lo, flo = mid, fm
		} else {
			hi = mid
		}
	}
	return 0.5 * (lo + hi)
}

// near fails t unless |got − want| ≤ tol.
func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %.6g, want %.6g ± %.2g", what, got, want, tol)
	}
}

// nearRel fails t unless |got/want − 1| ≤ tol.
func nearRel(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got/want-1) <= tol) {
		t.Errorf("%s = %.8g, want %.8g within %.2g relative", what, got, want, tol)
	}
}
