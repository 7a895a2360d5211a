package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/policy"
)

func constIntervals(n int, I float64) []float64 {
	iv := make([]float64, n)
	for i := range iv {
		iv[i] = I
	}
	return iv
}

// Paper 002 §B.2 (spec, derived): a Pareto page fetched every τ is stale a
// fraction 1 − β[(1+τ/β)^{2−α} − 1]/((2−α)τ) of the time (α ≠ 2).
func TestParetoStaleness(t *testing.T) {
	const n = 800
	tau := 1 * day
	for _, alpha := range []float64{1.5, 3} {
		for _, lt := range []float64{0.5, 2} { // λτ
			t.Run(fmt.Sprintf("alpha=%g/lambda*tau=%g", alpha, lt), func(t *testing.T) {
				lambda := lt / tau
				beta := (alpha - 1) / lambda
				want := 1 - beta*(math.Pow(1+tau/beta, 2-alpha)-1)/((2-alpha)*tau)
				pages := make([]Page, n)
				for i := range pages {
					pages[i] = Page{Process: ParetoProcess(lambda, alpha), Weight: 1}
				}
				res := run(t, Config{Pages: pages, Seed: 3, Duration: 200 * tau, WarmUp: tau, PerPage: true},
					FixedIntervals(constIntervals(n, tau), policy.FixedOrder, 0))
				f, se := meanSE(perPage(res, func(p PageResult) float64 { return p.Freshness }))
				t.Logf("staleness %.5f ± %.5f, want %.5f", 1-f, se, want)
				if !within(1-f, want, se, 4) {
					t.Errorf("staleness %.5f, want %.5f ± 4×%.5f", 1-f, want, se)
				}
			})
		}
	}
}

// A quasi-deterministic page (period P, probability k, q = 1 − k) fetched
// every I = mP with the next potential update δP after each fetch is
// stale, by paper 002 eq. 17 integrated over one interval, a fraction
// [Σ_{j=1}^{m−1}(1−q^j) + (1−δ)(1−q^m)]/m of the time.
func TestQuasiDeterministicStaleness(t *testing.T) {
	const n = 400
	P, k, phase := 3600.0, 0.3, 0.37*3600
	for _, m := range []int{1, 3} {
		t.Run(fmt.Sprintf("m=%d", m), func(t *testing.T) {
			I := float64(m) * P
			pages := make([]Page, n)
			for i := range pages {
				pages[i] = Page{Process: QDProcess(P, k, phase), Weight: 1}
			}
			res := run(t, Config{Pages: pages, Seed: 5, Duration: 400 * I, WarmUp: I, PerPage: true},
				FixedIntervals(constIntervals(n, I), policy.FixedOrder, 0))
			q := 1 - k
			want := 0.0
			for i := 0; i < n; i++ {
				first := (float64(i) + 0.5) / n * I // policy.FixedOrder's first due
				delta := math.Mod(phase-first, P) / P
				if delta <= 0 {
					delta++
				}
				a := (1 - delta) * (1 - math.Pow(q, float64(m)))
				for j := 1; j < m; j++ {
					a += 1 - math.Pow(q, float64(j))
				}
				want += a / float64(m) / n
			}
			f, se := meanSE(perPage(res, func(p PageResult) float64 { return p.Freshness }))
			t.Logf("staleness %.5f ± %.5f, want %.5f", 1-f, se, want)
			if !within(1-f, want, se, 4) {
				t.Errorf("staleness %.5f, want %.5f ± 4×%.5f", 1-f, want, se)
			}
		})
	}
}

// Paper 001 §A.2: with C_s = C_c = 1 and Δ = 24 h, a page crawled every
// rΔ costs [1 − (1 − e^{−r})/r] + 1/(rΔ) per hour: 0.27459 at r = 1/3 and
// 0.27442 at the optimum r* = 0.3208 (spec §A.3 table).
func TestStalenessCost(t *testing.T) {
	const n = 1000
	delta := 24.0 // hours
	tests := []struct{ r, printed float64 }{{1.0 / 3, 0.27459}, {0.3208, 0.27442}, {1, 0.40955}}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("r=%.4f", tt.r), func(t *testing.T) {
			want := 1 - (1-math.Exp(-tt.r))/tt.r + 1/(tt.r*delta)
			if math.Abs(want-tt.printed) > 1e-5 {
				t.Fatalf("closed form %.5f disagrees with the spec's %.5f", want, tt.printed)
			}
			I := tt.r * delta * 3600
			cfg := Config{Pages: poissonPages(n, 1/(delta*3600)), Seed: 9, Duration: 365 * day, WarmUp: 2 * day,
				StaleCost: 1, CrawlCost: 1, PerPage: true}
			res := run(t, cfg, FixedIntervals(constIntervals(n, I), policy.FixedOrder, 0))
			hours := res.Window / 3600
			c, se := meanSE(perPage(res, func(p PageResult) float64 { return (1 - p.Freshness) + float64(p.Fetches)/hours }))
			if math.Abs(c-res.CostPerPageHour) > 1e-9 {
				t.Fatalf("CostPerPageHour %.6f, per-page mean %.6f", res.CostPerPageHour, c)
			}
			t.Logf("cost %.5f ± %.5f per page-hour, want %.5f", c, se, want)
			// The crawl count per page is fixed (±1 in the window), so the
			// tolerance adds 1/hours to four standard errors.
			if math.Abs(c-want) > 4*se+1/hours {
				t.Errorf("cost %.5f per page-hour, want %.5f ± %.5f", c, want, 4*se+1/hours)
			}
		})
	}
}

// recorder wraps a policy and records every fetch.
type recorder struct {
	Policy
	fetches []Fetch
}

func (r *recorder) Fetched(f *Fetch) float64 {
	r.fetches = append(r.fetches, *f)
	return r.Policy.Fetched(f)
}

// greedy asks for every page again after ask seconds.
type greedy struct{ ask float64 }

func (greedy) Init(*Schedule)             {}
func (g greedy) Fetched(f *Fetch) float64 { return f.Time + g.ask }

// A policy that asks for twelve times the budget gets exactly the budget:
// consecutive fetches are 1/Budget apart, and the pages, always overdue,
// are served round-robin at interval N/Budget, so their freshness is the
// fixed-order closed form at I = N/Budget (Table 5.2).
func TestBudgetIsRespected(t *testing.T) {
	const n = 200
	I := 0.5 * day
	budget := n / I
	lambda := 1 / day
	rec := &recorder{Policy: greedy{ask: I / 12}}
	cfg := Config{Pages: poissonPages(n, lambda), Seed: 1, Duration: 300 * I, WarmUp: 2 * I, Budget: budget, PerPage: true}
	res := run(t, cfg, rec)
	for k := 1; k < len(rec.fetches); k++ {
		if gap := rec.fetches[k].Time - rec.fetches[k-1].Time; gap < (1-1e-9)/budget {
			t.Fatalf("fetches %d and %d are %g s apart, budget spacing %g s", k-1, k, gap, 1/budget)
		}
	}
	if want := budget * cfg.Duration; math.Abs(float64(len(rec.fetches))-want) > 1 {
		t.Errorf("%d fetches, budget allows %.0f", len(rec.fetches), want)
	}
	if res.MeanDelay < I/2 {
		t.Errorf("mean delay %g s: the over-asking policy should wait ≈ %g s", res.MeanDelay, I-I/12)
	}
	wantF := policy.Freshness(policy.FixedOrder, lambda, 1/I)
	f, se := meanSE(perPage(res, func(p PageResult) float64 { return p.Freshness }))
	if !within(f, wantF, se, 4) {
		t.Errorf("freshness %.5f, want %.5f ± 4×%.5f", f, wantF, se)
	}
}

// Politeness: with 10 pages a host and a host delay longer than I/10, each
// host is fetched exactly every HostDelay and never sooner.
func TestHostDelay(t *testing.T) {
	const n, perHost = 100, 10
	pages := poissonPages(n, 1/day)
	for i := range pages {
		pages[i].Host = int32(i / perHost)
	}
	delay := 3600.0
	rec := &recorder{Policy: FixedIntervals(constIntervals(n, 5*3600), policy.FixedOrder, 0)} // asks 2× what hosts allow
	cfg := Config{Pages: pages, Seed: 1, Duration: 30 * day, HostDelay: delay}
	res := run(t, cfg, rec)
	first, last := map[int32]float64{}, map[int32]float64{}
	count := map[int32]int{}
	for _, f := range rec.fetches {
		h := pages[f.Page].Host
		if l, ok := last[h]; ok && f.Time-l < delay*(1-1e-12) {
			t.Fatalf("host %d fetched %g s after its previous fetch, delay %g", h, f.Time-l, delay)
		} else if !ok {
			first[h] = f.Time
		}
		last[h] = f.Time
		count[h]++
	}
	for h, c := range count {
		// Always busy after its first fetch: one fetch per delay exactly.
		if want := math.Floor((cfg.Duration-first[h])/delay) + 1; math.Abs(float64(c)-want) > 1e-9 {
			t.Errorf("host %d: %d fetches, want %.0f (one per delay from %g s)", h, c, want, first[h])
		}
	}
	if res.Events.Deferrals == 0 {
		t.Error("no page waited for its host")
	}
}

// The same Config gives the same Result whatever GOMAXPROCS is, and another
// seed gives another.
func TestDeterminism(t *testing.T) {
	const n = 20000
	cfg := Config{Pages: scalePages(n, 2), Seed: 4, Duration: 20 * day, WarmUp: day, Budget: n / (2 * day),
		HostDelay: 5, SeriesStep: day, StaleCost: 1, CrawlCost: 1, VeryStale: 1, PerPage: true}
	runWith := func(procs int, seed uint64) *Result {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		c := cfg
		c.Seed = seed
		return run(t, c, FixedIntervals(constIntervals(n, 2*day), policy.RandomOrder, 8))
	}
	a, b := runWith(1, 4), runWith(4, 4)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("GOMAXPROCS 1 and 4 differ: F %.9f vs %.9f, fetches %d vs %d", a.Freshness, b.Freshness, a.Fetches, b.Fetches)
	}
	if c := runWith(2, 5); c.Freshness == a.Freshness {
		t.Errorf("seeds 4 and 5 give the same freshness %.9f", a.Freshness)
	}
}

// A policy sees only what a crawler sees: Fetch has no field a rate could
// hide in, and Schedule no method that returns one. Adding one must be a
// deliberate act that updates this list.
func TestPolicySeesOnlyObservations(t *testing.T) {
	fields := func(ty reflect.Type) []string {
		var out []string
		for f := range ty.Fields() {
			out = append(out, f.Name+" "+f.Type.String())
		}
		return out
	}
	if got, want := fields(reflect.TypeFor[Fetch]()), []string{"Page int", "Time float64", "Due float64", "Obs change.Observation"}; !slices.Equal(got, want) {
		t.Errorf("Fetch fields %v, want %v", got, want)
	}
	if got, want := fields(reflect.TypeFor[change.Observation]()), []string{"Interval float64", "Changed bool", "SinceModified float64"}; !slices.Equal(got, want) {
		t.Errorf("change.Observation fields %v, want %v", got, want)
	}
	var methods []string
	for m := range reflect.TypeFor[*Schedule]().Methods() {
		methods = append(methods, m.Name+" "+m.Type.String())
	}
	want := []string{"Due func(*sim.Schedule, int) float64", "Len func(*sim.Schedule) int",
		"Now func(*sim.Schedule) float64", "SetDue func(*sim.Schedule, int, float64)"}
	if !slices.Equal(methods, want) {
		t.Errorf("Schedule methods %v, want %v", methods, want)
	}
	// And an ordinary policy is never handed the truth: only Oracles are.
	var p Policy = FixedIntervals([]float64{day}, policy.FixedOrder, 0)
	if _, ok := p.(Oracle); ok {
		t.Error("Intervals implements Oracle")
	}
}

// An Oracle is told the true rates: visiting every page at r/λ_i gives
// each the fixed-order freshness (1 − e^{−r})/r whatever its rate.
func TestOracle(t *testing.T) {
	const n = 500
	pages := make([]Page, n)
	for i := range pages {
		pages[i] = Page{Process: PoissonProcess(math.Exp(float64(i%50)/10) / (10 * day)), Weight: 1}
	}
	r := 0.5
	o := NewOracleIntervals(func(p Page) float64 { return r / p.Process.Rate }, policy.FixedOrder, 0)
	res := run(t, Config{Pages: pages, Seed: 2, Duration: 400 * day, WarmUp: 10 * day, PerPage: true}, o)
	want := policy.Freshness(policy.FixedOrder, r, 1)
	f, se := meanSE(perPage(res, func(p PageResult) float64 { return p.Freshness }))
	if !within(f, want, se, 4) {
		t.Errorf("freshness %.5f, want %.5f ± 4×%.5f", f, want, se)
	}
}

// estimating feeds every observation into a change.Stats per page.
type estimating struct {
	Intervals
	stats []change.Stats
}

func (e *estimating) Fetched(f *Fetch) float64 {
	e.stats[f.Page].Add(f.Obs, f.Time)
	return e.Intervals.Fetched(f)
}

// The observations are what the estimators expect: pooled over pages of
// one rate, the MLE (dissertation eq. 6.3) and the Last-Modified
// estimator (§6.5) recover λ within four standard errors. The MLE's is
// read off its 95 % interval as (Hi − Lo)/(2·1.96); the Last-Modified
// estimator has no interval, and counts X changes, so its relative
// standard error is taken as the Poisson count's 1/√X.
func TestObservationsFeedEstimators(t *testing.T) {
	const n = 200
	lambda := 1 / day
	I := 0.7 * day
	p := &estimating{Intervals: *FixedIntervals(constIntervals(n, I), policy.FixedOrder, 0), stats: make([]change.Stats, n)}
	run(t, Config{Pages: poissonPages(n, lambda), Seed: 6, Duration: 60 * day}, p)
	var pooled change.Stats
	for i := range p.stats {
		pooled.Merge(&p.stats[i])
	}
	for _, est := range []change.Estimator{change.MLE{}, change.LMReduced{}} {
		e := est.Estimate(&pooled)
		se := (e.Hi - e.Lo) / (2 * 1.96)
		if math.IsNaN(se) {
			se = lambda / math.Sqrt(pooled.Changed())
		}
		if !e.OK || !within(e.Rate, lambda, se, 4) {
			t.Errorf("%s: λ̂ = %.4g/day [%.4g, %.4g], want %.4g ± 4×%.3g", est.Name(), e.Rate*day, e.Lo*day, e.Hi*day, lambda*day, se*day)
		}
	}
}

// onEvery is a policy that never fetches on its own; its Replan puts every
// page due now.
type onEvery struct{ calls int }

func (*onEvery) Init(s *Schedule) {
	for i := 0; i < s.Len(); i++ {
		s.SetDue(i, posInf)
	}
}
func (*onEvery) Fetched(*Fetch) float64 { return posInf }
func (o *onEvery) Replan(s *Schedule) {
	o.calls++
	for i := 0; i < s.Len(); i++ {
		s.SetDue(i, s.Now())
	}
}

// A Replanner is called every ReplanEvery and its due times are obeyed:
// here every page is fetched once a day, at the replan, so freshness is the
// fixed-order closed form at I = 1 day.
func TestReplanner(t *testing.T) {
	const n = 300
	lambda := 1.5 / day
	p := &onEvery{}
	res := run(t, Config{Pages: poissonPages(n, lambda), Seed: 8, Duration: 200 * day, WarmUp: day, PerPage: true}, p)
	if p.calls != 199 || res.Events.Replans != 199 {
		t.Errorf("%d replans (%d counted), want 199 (days 1..199)", p.calls, res.Events.Replans)
	}
	if want := int64(n * 199); res.Events.Fetches != want {
		t.Errorf("%d fetches, want %d", res.Events.Fetches, want)
	}
	want := policy.Freshness(policy.FixedOrder, lambda, 1/day)
	f, se := meanSE(perPage(res, func(p PageResult) float64 { return p.Freshness }))
	if !within(f, want, se, 4) {
		t.Errorf("freshness %.5f, want %.5f ± 4×%.5f", f, want, se)
	}
}

// Brute force: a quasi-deterministic page with k = 1 changes at 300 + 1000j
// and is fetched at 1250 + 2500j, so its freshness, age and harmonic
// penalty are fixed functions of time. Sampling them at the midpoint of
// every second (exact for integrands linear within each second, as all
// break points are whole seconds) must reproduce the engine's window
// averages and series.
func TestExactAgainstBruteForce(t *testing.T) {
	P, phase, I := 1000.0, 300.0, 2500.0
	W, H, step := 3100.0, 20000.0, 1000.0
	cfg := Config{Pages: []Page{{Process: QDProcess(P, 1, phase), Weight: 2}}, Duration: H, WarmUp: W, SeriesStep: step}
	res := run(t, cfg, FixedIntervals([]float64{I}, policy.FixedOrder, 0))
	lastFetch := func(x float64) float64 { // the copy in use at x
		if x < 1250 {
			return 0
		}
		return 1250 + math.Floor((x-1250)/I)*I
	}
	ageAt := func(x float64) float64 {
		c := phase + (math.Floor((lastFetch(x)-phase)/P)+1)*P // first change after the copy
		return max(0, x-c)
	}
	harmAt := func(x float64) float64 { // H_N, N the slots in (last fetch, x]
		n := math.Floor((x-phase)/P) - math.Floor((lastFetch(x)-phase)/P)
		h := 0.0
		for i := 1.0; i <= n; i++ {
			h += 1 / i
		}
		return h
	}
	var staleW, ageW, harmW float64
	binStale := make([]float64, int(H/step))
	binAge := make([]float64, int(H/step))
	for s := 0; s < int(H); s++ {
		x := float64(s) + 0.5
		a := ageAt(x)
		st := 0.0
		if a > 0 {
			st = 1
		}
		if x >= W {
			staleW += st
			ageW += a
			harmW += harmAt(x)
		}
		binStale[int(x/step)] += st
		binAge[int(x/step)] += a
	}
	T := H - W
	tol := 1e-9
	if got, want := res.Freshness, 1-staleW/T; math.Abs(got-want) > tol {
		t.Errorf("freshness %.12f, brute force %.12f", got, want)
	}
	if got, want := res.WeightedFreshness, 1-staleW/T; math.Abs(got-want) > tol {
		t.Errorf("weighted freshness %.12f, brute force %.12f", got, want)
	}
	if got, want := res.Embarrassment, 2*staleW/T; math.Abs(got-want) > tol {
		t.Errorf("embarrassment %.12f, brute force %.12f", got, want)
	}
	if got, want := res.Age, ageW/T; math.Abs(got-want) > tol*want {
		t.Errorf("age %.9f, brute force %.9f", got, want)
	}
	if got, want := res.Harmonic, harmW/T; math.Abs(got-want) > tol*want {
		t.Errorf("harmonic staleness %.9f, brute force %.9f", got, want)
	}
	if len(res.Series) != len(binStale) {
		t.Fatalf("%d series points, want %d", len(res.Series), len(binStale))
	}
	for k, p := range res.Series {
		if math.Abs(p.Freshness-(1-binStale[k]/step)) > tol || math.Abs(p.Age-binAge[k]/step) > 1e-7 {
			t.Errorf("bin %d [%g, %g): F %.9f A %.6f, brute force %.9f %.6f", k, p.Start, p.End, p.Freshness, p.Age, 1-binStale[k]/step, binAge[k]/step)
		}
	}
	// Fetches in the window: 3750, 6250, …, 18750 → 7; every one sees a change.
	if res.Fetches != 7 || res.ChangesDetected != 7 || res.ChangeRatio != 1 {
		t.Errorf("fetches %d, changes %d, ratio %g; want 7, 7, 1", res.Fetches, res.ChangesDetected, res.ChangeRatio)
	}
}

// The series averaged over the window equals the window's freshness and
// age (the series is built independently, from difference arrays).
func TestSeriesMatchesAverages(t *testing.T) {
	const n = 3000
	cfg := Config{Pages: scalePages(n, 3), Seed: 2, Duration: 40 * day, WarmUp: 10 * day, SeriesStep: day / 4}
	res := run(t, cfg, FixedIntervals(constIntervals(n, day), policy.PurelyRandom, 1))
	var f, a float64
	for _, p := range res.Series {
		if p.Start >= cfg.WarmUp {
			f += p.Freshness * (p.End - p.Start)
			a += p.Age * (p.End - p.Start)
		}
	}
	T := res.Window
	if math.Abs(f/T-res.Freshness) > 1e-9 || math.Abs(a/T-res.Age) > 1e-9*res.Age {
		t.Errorf("series average F %.12f A %.6f, window %.12f %.6f", f/T, a/T, res.Freshness, res.Age)
	}
}

// Paper 001 §A.7: with a fixed interval I and Poisson changes, an
// interval's staleness (fetch time minus its first change) reaches x < I
// with probability 1 − e^{−λ(I−x)}; the share of very stale intervals is
// a binomial proportion with standard error √(p(1−p)/intervals).
func TestVeryStaleShare(t *testing.T) {
	const n = 300
	lambda, I, r := 1/day, 2*day, 0.5
	res := run(t, Config{Pages: poissonPages(n, lambda), Seed: 12, Duration: 300 * day, WarmUp: 2 * day, VeryStale: r},
		FixedIntervals(constIntervals(n, I), policy.FixedOrder, 0))
	p := 1 - math.Exp(-lambda*(I-r/lambda))
	se := math.Sqrt(p * (1 - p) / float64(res.Fetches))
	if !within(res.VeryStaleShare, p, se, 4) {
		t.Errorf("very stale share %.4f, want %.4f ± 4×%.4f", res.VeryStaleShare, p, se)
	}
}

// Revisit intervals: fixed order gives exactly I; purely random gives
// exponential intervals, mean I and standard deviation I, the sample mean
// with standard error I/√n and the sample standard deviation with ≈ I/√n
// (the exponential's kurtosis 9 gives √(8/4n)·I).
func TestIntervalSummary(t *testing.T) {
	const n = 200
	I := day
	fixed := run(t, Config{Pages: poissonPages(n, 1/day), Duration: 100 * day, WarmUp: 2 * day},
		FixedIntervals(constIntervals(n, I), policy.FixedOrder, 0)).Intervals
	if math.Abs(fixed.Mean-I) > 1e-6 || fixed.Std > 1e-3 || math.Abs(fixed.P50/I-1) > 0.045 || fixed.Count != int64(98*n) {
		t.Errorf("fixed order: %+v", fixed)
	}
	pr := run(t, Config{Pages: poissonPages(n, 1/day), Duration: 100 * day, WarmUp: 2 * day},
		FixedIntervals(constIntervals(n, I), policy.PurelyRandom, 3)).Intervals
	se := I / math.Sqrt(float64(pr.Count))
	if !within(pr.Mean, I, se, 4) || !within(pr.Std, I, math.Sqrt2*se, 4) {
		t.Errorf("purely random: mean %.0f s, std %.0f s, want %.0f ± %.0f", pr.Mean, pr.Std, I, 4*se)
	}
	// The median of Exp(1/I) is I·ln 2; the histogram is within 2^(1/16).
	if m := pr.P50 / (I * math.Ln2); m < math.Exp2(-1.0/16)-0.02 || m > math.Exp2(1.0/16)+0.02 {
		t.Errorf("purely random median %.0f s, want ≈ %.0f", pr.P50, I*math.Ln2)
	}
}

func TestConfigErrors(t *testing.T) {
	ok := Config{Pages: poissonPages(1, 1), Duration: 10}
	tests := []struct {
		name string
		edit func(*Config)
	}{
		{"no pages", func(c *Config) { c.Pages = nil }},
		{"zero duration", func(c *Config) { c.Duration = 0 }},
		{"warm-up past end", func(c *Config) { c.WarmUp = 10 }},
		{"negative budget", func(c *Config) { c.Budget = -1 }},
		{"negative weight", func(c *Config) { c.Pages = []Page{{Weight: -1}} }},
		{"bad process", func(c *Config) { c.Pages = []Page{{Process: ParetoProcess(1, 0.5)}} }},
		{"negative host", func(c *Config) { c.Pages = []Page{{Host: -1}} }},
		{"NaN delay", func(c *Config) { c.HostDelay = math.NaN() }},
	}
	if _, err := Run(context.Background(), ok, Uniform(1, 1)); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.edit(&c)
			if _, err := Run(context.Background(), c, Uniform(1, 1)); !errors.Is(err, ErrConfig) {
				t.Errorf("err = %v, want ErrConfig", err)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, ok, Uniform(1, 1)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: err = %v", err)
	}
}
