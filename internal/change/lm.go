package change

import "math"

// LM is the dissertation's initial estimator for pages whose server sends
// Last-Modified (§6.5, Fig. 6.11): X/T, where a visit counts as a change when
// the page was modified since the previous visit (T_i < I_i) and T adds the
// time since modification for those and the whole interval for the others.
// Counting the time back to the last change is what makes it better than
// X/ΣI, but it is still biased high when changes are frequent: for n visits
// E[r̂]/r tends to n/(n−1) as r → ∞ and n·log(n/(n−1)) as r → 0
// (Theorem 6.1), about 2 and 1.39 for n = 2. LMReduced corrects that.
// It has no interval.
type LM struct{}

// Name returns "lm".
func (LM) Name() string { return "lm" }

// Estimate returns X/T of Fig. 6.11 over the observations with a usable
// Last-Modified; OK is false until one has been seen and T > 0.
func (LM) Estimate(s *Stats) Estimate {
	if !(s.lmN > 0 && s.lmT > 0) {
		return notOK()
	}
	return point(s.lmX / s.lmT)
}

// LMReduced is the dissertation's bias-reduced Last-Modified estimator
// (§6.5, Fig. 6.14): X'/T with X' = ReducedChanges(X, N). It is practically
// unbiased for every r even with two visits (within 2 %, Fig. 6.13) and its
// variance falls as visits become less frequent, so with a trustworthy
// Last-Modified it is the estimator to use. It has no interval.
type LMReduced struct{}

// Name returns "lm-reduced".
func (LMReduced) Name() string { return "lm-reduced" }

// Estimate returns X'/T; OK is false until a Last-Modified has been seen
// and T > 0.
func (LMReduced) Estimate(s *Stats) Estimate {
	if !(s.lmN > 0 && s.lmT > 0) {
		return notOK()
	}
	return point(ReducedChanges(s.lmX, s.lmN) / s.lmT)
}

// ReducedChanges returns X' of dissertation Fig. 6.14 for x changes in n
// visits:
//
//	X' = (X − 1) − X / (N·log(1 − X/N))
//
// which divides out the bias of Theorem 6.1 at both ends: X' = 1/(N·log(N/(N−1)))
// at X = 1 and N − 1 at X = N. At the singular points it takes its limits
// (footnote 4): 0 at X = 0 and N − 1 at X = N (approached only
// logarithmically: X' − (N−1) ≈ −1/log(1 − X/N)). The counts may be
// fractional (decay); X' is clamped at 0, which only matters for N < 1.
func ReducedChanges(x, n float64) float64 {
	switch {
	case !(n > 0 && x > 0):
		return 0
	case x >= n:
		return math.Max(0, n-1)
	}
	// With y = X/N and L = −log(1 − y)/y the formula is X − (L − 1)/L. For
	// small y, L − 1 = y/2 + y²/3 + y³/4 + … is summed directly, because
	// (X − 1) + 1 would cancel away the digits of a small X.
	y := x / n
	var l1 float64 // L − 1
	if y < 1e-3 {
		l1 = y * (1.0/2 + y*(1.0/3+y*(1.0/4+y*(1.0/5+y/6))))
	} else {
		l1 = -math.Log1p(-y)/y - 1
	}
	return math.Max(0, x-l1/(1+l1))
}
