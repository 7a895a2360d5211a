package sim

import (
	"context"
	"math"
	"testing"
)

const day = 86400.0

// run runs cfg under p and fails the test on error.
func run(t testing.TB, cfg Config, p Policy) *Result {
	t.Helper()
	r, err := Run(context.Background(), cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// poissonPages returns n Poisson pages of one rate, weight 1, with
// Last-Modified.
func poissonPages(n int, rate float64) []Page {
	ps := make([]Page, n)
	for i := range ps {
		ps[i] = Page{Process: PoissonProcess(rate), Weight: 1, LastModified: true}
	}
	return ps
}

// meanSE returns the sample mean of xs and its standard error s/√n: pages
// are independent, so the per-page averages are i.i.d. draws and the
// standard error of their mean is the Monte-Carlo error of the estimate.
func meanSE(xs []float64) (mean, se float64) {
	n := float64(len(xs))
	for _, x := range xs {
		mean += x
	}
	mean /= n
	v := 0.0
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(v / (n - 1) / n)
}

func perPage(r *Result, f func(PageResult) float64) []float64 {
	out := make([]float64, len(r.PerPage))
	for i, p := range r.PerPage {
		out[i] = f(p)
	}
	return out
}

// within reports whether got is within k standard errors of want; the
// standard error is floored at 1e-12 for exact (zero-variance) cases.
func within(got, want, se, k float64) bool {
	return math.Abs(got-want) <= k*math.Max(se, 1e-12)
}
