package process

import "math"

// The draws below invert a distribution function at a uniform u in (0, 1].
// Times come out in the unit of the rate's reciprocal (seconds for rates
// per second); the synthetic web scales them to nanoseconds itself.

// Exponential returns −log(u)/rate, an exponential time of the given rate
// (dissertation Lemma 4.1: the time to the next change of a Poisson page,
// and by memorylessness the time back to the last one). A rate ≤ 0 never
// changes: +Inf.
func Exponential(u, rate float64) float64 {
	if rate <= 0 {
		return math.Inf(1)
	}
	return -math.Log(u) / rate
}

// LomaxScale returns β = (α−1)/λ, the scale that gives Lomax intervals of
// shape alpha the mean 1/rate (paper 002 §2.3; spec seed-ford-wolf-ntoulas
// §B.2: mean = β/(α−1)).
func LomaxScale(rate, alpha float64) float64 { return (alpha - 1) / rate }

// Lomax returns β(u^{−1/α} − 1), a time with the tail (β/(β+t))^α. With
// shape α it is a Pareto page's interval between changes; with shape α−1
// and the same β it is the equilibrium residual, the time from an
// arbitrary instant to the next change of a stationary Pareto page
// (paper 002 §B.1: the forward recurrence time has density λḠ).
func Lomax(u, alpha, beta float64) float64 { return beta * (math.Pow(u, -1/alpha) - 1) }

// LogMiss returns log(1−k), the log-probability that a quasi-deterministic
// page's potential update does not happen, or 0 when k = 1 (every update
// happens), the form SkippedSlots and SlotsToChange take.
func LogMiss(k float64) float64 {
	if k >= 1 {
		return 0
	}
	return math.Log1p(-k)
}

// SkippedSlots returns ⌊log u / log(1−k)⌋, the number of potential updates
// that do not happen before one that does: Geometric(k) on {0, 1, ...}.
// logMiss is LogMiss(k).
func SkippedSlots(u, logMiss float64) float64 {
	if logMiss == 0 {
		return 0
	}
	return math.Floor(math.Log(u) / logMiss)
}

// SlotsToChange returns ⌈log u / log(1−k)⌉ (at least 1), the number of
// potential updates up to and including the first that happens:
// Geometric(k) on {1, 2, ...}. logMiss is LogMiss(k). It is the same law
// as 1 + SkippedSlots, drawn by the other rounding of the same quotient.
func SlotsToChange(u, logMiss float64) float64 {
	if logMiss == 0 {
		return 1
	}
	return max(1, math.Ceil(math.Log(u)/logMiss))
}
