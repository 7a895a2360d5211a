// Package processtest checks samples of change times against the laws of
// package process, for the tests of the simulators that draw them: the
// laws' distribution functions in closed form and Kolmogorov–Smirnov
// statistics with their critical values.
package processtest

import (
	"math"
	"slices"
)

// ExponentialCDF is 1 − e^{−λx}, the law of a Poisson page's intervals
// (dissertation Lemma 4.1).
func ExponentialCDF(rate float64) func(float64) float64 {
	return func(x float64) float64 { return 1 - math.Exp(-rate*x) }
}

// LomaxCDF is 1 − (β/(β+x))^α, the law of a Pareto page's intervals with
// shape α, and with shape α−1 of its equilibrium residual (paper 002 §2.3
// and §B.1).
func LomaxCDF(alpha, beta float64) func(float64) float64 {
	return func(x float64) float64 { return 1 - math.Pow(beta/(beta+x), alpha) }
}

// KS returns the one-sample Kolmogorov–Smirnov statistic D of samples
// against the continuous distribution function cdf: the largest gap
// between cdf and the empirical distribution function.
func KS(samples []float64, cdf func(float64) float64) float64 {
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

// KS2 returns the two-sample Kolmogorov–Smirnov statistic of a and b: the
// largest gap between their empirical distribution functions, evaluated
// after each distinct value, so that atoms tied in both samples (lattice
// times) open no false gaps.
func KS2(a, b []float64) float64 {
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

// Critical returns the asymptotic critical value of D at significance
// level alpha for n samples, c(α)/√n with c(α) = √(−ln(α/2)/2) (Smirnov's
// limit law; 1.628 at α = 0.01, 1.949 at α = 0.001). For two samples of
// sizes n and m pass n·m/(n+m). A correct sampler exceeds it with
// probability alpha; with fixed seeds a test is deterministic.
func Critical(alpha, n float64) float64 { return math.Sqrt(-math.Log(alpha/2)/2) / math.Sqrt(n) }
