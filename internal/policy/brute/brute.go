// Package brute holds the direct numerical methods the allocators are
// checked against: golden-section minimisation of a convex function, its
// nesting over a budget simplex of two or three frequencies, and Simpson's
// rule. The tests of policy and schedule and the reproduction rows of
// package reproduce/frontier use them; no allocator does.
package brute

// Golden returns where a convex fn is least on [lo, hi], by 200 golden
// sections (the bracket shrinks to 0.618^200 of its width).
func Golden(fn func(float64) float64, lo, hi float64) float64 {
	const g = 0.6180339887498949
	for range 200 {
		c, d := hi-g*(hi-lo), lo+g*(hi-lo)
		if fn(c) < fn(d) {
			hi = d
		} else {
			lo = c
		}
	}
	return (lo + hi) / 2
}

// Simplex minimises a convex cost of n = 2 or 3 frequencies over the
// simplex f ≥ 0, Σ f = budget by nested golden sections, and returns the
// least cost and where it lies.
func Simplex(n int, budget float64, cost func(f []float64) float64) (float64, []float64) {
	f := make([]float64, n)
	at := func(f0 float64) float64 {
		f[0] = f0
		if n == 3 {
			f[1] = Golden(func(f1 float64) float64 { return cost([]float64{f0, f1, max(budget-f0-f1, 0)}) }, 0, budget-f0)
			f[2] = max(budget-f0-f[1], 0)
		} else {
			f[1] = budget - f0
		}
		return cost(f)
	}
	best := at(Golden(at, 0, budget))
	return best, f
}

// Simpson integrates fn over [a, b] by Simpson's rule on n (even) steps.
func Simpson(fn func(float64) float64, a, b float64, n int) float64 {
	h := (b - a) / float64(n)
	s := fn(a) + fn(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * fn(a+float64(i)*h)
	}
	return s * h / 3
}
