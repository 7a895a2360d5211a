package change

import "math"

// regIncBeta returns the regularized incomplete beta function I_x(a, b), the
// CDF of a Beta(a, b) variable at x, for a, b > 0 (real, so that decayed
// counts work). It evaluates the continued fraction of Numerical Recipes
// §6.4 by the modified Lentz method, on the side of the symmetry
// I_x(a, b) = 1 − I_{1−x}(b, a) where it converges fast.
func regIncBeta(a, b, x float64) float64 {
	return regIncBetaNorm(a, b, x, logBetaNorm(a, b))
}

// logBetaNorm returns −log B(a, b) = log Γ(a+b) − log Γ(a) − log Γ(b).
func logBetaNorm(a, b float64) float64 {
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	return lab - la - lb
}

// regIncBetaNorm is regIncBeta with −log B(a, b) given, so that a quantile
// search computes it once.
func regIncBetaNorm(a, b, x, lnorm float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	front := math.Exp(lnorm + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

// betaCF evaluates the continued fraction for I_x(a, b) (Numerical Recipes
// eq. 6.4.5) by the modified Lentz method.
func betaCF(a, b, x float64) float64 {
	const eps = 1e-14
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < lentzTiny {
		d = lentzTiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 500; m++ {
		fm := float64(m)
		// Even step: d_{2m} = m(b−m)x / ((a+2m−1)(a+2m)).
		var del float64
		c, d, del = lentzStep(c, d, fm*(b-fm)*x/((a+2*fm-1)*(a+2*fm)))
		h *= del
		// Odd step: d_{2m+1} = −(a+m)(a+b+m)x / ((a+2m)(a+2m+1)).
		c, d, del = lentzStep(c, d, -(a+fm)*(a+b+fm)*x/((a+2*fm)*(a+2*fm+1)))
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

// lentzTiny stands in for a zero denominator in the Lentz recurrences.
const lentzTiny = 1e-300

// lentzStep advances the modified Lentz recurrences C and D (Numerical
// Recipes §5.2) by a term of numerator num and denominator 1, and returns
// them with the factor C·D that the term multiplies the fraction by.
func lentzStep(c, d, num float64) (c2, d2, del float64) {
	d = 1 + num*d
	if math.Abs(d) < lentzTiny {
		d = lentzTiny
	}
	c = 1 + num/c
	if math.Abs(c) < lentzTiny {
		c = lentzTiny
	}
	d = 1 / d
	return c, d, d * c
}

// invRegIncBeta returns the x in [0, 1] with I_x(a, b) = p: the p-quantile of
// a Beta(a, b) variable. It runs Newton's method (the derivative is the Beta
// density) kept inside a bisection bracket, so it always converges.
func invRegIncBeta(a, b, p float64) float64 {
	switch {
	case p <= 0:
		return 0
	case p >= 1:
		return 1
	}
	lnorm := logBetaNorm(a, b)
	lo, hi := 0.0, 1.0
	// Start from the normal approximation to the Beta distribution, pulled
	// inside (0, 1); Newton then needs a handful of steps.
	mean := a / (a + b)
	sd := math.Sqrt(a * b / ((a + b) * (a + b) * (a + b + 1)))
	x := mean + math.Sqrt2*math.Erfinv(2*p-1)*sd
	x = math.Min(math.Max(x, mean*1e-3), 1-(1-mean)*1e-3)
	for range 200 {
		f := regIncBetaNorm(a, b, x, lnorm) - p
		if f < 0 {
			lo = x
		} else {
			hi = x
		}
		pdf := math.Exp(lnorm + (a-1)*math.Log(x) + (b-1)*math.Log1p(-x))
		next := x - f/pdf
		if !(next > lo && next < hi) {
			next = 0.5 * (lo + hi)
		}
		if math.Abs(next-x) <= 1e-11*x || hi-lo <= 1e-15 {
			return next
		}
		x = next
	}
	return x
}
