package policy

import "math"

// This file holds the per-page inner solves of the optimal allocations:
// the inverses of g(r) = 1 − (1 + r)e^{−r} (freshness) and of
// h(r) = r²/2 − g(r) (age), where r = λ/f.

// hAge is h(r) = r²/2 − 1 + (1 + r)e^{−r}, the scaled marginal age of a
// visit: ∂Ā/∂f = −h(λ/f)/λ² (spec §4.4, derived from the printed ∂Ā/∂f). It
// rises from 0 to ∞ and is convex. Below r = 0.1 it is summed from its
// series Σ_{n≥3} (−1)^{n+1}(n−1)rⁿ/n!, whose terms the direct form would
// cancel; up to r = 1 it is r²/2 + r(e^{−r} − 1) + em2(r), whose terms are
// of order r² against h ≈ r³/3, losing under 1e-14.
func hAge(r float64) float64 {
	switch {
	case r >= 1:
		return r*r/2 - 1 + (1+r)*math.Exp(-r)
	case r >= 0.1:
		return r*r/2 + r*math.Expm1(-r) + em2(r)
	}
	// term_n = (−1)^{n+1} rⁿ/n!, starting at n = 3.
	term, sum := r*r*r/6, 0.0
	for n := 3; n < 40; n++ {
		c := float64(n-1) * term
		sum += c
		if math.Abs(c) < 1e-17*sum {
			break
		}
		term *= -r / float64(n+1)
	}
	return sum
}

// rMinusLog1p is r − ln(1 + r), summed from its series Σ_{n≥2} (−1)^n rⁿ/n
// for small r where the direct form cancels. Above r = 1/2 the direct form
// with ln (faster than log1p, and 1 + r rounds harmlessly there) loses less
// than 1e-15 relative.
func rMinusLog1p(r float64) float64 {
	switch {
	case r > 0.5:
		return r - math.Log(1+r)
	case r > 0.1:
		return r - math.Log1p(r)
	}
	p, sum := -r, 0.0 // p = (−r)ⁿ
	for n := 2; n < 30; n++ {
		p *= -r
		t := p / float64(n)
		sum += t
		if math.Abs(t) < 1e-17*sum {
			break
		}
	}
	return sum
}

// invRMinusLog1p solves r − ln(1 + r) = q for r ≥ 0. With s = 1 + r this is
// s − ln s = 1 + q, whose root s ≥ 1 is −W₋₁(−e^{−1−q}), the lower branch of
// Lambert's W; so this is W₋₁ parameterised by q, which keeps full precision
// near the branch point. The start is the branch-point series
// r = t + t²/3 + t³/36 − t⁴/270 + t⁵/4320 (t = √(2q)) for small q and the
// asymptote s = L + ln(L + ln L) (L = 1 + q) for large q, both within 3 %;
// Halley's iteration then converges cubically, so once a step is below
// 1e-6·r the next error is below 1e-17 and the loop stops after two steps.
func invRMinusLog1p(q float64) float64 {
	if q <= 0 {
		return 0
	}
	var r float64
	if q < 1 {
		t := math.Sqrt(2 * q)
		r = t * (1 + t*(1.0/3+t*(1.0/36+t*(-1.0/270+t/4320))))
	} else {
		l := 1 + q
		r = l + math.Log(l+math.Log(l)) - 1
	}
	for range 20 {
		phi := rMinusLog1p(r) - q
		d1 := r / (1 + r)
		d2 := 1 / ((1 + r) * (1 + r))
		dx := phi / d1
		dx /= 1 - dx*d2/(2*d1)
		r -= dx
		if math.Abs(dx) <= 1e-6*r {
			break
		}
	}
	return r
}

// lambertWm1 is W₋₁(x) for x in [−1/e, 0), the lower real branch of
// Lambert's W (w·e^w = x, w ≤ −1). It exists to state and test the closed
// form behind invG.
func lambertWm1(x float64) float64 {
	return -1 - invRMinusLog1p(-1-math.Log(-x))
}

// invG is the inverse of g on [0, 1): the r with 1 − (1 + r)e^{−r} = c.
// Closed form: (1 + r)e^{−r} = 1 − c gives r = −1 − W₋₁(−(1 − c)/e), which
// invRMinusLog1p evaluates with q = −ln(1 − c) so that small c loses nothing.
func invG(c float64) float64 {
	if c >= 0.5 {
		return invRMinusLog1p(-math.Log(1 - c)) // 1 − c is exact here
	}
	return invRMinusLog1p(-math.Log1p(-c))
}

// invH is the inverse of h on [0, ∞): the r with h(r) = y, by Halley's
// iteration (h has no Lambert-W form). h(r) ≤ r³/3 gives the start
// u(1 + u/8), u = (3y)^{1/3}, from the series, for small y; h(r) ≥ r²/2 − 1
// gives √(2(y + 1)) for large y.
func invH(y float64) float64 {
	if y <= 0 {
		return 0
	}
	var r float64
	if u := math.Cbrt(3 * y); u < 1.5 {
		r = u * (1 + u/8)
	} else {
		r = math.Sqrt(2 * (y + 1))
	}
	for range 50 {
		em1 := oneMinusExp(r)
		var done bool
		if r, done = halley(r, hAge(r)-y, r*em1, em1+r*(1-em1)); done {
			break
		}
	}
	return r
}

// halley is one step of Halley's iteration for φ(r) = 0 from r > 0, given
// φ(r), φ′(r) and φ″(r), kept above 0 (halving r instead); done says the
// step was under 1e-6·r, after which, the iteration being cubic, the
// error is below 1e-17.
func halley(r, phi, d1, d2 float64) (next float64, done bool) {
	dx := phi / d1
	dx /= 1 - dx*d2/(2*d1)
	if r-dx <= 0 {
		dx = r / 2
	}
	r -= dx
	return r, math.Abs(dx) <= 1e-6*r
}

// oneMinusExp is 1 − e^{−r}, with the slower expm1 only where it matters.
func oneMinusExp(r float64) float64 {
	if r >= 1 {
		return 1 - math.Exp(-r)
	}
	return -math.Expm1(-r)
}
