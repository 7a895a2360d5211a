package policy

import (
	"fmt"
	"math"
)

// Order is a synchronization order (dissertation §5.3, item 3).
type Order int

const (
	// FixedOrder visits the pages in the same order every cycle, so each
	// page has a fixed interval I = 1/f (Algorithm 5.4.1). It is the best
	// order on both metrics and the one every allocator assumes.
	FixedOrder Order = iota
	// RandomOrder visits a fresh random permutation every cycle, so a
	// page's interval is triangular on (0, 2I) (Algorithm 5.4.2, Lemma 5.1).
	RandomOrder
	// PurelyRandom visits a random page at every sync point, so a page's
	// interval is exponential with mean I (Algorithm 5.4.3).
	PurelyRandom
)

// String returns the order's name as the dissertation writes it.
func (o Order) String() string {
	switch o {
	case FixedOrder:
		return "fixed-order"
	case RandomOrder:
		return "random-order"
	case PurelyRandom:
		return "purely-random"
	}
	return fmt.Sprintf("Order(%d)", int(o))
}

// ExpectedFreshnessAt is E[F(e; t)] = e^{−λt}, the probability that a page of
// Poisson rate lambda synced at time 0 is still fresh at time t (§5.2).
func ExpectedFreshnessAt(lambda, t float64) float64 { return math.Exp(-lambda * t) }

// ExpectedAgeAt is E[A(e; t)] = t − (1 − e^{−λt})/λ, the expected age at time
// t of a page of Poisson rate lambda synced at time 0 (§5.2).
func ExpectedAgeAt(lambda, t float64) float64 {
	if lambda == 0 {
		return 0
	}
	return em2(lambda*t) / lambda
}

// Freshness is the time-averaged freshness F̄(λ, f) of a page whose changes
// are Poisson of rate lambda and which is synced at frequency f in order o
// (dissertation Table 5.2, with r = λ/f). A page that never changes is
// always fresh; one that changes and is never synced is never fresh.
func Freshness(o Order, lambda, f float64) float64 {
	switch {
	case lambda == 0 || math.IsInf(f, 1):
		return 1
	case f == 0:
		return 0
	}
	r := lambda / f
	switch o {
	case RandomOrder:
		// Table 5.2: (1/r)(1 − ((1 − e^{−r})/r)²), written with
		// d = 1 − (1 − e^{−r})/r so that small r keeps its digits.
		d := em2(r) / r
		return d * (2 - d) / r
	case PurelyRandom:
		// Table 5.2: 1/(1 + r).
		return 1 / (1 + r)
	}
	// Table 5.2, eq. 5.4: (1 − e^{−r})/r.
	return 1 - em2(r)/r
}

// Age is the time-averaged age Ā(λ, f) in seconds of a page whose changes
// are Poisson of rate lambda and which is synced at frequency f in order o
// (dissertation Table 5.2, with r = λ/f and I = 1/f). A page that changes and
// is never synced has infinite age.
func Age(o Order, lambda, f float64) float64 {
	switch {
	case lambda == 0 || math.IsInf(f, 1):
		return 0
	case f == 0:
		return math.Inf(1)
	}
	r := lambda / f
	switch o {
	case RandomOrder:
		// Table 5.2: I(1/3 + (1/2 − 1/r)² − ((1 − e^{−r})/r²)²). The
		// printed form loses every digit for small r (its terms are of
		// order 1/r² and cancel to r/4), so it is regrouped around the
		// renewal form of §3.4 (E[W²] = 7I²/6): with d as in Freshness,
		// Ā/I = (7r²/12 − 2·em3(r)/r − d²)/r².
		d := em2(r) / r
		return (7*r*r/12 - 2*em3(r)/r - d*d) / (r * r) / f
	case PurelyRandom:
		// Table 5.2: I·r/(1 + r).
		return r / (1 + r) / f
	}
	// Table 5.2, eq. 5.5: I(1/2 − 1/r + (1 − e^{−r})/r²) = I·em3(r)/r².
	return em3(r) / (r * r) / f
}

// em2 is e^{−r} − 1 + r = Σ_{n≥2} (−1)^n rⁿ/n!, summed from the series
// below r = 0.1, where the direct form would lose more than 1e-15.
func em2(r float64) float64 {
	if r > 1 {
		return math.Exp(-r) - 1 + r // exp is faster than expm1, and exact enough here
	}
	if r > 0.1 {
		return math.Expm1(-r) + r
	}
	term, sum := -r, 0.0
	for n := 2; n < 30; n++ {
		term *= -r / float64(n)
		sum += term
		if math.Abs(term) < 1e-17*math.Abs(sum) {
			break
		}
	}
	return sum
}

// em3 is 1 − r + r²/2 − e^{−r} = Σ_{n≥3} (−1)^{n+1} rⁿ/n!, accurate for small
// r where the direct form cancels.
func em3(r float64) float64 {
	if r > 0.5 {
		return r*r/2 - r - math.Expm1(-r)
	}
	term, sum := r*r/2, 0.0
	for n := 3; n < 30; n++ {
		term *= -r / float64(n)
		sum -= term
		if math.Abs(term) < 1e-17*math.Abs(sum) {
			break
		}
	}
	return sum
}
