package policy

import (
	"math"
	"slices"
)

// Threshold solves p exactly by searching for the marginal threshold τ at
// which the pages' counts x_i(τ) = #{j : D_{i,j} < τ} (clamped to the
// bounds) sum to Total, in the spirit of Frederickson and Johnson's
// algorithm that paper 002 uses (§4.2; spec B.5): every other round takes
// τ as the weighted median of the middle marginals of every page's
// undecided range, which discards at least a quarter of the undecided
// crawls, and the rounds between take the weighted quantile where the
// remaining crawls should fall, which usually discards far more; each
// x_i(τ) is a binary search within the page's range. Ties at the final τ
// go to the lowest page indices. It evaluates Cost O(N log R) times per
// round over O(log R) rounds, against Greedy's R heap steps.
func Threshold(p DiscreteProblem) ([]int, error) {
	xlo, xhi, err := p.bounds()
	if err != nil {
		return nil, err
	}
	s := newThresholdSearch(p, xlo, xhi)
	perPage := (p.Total - s.slo) / max(1, len(s.active))
	for round := 0; s.slo < p.Total && s.shi > p.Total; round++ {
		undecided := s.shi - s.slo
		s.cut(s.pick(round, perPage))
		if round%2 == 0 && round > 0 && s.slo < p.Total && s.shi-s.slo >= undecided {
			// Only NaN or non-convex costs stop the median from cutting.
			return nil, ErrNotConvex
		}
	}
	if s.shi == p.Total {
		return s.xhi, nil
	}
	return s.xlo, nil
}

// thresholdSearch is Threshold's state. Invariant: for each i, every
// D_{i,j} with j < xlo[i] belongs to the optimum and every one with
// j ≥ xhi[i] does not; Σ xlo ≤ Total ≤ Σ xhi.
type thresholdSearch struct {
	p            DiscreteProblem
	xlo, xhi     []int
	slo, shi     int     // Σ xlo, Σ xhi
	active       []int32 // the pages with xlo < xhi
	xlt, xle     []int   // at the current τ: marginals < τ taken, ≤ τ taken
	cs           []thresholdCand
	tauLo, tauHi float64 // the marginals xlo and xhi stop at
}

// thresholdCand is one page's probe marginal d, of weight w undecided
// crawls.
type thresholdCand struct {
	d float64
	w int
}

func newThresholdSearch(p DiscreteProblem, xlo, xhi []int) *thresholdSearch {
	s := &thresholdSearch{p: p, xlo: xlo, xhi: xhi, active: make([]int32, 0, p.N),
		xlt: make([]int, p.N), xle: make([]int, p.N), tauLo: math.Inf(-1), tauHi: math.Inf(1)}
	for i := range p.N {
		s.slo += xlo[i]
		s.shi += xhi[i]
		if xlo[i] < xhi[i] {
			s.active = append(s.active, int32(i))
		}
	}
	return s
}

// pick returns the round's τ. It is the weighted median of each active
// page's middle marginal on even rounds, which guarantees progress; odd
// rounds aim at the quantile where the remaining crawls should fall, or,
// once both ends of the bracket are known, interpolate the count linearly
// in τ between them (regula falsi), which usually lands much closer. Any
// τ keeps the invariant.
func (s *thresholdSearch) pick(round, perPage int) float64 {
	total := 0
	s.cs = s.cs[:0]
	for _, i := range s.active {
		w := s.xhi[i] - s.xlo[i]
		probe := s.xlo[i] + (w-1)/2
		if round == 0 {
			// The first ranges run to Max (R by default) while the
			// answer is near R/N: probe there, each page counting
			// once, to set the scale.
			probe, w = min(s.xlo[i]+perPage, s.xhi[i]-1), 1
		}
		s.cs = append(s.cs, thresholdCand{s.p.delta(int(i), probe), w})
		total += w
	}
	slices.SortFunc(s.cs, func(a, b thresholdCand) int {
		switch {
		case a.d < b.d:
			return -1
		case a.d > b.d:
			return 1
		}
		return 0
	})
	target := 0.5
	if round%2 == 1 {
		target = float64(s.p.Total-s.slo) / float64(s.shi-s.slo)
	}
	tau, acc := s.cs[len(s.cs)-1].d, 0
	for _, c := range s.cs {
		if acc += c.w; float64(acc) >= target*float64(total) {
			tau = c.d
			break
		}
	}
	if round%2 == 1 && !math.IsInf(s.tauLo, 0) && !math.IsInf(s.tauHi, 0) {
		if t := s.tauLo + (s.tauHi-s.tauLo)*float64(s.p.Total-s.slo)/float64(s.shi-s.slo); t > s.tauLo && t < s.tauHi {
			tau = t
		}
	}
	return tau
}

// cut counts the marginals below τ (and, when they matter, those equal to
// it) and narrows every active page's range to the side of τ the optimum
// is on.
func (s *thresholdSearch) cut(tau float64) {
	total := s.p.Total
	nlt := s.slo
	for _, i := range s.active {
		s.xlt[i] = s.first(int(i), s.xlo[i], s.xhi[i], tau, false)
		nlt += s.xlt[i] - s.xlo[i]
	}
	nle := nlt
	if nlt <= total { // the ties at τ matter only then
		for _, i := range s.active {
			s.xle[i] = s.first(int(i), s.xlt[i], s.xhi[i], tau, true)
			nle += s.xle[i] - s.xlt[i]
		}
	}
	switch {
	case nlt > total: // too many below τ: the optimum is below τ
		s.tauHi = tau
		for _, i := range s.active {
			s.shi -= s.xhi[i] - s.xlt[i]
			s.xhi[i] = s.xlt[i]
		}
	case nle < total: // even every tie at τ is not enough
		s.tauLo = tau
		for _, i := range s.active {
			s.slo += s.xle[i] - s.xlo[i]
			s.xlo[i] = s.xle[i]
		}
	default: // nlt ≤ Total ≤ nle: take all below τ and enough ties
		left := total - nlt
		for _, i := range s.active {
			take := min(left, s.xle[i]-s.xlt[i])
			s.xlo[i] = s.xlt[i] + take
			left -= take
		}
		s.slo = total
	}
	s.active = slices.DeleteFunc(s.active, func(i int32) bool { return s.xlo[i] >= s.xhi[i] })
}

// first returns the first j in [lo, hi) with D_{i,j} ≥ τ (with orEqual,
// D_{i,j} > τ), or hi. It gallops from lo (lo, lo+1, lo+3, …) before
// bisecting, so it costs O(log(j − lo)) rather than O(log(hi − lo)): the
// ranges start at [Min, Max] while the answers are near R/N.
func (s *thresholdSearch) first(i, lo, hi int, tau float64, orEqual bool) int {
	below := func(j int) bool {
		d := s.p.delta(i, j)
		return d < tau || orEqual && d == tau
	}
	for step := 1; lo < hi; step *= 2 {
		j := min(lo+step-1, hi-1)
		if !below(j) {
			hi = j
			break
		}
		lo = j + 1
	}
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if below(mid) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
