package schedule

import (
	"math"
	"sync"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// This file holds fast versions of the optimal frequency curves of
// dissertation §5.5.4 (Fig. 5.14): a page of rate λ and weight w gets
// f = λ·φ(μλ/w) visits per second for freshness, with φ(c) = 1/g⁻¹(c), and
// f = λ·ψ(νλ²/w) for age, with ψ(y) = 1/h⁻¹(y) (g and h as in
// policy.OptimalFreshness and policy.OptimalAge). policy evaluates them by
// Halley's iteration, about 150 ns a page on the reference machine; a
// capacitated allocation of 10⁷ pages evaluates them ten to twenty times a
// page, so here they are piecewise cubics on bins that split every octave
// of the argument into 64, found from the float's bits without a logarithm
// (a tenth of the time), fitted once at Chebyshev nodes to policy's exact
// curves and to the closed forms of their derivatives. The fit is within
// 3e-10 relative (TestCurveAccuracy); arguments outside the tables take
// the exact (slow) path or a series.

const (
	binBits  = 6 // 2^binBits bins per octave
	binShift = 52 - binBits
	binsPer  = 1 << binBits
)

// cubicTable is a function of x > 0 and its derivative in ln x, tabulated
// as a pair of cubics per bin of x from 2^minExp up to
// 2^(minExp + octaves).
type cubicTable struct {
	first uint64 // Float64bits(2^minExp) >> binShift
	// coef holds per bin the cubic in u ∈ [0, 1) of the function, then
	// that of its derivative (lowest power first): 64 bytes, one cache
	// line.
	coef [][8]float64
}

// newCubicTable fits fn, which returns the function and its derivative in
// ln x, over octaves octaves from 2^minExp. In the bin that starts at
// x₀ = 2^e(1 + j/64), both are interpolated in u, x = x₀(1 + u/(64 + j)),
// at the four Chebyshev nodes of [0, 1].
func newCubicTable(minExp, octaves int, fn func(x float64) (v, dv float64)) *cubicTable {
	t := &cubicTable{
		first: math.Float64bits(math.Ldexp(1, minExp)) >> binShift,
		coef:  make([][8]float64, octaves*binsPer),
	}
	var nodes [4]float64
	for m := range nodes {
		nodes[m] = (1 - math.Cos(float64(2*m+1)*math.Pi/8)) / 2
	}
	for k := range t.coef {
		e, j := minExp+k/binsPer, k%binsPer
		var a, da [4][5]float64 // Vandermonde rows | value
		for m, u := range nodes {
			v, dv := fn(math.Ldexp(1+(float64(j)+u)/binsPer, e))
			a[m] = [5]float64{1, u, u * u, u * u * u, v}
			da[m] = [5]float64{1, u, u * u, u * u * u, dv}
		}
		c, dc := solve4(a), solve4(da)
		t.coef[k] = [8]float64{c[0], c[1], c[2], c[3], dc[0], dc[1], dc[2], dc[3]}
	}
	return t
}

// solve4 solves a 4×4 linear system given as augmented rows, by Gaussian
// elimination with partial pivoting.
func solve4(a [4][5]float64) [4]float64 {
	for col := range 4 {
		p := col
		for r := col + 1; r < 4; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		a[col], a[p] = a[p], a[col]
		for r := col + 1; r < 4; r++ {
			f := a[r][col] / a[col][col]
			for c := col; c < 5; c++ {
				a[r][c] -= f * a[col][c]
			}
		}
	}
	var x [4]float64
	for r := 3; r >= 0; r-- {
		s := a[r][4]
		for c := r + 1; c < 4; c++ {
			s -= a[r][c] * x[c]
		}
		x[r] = s / a[r][r]
	}
	return x
}

// at returns the tabulated value at x and its derivative in ln x; ok is
// false when x lies outside the table.
func (t *cubicTable) at(x float64) (v, dv float64, ok bool) {
	k, u := t.bin(x)
	return lookup(t.coef, k, u)
}

// lookup evaluates bin k of coef at u, or reports that k is outside it.
func lookup(coef [][8]float64, k uint64, u float64) (v, dv float64, ok bool) {
	if k >= uint64(len(coef)) {
		return 0, 0, false
	}
	v, dv = cubic(&coef[k], u)
	return v, dv, true
}

// bin returns the bin of x, found from the float's bits, and the position
// u ∈ [0, 1) of x in it; the bin is len(coef) or more when x lies outside
// the table. It is small enough to be inlined into the passes over the
// pages, as cubic is.
func (t *cubicTable) bin(x float64) (k uint64, u float64) {
	b := math.Float64bits(x)
	return b>>binShift - t.first, binOffset(b)
}

// binOffset is the position u ∈ [0, 1) in its bin of the float whose bits
// are b: the mantissa bits below the bin's.
func binOffset(b uint64) float64 { return float64(int64(b&(1<<binShift-1))) * (1.0 / (1 << binShift)) }

// cubic evaluates a bin's pair of cubics at u: the value and its
// derivative.
func cubic(c *[8]float64, u float64) (v, dv float64) {
	return c[0] + u*(c[1]+u*(c[2]+u*c[3])), c[4] + u*(c[5]+u*(c[6]+u*c[7]))
}

// curveTables are the fitted curves, built on first use (about 20 ms).
type curveTables struct {
	fresh freshTable
	age   *cubicTable // ψ(y) for y ∈ [2^−60, 2^60)
	harm  *cubicTable // χ(c) for c ∈ [2^−60, 2^4)
}

// freshTable is φ in one array of bins: first the bins of
// c ∈ [2^−40, 1/2), then those of d = 1 − c ∈ [2^−46, 1/2] for c near 1,
// where φ falls like 1/ln(1/d) and bins of c would be too coarse, then one
// bin of zeros for c ≥ 1, the abandoned pages. All hold dφ/d ln c as
// their derivative.
type freshTable struct {
	cFirst, dFirst uint64 // Float64bits of the first c and d >> binShift
	nc, nd, zero   uint64 // the bins of c and of d, the zero bin
	coef           [][8]float64
}

var tables = sync.OnceValue(func() *curveTables {
	// dφ/d ln c = −(1/r²)·c·dr/dc with dr/dc = (1 + r)/(r(1 − c)) (from
	// g′(r) = r·e^{−r}), at r = 1/φ.
	fresh := newCubicTable(-40, 39, func(c float64) (float64, float64) {
		phi := policy.FreshnessFrequency(1, 1, c)
		r := 1 / phi
		return phi, -(1 + r) * c / (r * r * r * (1 - c))
	})
	near := newCubicTable(-46, 46, func(d float64) (float64, float64) {
		r := rOfQ(-math.Log(d))
		return 1 / r, -(1 + r) * (1 - d) / (r * r * r * d)
	})
	// dψ/d ln y = −(1/r²)·y/h′(r) with h′(r) = r(1 − e^{−r}), at r = 1/ψ.
	age := newCubicTable(-60, 120, func(y float64) (float64, float64) {
		psi := policy.AgeFrequency(1, 1, y)
		r := 1 / psi
		return psi, -y / (r * r * r * -math.Expm1(-r))
	})
	// dχ/d ln c = −(1/r²)·c/em2′(r) with em2′(r) = 1 − e^{−r}, at r = 1/χ.
	harm := newCubicTable(-60, 64, func(c float64) (float64, float64) {
		chi := policy.HarmonicFrequency(1, 1, c)
		r := 1 / chi
		return chi, -c / (r * r * -math.Expm1(-r))
	})
	nc := uint64(len(fresh.coef))
	return &curveTables{
		harm: harm,
		fresh: freshTable{cFirst: fresh.first, dFirst: near.first, nc: nc, nd: uint64(len(near.coef)), zero: nc + uint64(len(near.coef)),
			coef: append(append(fresh.coef, near.coef...), [8]float64{})},
		age: age,
	}
})

// at returns φ(c) and dφ/d ln c; ok is false for c below the table (or
// within 2^−46 of 1), which freshRest handles.
func (t *freshTable) at(c float64) (v, dv float64, ok bool) {
	k, u := t.bin(c)
	return lookup(t.coef, k, u)
}

// bin returns the bin of c and the position of c (or of d = 1 − c) in
// it, as cubicTable.bin does; small enough to be inlined.
func (t *freshTable) bin(c float64) (k uint64, u float64) {
	b := math.Float64bits(c)
	k = b>>binShift - t.cFirst
	if c >= 0.5 {
		// A d below the table maps past the zero bin, out of range.
		b = math.Float64bits(1 - c)
		k = t.nc + min(b>>binShift-t.dFirst, t.nd+1)
	}
	if c >= 1 {
		k = t.zero
	}
	return k, binOffset(b)
}

// rOfQ solves r − ln(1 + r) = q for q ≥ ln 2 (r ≥ 1.6) by Newton's method
// from the asymptote r ≈ q + ln(1 + q): this is g⁻¹(1 − e^{−q}), the
// freshness curve where 1 − c is too small to represent c exactly.
func rOfQ(q float64) float64 {
	r := q + math.Log1p(q)
	for range 100 {
		dx := (r - math.Log1p(r) - q) * (1 + r) / r
		r -= dx
		if math.Abs(dx) <= 1e-16*r {
			break
		}
	}
	return r
}

// freshPhi is φ(c) = 1/g⁻¹(c), the freshness-optimal visits per change at
// c = μλ/w, and dφ/d ln c; zero at and above c = 1, where the page is
// abandoned (Theorem 5.5).
func (t *curveTables) freshPhi(c float64) (phi, dphi float64) {
	if v, dv, ok := t.fresh.at(c); ok {
		return v, dv
	}
	return freshRest(c)
}

// freshRest is freshPhi outside the table: the series below it, and the
// exact inversion within 2^−46 of c = 1.
func freshRest(c float64) (phi, dphi float64) {
	if c < 0.5 {
		return freshSmall(c)
	}
	if c >= 1 {
		return 0, 0
	}
	d := 1 - c // exact for c ≥ 1/2
	r := rOfQ(-math.Log(d))
	// dφ/d ln c = −(1/r²)·c·dr/dc, dr/dc = (1 + r)/(r(1 − c)).
	return 1 / r, -(1 + r) * c / (r * r * r * d)
}

// freshSmall is freshPhi below the table: with q = −ln(1 − c) and
// t = √(2q), r = t + t²/3 + t³/36 − t⁴/270 + t⁵/4320 + O(t⁶) (the
// branch-point series of Lambert's W₋₁; see policy's invG), exact to 1e-29
// relative below c = 2^−40.
func freshSmall(c float64) (phi, dphi float64) {
	if c <= 0 {
		return math.Inf(1), math.Inf(-1)
	}
	q := c * (1 + c*(0.5+c/3))
	t := math.Sqrt(2 * q)
	r := t * (1 + t*(1.0/3+t*(1.0/36+t*(-1.0/270+t/4320))))
	return 1 / r, -(1 + r) * c / (r * r * r * (1 - c))
}

// agePsi is ψ(y) = 1/h⁻¹(y), the age-optimal visits per change at
// y = νλ²/w, and dψ/d ln y.
func (t *curveTables) agePsi(y float64) (psi, dpsi float64) {
	if v, dv, ok := t.age.at(y); ok {
		return v, dv
	}
	return ageRest(y)
}

// harmChi is χ(c) = 1/em2⁻¹(c), the harmonic-optimal visits per change at
// c = νλ/w (policy.HarmonicFrequency), and dχ/d ln c.
func (t *curveTables) harmChi(c float64) (chi, dchi float64) {
	if v, dv, ok := t.harm.at(c); ok {
		return v, dv
	}
	switch {
	case c <= 0:
		return math.Inf(1), math.Inf(-1)
	case c >= 16:
		// em2⁻¹(c) = c + 1 + W₀(−x), x = e^{−(c+1)} < 5e-8, and
		// W₀(−x) = −x − x² − …: r = c + 1 − x within 1e-17 (the table's
		// cubics fit this near-hyperbola less well than 3e-10).
		e := math.Exp(-(c + 1))
		r := c + 1 - e
		return 1 / r, -c / (r * r * (1 - e))
	}
	chi = policy.HarmonicFrequency(1, 1, c)
	r := 1 / chi
	return chi, -c / (r * r * -math.Expm1(-r))
}

// ageRest is agePsi outside the table: policy's exact inversion.
func ageRest(y float64) (psi, dpsi float64) {
	if y <= 0 {
		return math.Inf(1), math.Inf(-1)
	}
	psi = policy.AgeFrequency(1, 1, y)
	r := 1 / psi
	// dψ/d ln y = −(1/r²)·y/h′(r), h′(r) = r(1 − e^{−r}).
	return psi, -y / (r * r * r * -math.Expm1(-r))
}
