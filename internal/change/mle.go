package change

import "math"

// MLE is the maximum-likelihood estimator for visits at irregular intervals
// that only tell whether the page changed (dissertation §6.4.3). Its
// log-likelihood is ℓ(λ) = Σ log(1 − e^(−λ t_c)) − λ Σ t_u, and λ̂ solves
// ℓ'(λ) = 0, eq. 6.3:
//
//	Σ_i t_ci / (e^(λ t_ci) − 1) = Σ_j t_uj
//
// The changed intervals t_c come from Stats' bins (bin means); the unchanged
// ones enter only through their sum, which is exact. With equal intervals I
// the root is −log(X̄/n)/I, the improved estimator without its 0.5.
//
// The interval is the Wald interval on log λ from the observed Fisher
// information J = −ℓ″(λ̂) = Σ t_c² e^(λt_c)/(e^(λt_c) − 1)²:
// λ̂·exp(±1.96/(λ̂·√J)). On the log scale it stays positive and is cheap;
// TestMLECoverage measures its coverage.
//
// Eq. 6.3 has no finite root in two cases, which the seed leaves to the
// implementer (spec §5.4 flag):
//
//   - No change seen: Rate is 0 (the likelihood e^(−λΣI) peaks at 0), Lo is
//     0 and Hi is the exact bound −log(0.025)/ΣI, where the chance of seeing
//     no change falls to 2.5 %.
//   - Every visit saw a change: the MLE is +∞. Rate is instead the root with
//     half an unchanged interval of the mean changed length added, the 0.5
//     pseudo-count of §6.4.2 carried over; for equal intervals I it is
//     log(2n+1)/I, where the improved estimator saturates. Lo is the exact
//     bound where the chance of every visit seeing a change falls to 2.5 %,
//     Hi is +Inf.
//
// With Paper001 set, the substitutes are those paper 001 (§A.5) reports from
// Cho & Garcia-Molina instead: a page that never changed gets 1/ΣI (change
// period = all the time watched) and one that always changed gets 1/(the
// shortest changed interval). The second can fall below the exact lower
// bound (ten changes in ten visits of length I give 1/I, below
// Lo = 1.18/I), which is why it is not the default.
type MLE struct {
	// Paper001 selects paper 001's substitutes for histories with no
	// change or no unchanged visit.
	Paper001 bool
}

// Name returns "mle".
func (MLE) Name() string { return "mle" }

// Estimate solves eq. 6.3; see MLE for the cases without a root.
func (e MLE) Estimate(s *Stats) Estimate { return checked(e.estimate(s)) }

func (e MLE) estimate(s *Stats) Estimate {
	if !(s.n > 0 && s.sumI > 0) {
		return notOK()
	}
	p := problem{s: s}
	p.summarise()
	switch {
	case p.wc == 0:
		rate := 0.0
		if e.Paper001 {
			rate = 1 / s.sumI
		}
		return Estimate{Rate: rate, Lo: 0, Hi: -logTail / s.sumI, Class: -1, OK: true}
	case !(s.sumU > 0):
		lo := p.allChangedBound()
		if e.Paper001 {
			return Estimate{Rate: 1 / s.minC, Lo: lo, Hi: math.Inf(1), Class: -1, OK: true}
		}
		p.u = improvedA * p.sc / p.wc // half an unchanged interval of the mean length
		lambda, _ := p.solve(s.hint)
		return Estimate{Rate: lambda, Lo: lo, Hi: math.Inf(1), Class: -1, OK: true}
	}
	p.u = s.sumU
	lambda, info := p.solve(s.hint)
	s.hint = lambda
	lo, hi := waldLog(lambda, info)
	return Estimate{Rate: lambda, Lo: lo, Hi: hi, Class: -1, OK: true}
}

// waldLog returns the Confidence interval λ̂·exp(±z/(λ̂√J)) on log λ.
func waldLog(lambda, info float64) (lo, hi float64) {
	if !(info > 0) {
		return math.NaN(), math.NaN()
	}
	e := math.Exp(zConf / (lambda * math.Sqrt(info))) // one exp for both ends
	return lambda / e, lambda * e
}

// problem is eq. 6.3 ready to solve: the changed intervals are s's bins,
// each at its bin mean, plus an optional pseudo-interval of length pm and
// weight pw (PriorMLE); u is the right side Σ t_u. It reads the bins in
// place rather than copying them, and summarises them (summarise) only when
// a solve needs a bracket or a cold start: the warm per-visit path does
// without.
type problem struct {
	s          *Stats
	pw, pm     float64 // the pseudo changed interval: weight and length
	u          float64 // right side of eq. 6.3
	summarised bool    // whether the fields below are set
	wc, sc     float64 // Σ w and Σ w·m over all changed terms
	tmin, tmax float64 // shortest and longest term length
}

// summarise sets wc, sc, tmin and tmax.
func (p *problem) summarise() {
	if p.summarised {
		return
	}
	p.summarised = true
	p.wc, p.sc, p.tmin, p.tmax = 0, 0, math.Inf(1), 0
	if p.pw > 0 {
		p.wc, p.sc, p.tmin, p.tmax = p.pw, p.pw*p.pm, p.pm, p.pm
	}
	s := p.s
	if s.minC == 0 {
		return
	}
	for i := int(s.lo); i <= int(s.hi); i++ {
		if b := s.bins[i]; b.w > 0 && b.t > 0 {
			p.wc += b.w
			p.sc += b.t
			m := b.t / b.w
			p.tmin = math.Min(p.tmin, m)
			p.tmax = math.Max(p.tmax, m)
		}
	}
}

// eval returns F(λ) = Σ w·m/(e^(λm) − 1) − u, the score ℓ'(λ);
// J(λ) = −F'(λ) = Σ w·m² e^(λm)/(e^(λm) − 1)², the observed information; and
// F″(λ), for Halley's method.
func (p *problem) eval(lambda float64) (f, info, curv float64) {
	if p.pw > 0 {
		f, info, curv = evalTerm(lambda, p.pw, p.pm)
	}
	s := p.s
	if s.minC == 0 {
		return f - p.u, info, curv
	}
	for i := int(s.lo); i <= int(s.hi); i++ {
		if b := s.bins[i]; b.w > 0 && b.t > 0 {
			g, j, c := evalTerm(lambda, b.w, b.t/b.w)
			f += g
			info += j
			curv += c
		}
	}
	return f - p.u, info, curv
}

// evalTerm returns w·g, −w·g' and w·g″ for g(λ) = m/(e^(λm) − 1). With
// E = e^(λm) − 1: g' = −g²(E+1) and g″ = g³(E+1)(E+2).
func evalTerm(lambda, w, m float64) (f, info, curv float64) {
	e := math.Expm1(lambda * m)
	if math.IsInf(e, 1) {
		return 0, 0, 0 // the term and its derivatives vanish
	}
	g := m / e
	wg2 := w * g * g * (e + 1)
	return w * g, wg2, wg2 * g * (e + 2)
}

// logAllChanged returns the log-probability Σ w·log(1 − e^(−λm)) that every
// changed term saw a change at rate λ.
func (p *problem) logAllChanged(lambda float64) float64 {
	var lp float64
	if p.pw > 0 {
		lp = p.pw * math.Log(-math.Expm1(-lambda*p.pm))
	}
	s := p.s
	if s.minC == 0 {
		return lp
	}
	for i := int(s.lo); i <= int(s.hi); i++ {
		if b := s.bins[i]; b.w > 0 && b.t > 0 {
			lp += b.w * math.Log(-math.Expm1(-lambda*b.t/b.w))
		}
	}
	return lp
}

// solve returns the root of eq. 6.3 and the observed information there. It
// needs a changed term of positive weight and p.u > 0. The left side falls
// strictly and convexly from +∞ to 0, and because m/(e^(λm) − 1) falls in m
// the root lies in [log(1 + S/u)/t_max, log(1 + S/u)/t_min], S = Σ w·m (a
// bracket from the two extreme lengths; the bounds meet when all lengths are
// equal).
//
// Halley's method (cubic convergence; F″ costs no extra exponential) starts
// from hint, the last root, and otherwise from the equal-interval root at
// the mean length. The signs of F met so far bracket the root; a step that
// leaves the bracket is replaced by geometric bisection, after tightening it
// with the analytic bounds, so the solve always converges. It stops after a
// step below 1e-4 of λ, which leaves a relative error near 1e-12
// (TestMLEWarmStart): a warm start from the last visit's root usually needs
// two evaluations of the left side, and one on a long history.
func (p *problem) solve(hint float64) (lambda, info float64) {
	lo, hi := 0.0, math.MaxFloat64 // the bracket; hi is finite so hi-lo is too
	bracketed := false             // whether lo and hi include the analytic bounds
	lambda = hint
	if !(hint > 0) || math.IsInf(hint, 1) {
		bracketed = true
		if lo, hi = p.bracket(); lo == hi {
			_, info, _ = p.eval(lo)
			return lo, info
		}
		lambda = p.coldStart()
	}
	warm := !bracketed // started from the hint, a root of a moment ago
	for it := range 200 {
		f, j, c := p.eval(lambda)
		info = j
		if f == 0 {
			break
		}
		if f > 0 {
			lo = lambda // the root is larger
		} else {
			hi = lambda
		}
		// Halley: Δ = −2FF'/(2F'² − FF″) with F' = −J, written as the
		// Newton step F/J over 1 − (F/J)·F″/(2J) so that nothing squares;
		// Newton's step where that factor is not positive (far left of the
		// root). An information that vanished or overflowed (λm far from 1
		// for every term) gives no step; bisection takes over.
		step := math.NaN()
		if j > 0 && !math.IsInf(j, 1) {
			step = f / j
			newton := math.Abs(step)
			if q := 1 - step*c/(2*j); q > 0 {
				step /= q
			}
			// Halley converges cubically: from within a few per cent of
			// the root (as the Newton step says when it is that small), one
			// step lands within about 1e-6 of it (TestWarmUpdateError), far
			// below any estimate's noise (10 % and more). A visit moves a
			// warm-started root by about that much, so an update costs one
			// evaluation, not two (BenchmarkUpdate: 2,100 instructions
			// instead of 3,100). Cold solves go on to full precision.
			if warm && it == 0 && newton <= 3e-2*lambda || math.Abs(step) <= 1e-4*lambda {
				lambda += step // taken even if it rounds onto the bracket's edge
				break
			}
		}
		next := lambda + step
		if !(next > lo && next < hi) {
			if !bracketed {
				bracketed = true
				alo, ahi := p.bracket()
				lo, hi = math.Max(lo, alo), math.Min(hi, ahi)
			}
			next = math.Sqrt(lo * hi)
		}
		lambda = next
		if hi-lo <= 1e-14*hi {
			break
		}
	}
	return lambda, info
}

// bracket returns the analytic bounds on the root described on solve.
func (p *problem) bracket() (lo, hi float64) {
	k := p.logRatio()
	return k / p.tmax, k / p.tmin
}

// coldStart returns the equal-interval root at the mean changed length,
// log(1 + S/u)/(S/W), which lies inside the bracket.
func (p *problem) coldStart() float64 {
	return p.logRatio() * p.wc / p.sc
}

// logRatio returns log(1 + S/u), computed as log S − log u when S/u
// overflows.
func (p *problem) logRatio() float64 {
	p.summarise()
	if r := p.sc / p.u; !math.IsInf(r, 1) {
		return math.Log1p(r)
	}
	return math.Log(p.sc) - math.Log(p.u)
}

// allChangedBound returns the λ at which the chance that every changed term
// saw a change, Π (1 − e^(−λm))^w, falls to 2.5 %: the exact lower bound
// when no visit was unchanged. That log-probability rises in λ; between the
// bounds obtained by putting every term at t_max and at t_min it is found by
// bisection on log λ.
func (p *problem) allChangedBound() float64 {
	// Solve wc·log(1 − e^(−λt)) = logTail for λ at t = t_max and t_min.
	y := -math.Log(-math.Expm1(logTail / p.wc))
	lo, hi := y/p.tmax, y/p.tmin
	ulo, uhi := math.Log(lo), math.Log(hi)
	for i := 0; i < 200 && uhi-ulo > 1e-12; i++ {
		u := 0.5 * (ulo + uhi)
		lp := p.logAllChanged(math.Exp(u))
		if lp < logTail {
			ulo = u
		} else {
			uhi = u
		}
	}
	return math.Exp(0.5 * (ulo + uhi))
}
