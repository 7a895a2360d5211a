package schedule

import (
	"errors"
	"math"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// kkt is the capacitated freshness- or age-optimal allocation (see Capped
// for the model). Write m for the multiplier (μ for freshness, ν for age)
// and φ for the curve (φ(c) = 1/g⁻¹(c) at c = μλ/w, or ψ(y) = 1/h⁻¹(y) at
// y = νλ²/w), so a page gets f = λ·φ(m·a) with a = λ/w or λ²/w, and a
// host's pages sum to S_h(m) = Σ λ_i φ(m·a_i), decreasing in m.
//
// The KKT conditions of max Σ w_i F̄(λ_i, f_i) subject to Σ f_i = B and
// Σ_{i∈h} f_i ≤ c_h give each page f_i = λ_i φ((μ + η_h)a_i), with η_h ≥ 0
// and η_h > 0 only on a saturated host. So host h is saturated exactly
// when S_h(μ) > c_h, and then its multiplier m_h = μ + η_h solves
// S_h(m_h) = c_h, which does not depend on μ. The budget is met when
// T(μ) = Σ_h min(S_h(μ), c_h) = B: T is decreasing, so an outer search on
// μ finds it, each evaluation summing only the hosts not yet known to be
// saturated (a host seen saturated at μ stays saturated below it); then one
// inner search per saturated host, all run side by side, finds its m_h.
//
// Every pass reads the pages in their own order and sums into per-host
// state, one copy per chunk, added in chunk order. A page then costs one
// cache line of a small per-host array, about what it would cost with the
// pages gathered by host, and the gathering (and scattering back) is
// saved: on 10⁷ pages those random accesses take as long as several
// passes. Only the inner searches, which need a few steps more on each
// saturated host after the first shared ones, are finished on a gathered
// copy of their pages (finish). A large collection's outer search starts
// from an estimate on a sample (warmStart).
type kkt struct {
	tab   *curveTables
	age   bool
	pages []policy.Page
	hosts Hosts
	ng    int // groups: the hosts, then the pages on no host

	// Per group.
	cap         []float64 // c_g; +Inf for the no-host group
	count       []int     // pages that change
	kBound      []float64 // K_g = Σ λ/√(2a): S_g(x) ≤ K_g·e^{−x/2}
	xMax        []float64 // ln max w/λ, above which S_g = 0 (freshness); +Inf (age)
	lowSat      []float64 // the largest x seen with S_g(x) > c_g; +Inf if c_g = 0
	satS, satDS []float64 // S_g and dS_g/dx there
	sol         []groupSol
	mu, s, ds   []float64 // a pass's multipliers and the sums it finds

	nChunks int
	acc     [][]groupAcc // per chunk, per group
}

// groupAcc is a group's multiplier and sums in one chunk of a pass, kept
// together so that a page costs one cache line of its group's state.
type groupAcc struct{ mu, s, ds float64 }

// groupSol is a saturated group's frequencies: λ·scale·((1 − θ)φ(e^hi·a) +
// θ·φ(e^lo·a)), which sum to c_g.
type groupSol struct {
	lo, hi, theta, scale float64
}

// errNoConvergence reports a multiplier search that did not converge,
// which would be a bug: the sums are monotone.
var errNoConvergence = errors.New("schedule: multiplier search did not converge")

func newKKT(pages []policy.Page, hosts Hosts, age bool) *kkt {
	ng := len(hosts.Capacity) + 1
	p := &kkt{tab: tables(), age: age, pages: pages, hosts: hosts, ng: ng,
		cap: make([]float64, ng), count: make([]int, ng), kBound: make([]float64, ng),
		xMax: make([]float64, ng), lowSat: make([]float64, ng), satS: make([]float64, ng),
		satDS: make([]float64, ng), sol: make([]groupSol, ng),
		mu: make([]float64, ng), s: make([]float64, ng), ds: make([]float64, ng)}
	copy(p.cap, hosts.Capacity)
	p.cap[ng-1] = math.Inf(1)
	// Enough chunks to keep the CPUs busy, few enough that their
	// accumulators (3·ng floats each) stay small next to the pages.
	p.nChunks = 1
	if len(pages) >= minParallel {
		p.nChunks = min(16, max(2, (1<<22)/ng))
	}
	p.acc = make([][]groupAcc, p.nChunks)
	for c := range p.acc {
		p.acc[c] = make([]groupAcc, ng)
	}
	// One pass for K_g (in s), min a (in ds) and the counts (in mu).
	forChunks(len(pages), p.nChunks, func(c, lo, hi int) {
		acc := p.acc[c]
		for g := range acc {
			acc[g].ds = math.Inf(1)
		}
		for i := lo; i < hi; i++ {
			pg := pages[i]
			if pg.Rate == 0 {
				continue
			}
			ga := &acc[hosts.group(i, ng-1)]
			a := p.arg(pg)
			ga.s += pg.Rate / math.Sqrt(2*a)
			ga.ds = min(ga.ds, a)
			ga.mu++
		}
	})
	for g := range ng {
		aMin := math.Inf(1)
		for _, acc := range p.acc {
			p.kBound[g] += acc[g].s
			aMin = min(aMin, acc[g].ds)
			p.count[g] += int(acc[g].mu)
		}
		p.xMax[g] = math.Inf(1)
		if !age {
			p.xMax[g] = -math.Log(aMin)
		}
		p.lowSat[g] = math.Inf(-1)
		if p.cap[g] == 0 {
			p.lowSat[g] = math.Inf(1)
		}
	}
	return p
}

// arg is a page's a: the curve is evaluated at m·a.
func (p *kkt) arg(pg policy.Page) float64 {
	w := pg.Weight
	if w == 0 {
		w = 1
	}
	if p.age {
		return pg.Rate * pg.Rate / w
	}
	return pg.Rate / w
}

// curve is φ or ψ and its derivative in ln of its argument.
func (p *kkt) curve(x float64) (float64, float64) {
	if p.age {
		return p.tab.agePsi(x)
	}
	return p.tab.freshPhi(x)
}

// sums sets s[g], ds[g] to S_g and dS_g/d ln m at m = mu[g] for every
// group with mu[g] > 0, in one parallel pass over the pages.
func (p *kkt) sums(mu []float64) {
	forChunks(len(p.pages), p.nChunks, func(c, lo, hi int) {
		acc := p.acc[c]
		for g, m := range mu {
			acc[g] = groupAcc{mu: m}
		}
		if p.age {
			p.ageRange(lo, hi, acc)
		} else {
			p.freshRange(lo, hi, acc)
		}
	})
	for g, m := range mu {
		if m > 0 {
			var s, ds float64
			for _, acc := range p.acc {
				s += acc[g].s
				ds += acc[g].ds
			}
			p.s[g], p.ds[g] = s, ds
		}
	}
}

// freshRange adds λφ(m·λ/w) and its derivative for pages [lo, hi) into
// their groups' acc. It is the innermost loop of the allocation, so the
// table's bin and cubic are inlined into it. freshRange and ageRange are
// one loop written twice for the same reason: with the choice of curve
// inside one loop, the freshness pass took 2 % longer (BenchmarkKKTPass).
func (p *kkt) freshRange(lo, hi int, acc []groupAcc) {
	of, last, tab := p.hosts.Of, p.ng-1, p.tab.fresh
	for i := lo; i < hi; i++ {
		g := last
		if of != nil && of[i] >= 0 {
			g = int(of[i])
		}
		ga := &acc[g]
		pg := p.pages[i]
		if ga.mu == 0 || pg.Rate == 0 {
			continue
		}
		w := pg.Weight
		if w == 0 {
			w = 1
		}
		x := ga.mu * (pg.Rate / w) // as arg rounds it
		var v, dv float64
		if k, u := tab.bin(x); k < uint64(len(tab.coef)) {
			v, dv = cubic(&tab.coef[k], u)
		} else {
			v, dv = freshRest(x)
		}
		ga.s += pg.Rate * v
		ga.ds += pg.Rate * dv
	}
}

// ageRange is freshRange for ψ(ν·λ²/w).
func (p *kkt) ageRange(lo, hi int, acc []groupAcc) {
	of, last, tab := p.hosts.Of, p.ng-1, *p.tab.age
	for i := lo; i < hi; i++ {
		g := last
		if of != nil && of[i] >= 0 {
			g = int(of[i])
		}
		ga := &acc[g]
		pg := p.pages[i]
		if ga.mu == 0 || pg.Rate == 0 {
			continue
		}
		w := pg.Weight
		if w == 0 {
			w = 1
		}
		x := ga.mu * (pg.Rate * pg.Rate / w)
		var v, dv float64
		if k, u := tab.bin(x); k < uint64(len(tab.coef)) {
			v, dv = cubic(&tab.coef[k], u)
		} else {
			v, dv = ageRest(x)
		}
		ga.s += pg.Rate * v
		ga.ds += pg.Rate * dv
	}
}

// total evaluates T(x) = Σ_g min(S_g(e^x), c_g) and dT/dx, summing only
// the groups not known to be saturated at x and recording those found
// saturated.
func (p *kkt) total(x float64) (t, dt float64) {
	m := math.Exp(x)
	for g := range p.mu {
		p.mu[g] = 0
		if p.count[g] > 0 && x > p.lowSat[g] {
			p.mu[g] = m
		}
	}
	p.sums(p.mu)
	for g, c := range p.cap {
		switch {
		case p.count[g] == 0:
		case p.mu[g] == 0:
			t += c
		case p.s[g] > c:
			t += c
			p.lowSat[g], p.satS[g], p.satDS[g] = x, p.s[g], p.ds[g]
		default:
			t += p.s[g]
			dt += p.ds[g]
		}
	}
	return t, dt
}

// saturate finds m_g with S_g(m_g) = c_g for every group in gs, starting
// from the point lowSat where each was seen saturated (if any), and sets
// their sol. The searches share passes over all pages for two Newton
// steps, or while they need more than half the pages, then finish on a
// gathered copy of their pages: after two steps most are within a few per
// cent and take three or four more, which a pass over all the pages would
// pay for every page.
func (p *kkt) saturate(gs []int) error {
	roots := make([]root, p.ng)
	active := make([]int, 0, len(gs))
	for _, g := range gs {
		c := p.cap[g]
		if c == 0 {
			p.sol[g] = groupSol{}
			continue
		}
		xm := min(2*math.Log(p.kBound[g]/c), p.xMax[g])
		roots[g] = newRoot(c, xm, xm)
		if !math.IsInf(p.lowSat[g], -1) {
			roots[g].knownLo(p.lowSat[g], p.satS[g], p.satDS[g])
		}
		if !roots[g].done {
			active = append(active, g)
		}
	}
	for round := 0; len(active) > 0; round++ {
		pages := 0
		for _, g := range active {
			pages += p.count[g]
		}
		if pages <= len(p.pages)/2 || round >= 2 {
			p.finish(active, roots)
			break
		}
		clear(p.mu)
		for _, g := range active {
			p.mu[g] = math.Exp(roots[g].x)
		}
		p.sums(p.mu)
		next := active[:0]
		for _, g := range active {
			roots[g].update(p.s[g], p.ds[g])
			if !roots[g].done {
				next = append(next, g)
			}
		}
		active = next
	}
	for _, g := range gs {
		r := &roots[g]
		if p.cap[g] == 0 {
			continue
		}
		if !r.bracketed() {
			return errNoConvergence
		}
		sol := groupSol{lo: r.lo, hi: r.hi, scale: 1}
		if r.lo == r.hi {
			sol.scale = r.target / r.sLo
		} else {
			sol.theta = (r.target - r.sHi) / (r.sLo - r.sHi)
		}
		p.sol[g] = sol
	}
	return nil
}

// finish runs the searches of the groups in active to the end on a copy of
// their pages' λ and a, gathered by group (a counting sort, in parallel by
// chunks of pages), each group's search then on its own.
func (p *kkt) finish(active []int, roots []root) {
	slot := make([]int32, p.ng)
	for g := range slot {
		slot[g] = -1
	}
	start := make([]int, len(active)+1)
	for k, g := range active {
		slot[g] = int32(k)
		start[k+1] = start[k] + p.count[g]
	}
	n, last := len(p.pages), p.ng-1
	next := make([][]int, p.nChunks) // per chunk: where its next page of each group goes
	forChunks(n, p.nChunks, func(c, lo, hi int) {
		count := make([]int, len(active))
		for i := lo; i < hi; i++ {
			if k := slot[p.hosts.group(i, last)]; k >= 0 && p.pages[i].Rate > 0 {
				count[k]++
			}
		}
		next[c] = count
	})
	for k := range active {
		at := start[k]
		for c := range next {
			at, next[c][k] = at+next[c][k], at
		}
	}
	lam, a := make([]float64, start[len(active)]), make([]float64, start[len(active)])
	forChunks(n, p.nChunks, func(c, lo, hi int) {
		at := next[c]
		for i := lo; i < hi; i++ {
			if k := slot[p.hosts.group(i, last)]; k >= 0 && p.pages[i].Rate > 0 {
				lam[at[k]], a[at[k]] = p.pages[i].Rate, p.arg(p.pages[i])
				at[k]++
			}
		}
	})
	forChunks(len(active), min(len(active), 64), func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			r := &roots[active[k]]
			for !r.done {
				r.update(p.sumSlice(lam[start[k]:start[k+1]], a[start[k]:start[k+1]], math.Exp(r.x)))
			}
		}
	})
}

// sumSlice returns Σ λφ(m·a) over gathered pages and its derivative in
// ln m.
func (p *kkt) sumSlice(lam, a []float64, m float64) (s, ds float64) {
	a = a[:len(lam)]
	for i, l := range lam {
		v, dv := p.curve(m * a[i])
		s += l * v
		ds += l * dv
	}
	return s, ds
}

// kktResult is what solve found.
type kktResult struct {
	spent, multiplier float64
	saturated         []bool    // per group
	eta               []float64 // per group: η_g = m_g − μ
}

// solve fills freq (pages that never change get 0) with the capacitated
// optimum for budget.
func (p *kkt) solve(budget float64, freq []float64) (kktResult, error) {
	capacity, k := 0.0, 0.0
	xMax := math.Inf(-1)
	for g := range p.ng {
		if p.count[g] > 0 {
			capacity += p.cap[g]
			k += p.kBound[g]
			xMax = max(xMax, p.xMax[g])
		}
	}
	var xLo, xHi, theta float64 // the ends and the share of xLo
	if budget >= capacity {
		// Every host saturated: the budget cannot all be spent.
		xLo, xHi = math.Inf(-1), math.Inf(-1)
	} else {
		xm := min(2*math.Log(k/budget), xMax)
		r := newRoot(budget, p.warmStart(budget, xm), xm)
		for !r.done {
			r.update(p.total(r.x))
		}
		if !r.bracketed() {
			return kktResult{}, errNoConvergence
		}
		xLo, xHi = r.lo, r.hi
	}
	var sat []int
	for g := range p.ng {
		if p.count[g] > 0 && xLo <= p.lowSat[g] {
			sat = append(sat, g)
		}
	}
	if err := p.saturate(sat); err != nil {
		return kktResult{}, err
	}
	if xLo != xHi {
		// Re-sum both ends under the final saturation rule, so that the
		// combination is taken of exactly the frequencies written below.
		tLo, _ := p.total(xLo)
		tHi, _ := p.total(xHi)
		theta = 1
		if tLo > tHi {
			theta = min(1, max(0, (budget-tHi)/(tLo-tHi)))
		}
	}
	res := kktResult{multiplier: math.Exp(xHi), saturated: make([]bool, p.ng), eta: make([]float64, p.ng)}
	terms := make([][4]term, p.ng)
	for g := range p.ng {
		terms[g] = p.terms(g, xLo, xHi, theta)
		if p.count[g] > 0 && xHi <= p.lowSat[g] {
			res.saturated[g] = true
			res.eta[g] = math.Inf(1)
			if p.cap[g] > 0 {
				res.eta[g] = max(0, math.Exp(p.sol[g].hi)-res.multiplier)
			}
		}
	}
	spent := make([]float64, p.nChunks)
	forChunks(len(p.pages), p.nChunks, func(c, lo, hi int) {
		spent[c] = p.write(lo, hi, terms, freq)
	})
	for _, s := range spent {
		res.spent += s
	}
	return res, nil
}

// write sets freq for pages [lo, hi) from their groups' terms and returns
// their sum.
func (p *kkt) write(lo, hi int, terms [][4]term, freq []float64) (sum float64) {
	for i := lo; i < hi; i++ {
		pg := p.pages[i]
		if pg.Rate == 0 {
			freq[i] = 0
			continue
		}
		a := p.arg(pg)
		var f float64
		for _, t := range &terms[p.hosts.group(i, p.ng-1)] {
			if t.coef == 0 {
				continue
			}
			v, _ := p.curve(t.m * a)
			f += t.coef * v
		}
		freq[i] = f * pg.Rate
		sum += freq[i]
	}
	return sum
}

// warmStart returns where the outer search should start: xm, the bound it
// knows, or, on a large collection, the root of S(x) = Σ_i λ_i φ(e^x a_i)
// = B estimated from a sample of 2¹⁴ pages, which saves the search two or
// three passes over all the pages. The caps are left out: on a sample a
// small host's sum is too noisy to compare with its cap, and as
// T(x) ≤ S(x) the estimate lies above the root of T, where the search's
// Newton steps on ln T head down. The estimate only aims the first step:
// the search keeps its own bracket and records saturation from full passes
// only.
func (p *kkt) warmStart(budget, xm float64) float64 {
	const sample = 1 << 14
	n := len(p.pages)
	if n < 16*sample {
		return xm
	}
	stride := n / sample
	scale := float64(n) / float64((n+stride-1)/stride)
	r := newRoot(budget, xm, xm)
	for range 20 {
		m := math.Exp(r.x)
		var s, ds float64
		for i := 0; i < n; i += stride {
			if pg := p.pages[i]; pg.Rate > 0 {
				v, dv := p.curve(m * p.arg(pg))
				s += pg.Rate * v
				ds += pg.Rate * dv
			}
		}
		if s *= scale; math.Abs(s-budget) <= 1e-3*budget {
			break
		}
		if r.update(s, ds*scale); r.done {
			break
		}
	}
	return min(r.x, xm)
}

// term is one multiplier and its coefficient in a page's frequency.
type term struct{ m, coef float64 }

// terms is the frequency of group g's pages as a combination of curve
// values: the share 1 − θ of the allocation at xHi and θ of the one at
// xLo, where the group is either at the common multiplier or saturated.
func (p *kkt) terms(g int, xLo, xHi, theta float64) [4]term {
	var t [4]term
	end := func(x, share float64, out []term) {
		if x <= p.lowSat[g] {
			s := p.sol[g]
			out[0] = term{math.Exp(s.hi), share * s.scale * (1 - s.theta)}
			out[1] = term{math.Exp(s.lo), share * s.scale * s.theta}
			return
		}
		out[0] = term{math.Exp(x), share}
	}
	end(xHi, 1-theta, t[0:2])
	end(xLo, theta, t[2:4])
	return t
}
