package schedule

import "math"

// root is the state of a search for the x = ln μ at which a decreasing sum
// S(x) meets a target: the multiplier searches of the capacitated
// allocation, run as a state machine so that thousands of them (one per
// saturated host) can share each pass over the pages. Like policy's
// solveMultiplier it takes Newton steps on ln S against x (nearly linear:
// S ∝ μ^{−1/2} or ν^{−1/3} in the limits) and, once the root is
// bracketed, Illinois regula falsi steps or bisection whenever Newton
// leaves the bracket or stops halving it.
//
// It stops when S is within rootTol of the target, or when the bracket is
// narrower than rootWidth: near the root the freshness sum is a fine
// staircase (a page about to be abandoned drops from about λ/40 visits to
// none within one ulp of μ), so the caller then takes the convex
// combination of the frequencies at the bracket's two ends that meets the
// target. Both ends are KKT points for μ to within rootWidth.
type root struct {
	target   float64
	x        float64    // the next point to evaluate
	lo, hi   float64    // S(lo) > target ≥ S(hi)
	sLo, sHi float64    // S at the ends, NaN while that end is unknown
	max      float64    // S(x) ≤ target is certain for x ≥ max (may be +Inf)
	side     int        // which end the last steps moved (Illinois)
	recent   [2]float64 // the last two step lengths
	steps    int
	done     bool
}

const (
	rootTol   = 1e-10 // relative; policy.SumTolerance is 1e-9
	rootWidth = 1e-9  // in ln μ
	rootSteps = 300
)

// newRoot starts a search for S(x) = target at x0 (≤ max).
func newRoot(target, x0, max float64) root {
	return root{target: target, x: x0, lo: math.Inf(-1), hi: math.Inf(1),
		sLo: math.NaN(), sHi: math.NaN(), max: max, recent: [2]float64{math.Inf(1), math.Inf(1)}}
}

// knownLo records a point x already known to have S(x) = s > target and
// slope ds, and aims the search's first step from it.
func (r *root) knownLo(x, s, ds float64) {
	r.x = x
	r.update(s, ds)
}

// bracketed reports whether both ends are known.
func (r *root) bracketed() bool { return !math.IsNaN(r.sLo) && !math.IsNaN(r.sHi) }

// update records S(r.x) = s and dS/dx = ds and moves r.x to the next point
// to evaluate, or sets r.done.
func (r *root) update(s, ds float64) {
	x := r.x
	r.steps++
	if math.Abs(s-r.target) <= rootTol*r.target {
		r.lo, r.hi, r.sLo, r.sHi, r.done = x, x, s, s, true
		return
	}
	if s > r.target {
		r.lo, r.sLo = x, s
		r.side = min(r.side, 0) - 1
	} else {
		r.hi, r.sHi = x, s
		r.side = max(r.side, 0) + 1
	}
	if r.bracketed() && r.hi-r.lo <= rootWidth || r.steps >= rootSteps {
		r.done = true
		return
	}
	next := math.NaN()
	if s > 0 && ds < 0 {
		next = x - math.Log(s/r.target)*s/ds
	}
	switch {
	case r.bracketed():
		// Newton while it stays inside and its steps at least halve every
		// two steps (as in Brent's method); Illinois otherwise.
		w := r.hi - r.lo
		if !(next > r.lo && next < r.hi) || !(math.Abs(next-x) <= r.recent[0]/2) {
			next = math.NaN()
			if r.sHi > 0 {
				fl, fh := math.Log(r.sLo/r.target), math.Log(r.sHi/r.target)
				if r.side <= -2 {
					fh /= 2
				} else if r.side >= 2 {
					fl /= 2
				}
				next = r.lo + w*fl/(fl-fh)
			}
			// A staircase sum (see above) can keep regula falsi on
			// one side: bisect once the same end has moved three times.
			if !(next > r.lo && next < r.hi) || r.side <= -3 || r.side >= 3 {
				next = r.lo + w/2
			}
		}
		r.recent[0], r.recent[1] = r.recent[1], math.Abs(next-x)
	case s > r.target: // only lo known: go up, but not past max
		if !(next > x) {
			next = x + 2*math.Ln2
		}
		next = min(next, x+50, r.max)
		if next <= x { // max was wrong (rounding): look beyond it
			next = x + 2*math.Ln2
		}
	default: // only hi known: go down
		if !(next < x) {
			next = x - 2*math.Ln2*float64(r.steps)
		}
		next = max(next, x-50)
	}
	r.x = next
}
