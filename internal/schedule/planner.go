package schedule

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// Rule is how a Planner turns a page's change rate and weight into a
// revisit frequency.
type Rule uint8

// The rules. Freshness and Age are the dissertation's optima (§5.5.4,
// weighted §5.6); Cost is paper 001's staleness-cost optimum, which needs
// no budget (see PlannerConfig.CrawlCost).
const (
	Uniform       Rule = iota // every page equally often
	Proportional              // in proportion to the change rate (§5.5.2)
	Freshness                 // maximise weighted time-averaged freshness
	Age                       // minimise weighted time-averaged age
	Cost                      // minimise crawl cost plus staleness cost (paper 001)
	Harmonic                  // minimise weighted time-averaged harmonic staleness (Kolobov et al.)
	LambdaCrawl               // baseline: Kolobov et al.'s harmonic optimum for Poisson crawls
	BinaryPoisson             // baseline: Azar et al.'s freshness optimum for Poisson crawls
)

var ruleNames = [...]string{"uniform", "proportional", "freshness", "age", "cost", "harmonic", "lambdacrawl", "binary-poisson"}

func (r Rule) String() string {
	if int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return fmt.Sprintf("Rule(%d)", r)
}

// PlannerConfig configures a Planner.
type PlannerConfig struct {
	Rule Rule
	// MinInterval and MaxInterval bound every page's interval, in seconds.
	// A page the rule gives up (the freshness optimum abandons pages that
	// change too fast for their weight, and pages seen never to change get
	// no visits) is visited every MaxInterval, so that a wrong estimate
	// can still be corrected; those probes are paid out of the budget.
	// Zero MinInterval means none; zero MaxInterval means
	// policy.DefaultMaxInterval.
	MinInterval, MaxInterval float64
	// CrawlCost is, for Rule Cost, the cost of one fetch over the cost of
	// one second of a stale copy (paper 001's C_c/C_s, in seconds). The
	// optimum of each page is then independent of the others and of the
	// budget: f = λ/g⁻¹(C_c·λ/(C_s·w)), the freshness condition with the
	// cost ratio in place of the budget's multiplier (policy.StalenessCost).
	CrawlCost float64
}

// Planner keeps the revisit plan of a collection whose pages' change
// rates are re-estimated one visit at a time, without a global solve per
// visit (issue 5: "a maintained multiplier, a periodic re-solve").
//
// It holds the distribution of (rate, weight) over the collection as a
// histogram with binsPerOctave bins an octave in each, maintained by Move
// as pages enter, leave or change their estimate, and one number, the
// rule's parameter x (the inverse Lagrange multiplier for Freshness, Age
// and Harmonic, the frequency for Uniform, frequency per unit rate for
// Proportional), re-solved from the histogram so that the collection's
// total frequency equals the budget. Interval then answers for one page in
// O(1) from its own rate and weight and the maintained x. The re-solve is
// lazy: it runs inside Interval once the histogram has moved by a share of
// the collection (resolveShare) or the budget has changed, and it takes a
// few dozen passes over the non-empty bins (at most a few thousand), so
// its cost spread over the visits that triggered it is small (see
// BenchmarkPlannerVisit).
//
// The histogram's bin keys are exposed (Bin, Add) so that a crawler can
// keep the counts in its durable state and rebuild a Planner after a
// restart without reading every page. A Planner is safe for concurrent
// use.
type Planner struct {
	mu      sync.Mutex
	cfg     PlannerConfig
	bins    map[Bin]float64
	pages   float64 // Σ counts
	budget  float64
	x       float64 // solved parameter; 0 before the first solve
	pinned  float64 // the parameter Pin fixed; 0 when the planner solves its own
	moved   float64 // histogram mass moved since the last solve
	dirty   bool
	solves  int
	scratch []binCount
	// yield is the share of the pulls planned that are made, gap the
	// interval between a site's signals (SetSignals).
	yield, gap float64
}

// Bin identifies a histogram cell: a rate and a weight octave fraction,
// and whether its pages are signalled: their site says when they change
// (a trusted sitemap), and they are fetched on those signals (SignalRate).
type Bin struct {
	Rate, Weight int16
	Signalled    bool
}

// SignalProbe is the longest interval of a signalled page, in longest
// intervals (MaxInterval): a sitemap that stops signalling is caught so.
const SignalProbe = 4

// binsPerOctave is the histogram's resolution: a rate is represented by
// its bin's geometric centre, at most 2^(1/128) − 1 ≈ 0.54 % away. With
// 16 bins an octave the plan under-spent the budget by 2 % on log-uniform
// rates (pages near the freshness optimum's cut-off are sensitive); with 64
// by less than 1 % (TestPlannerMatchesAllocator).
const binsPerOctave = 64

// zeroRate is the bin of pages whose estimated rate is 0.
const zeroRate = math.MinInt16

// resolveShare is the share of the collection whose bins must have moved
// before Interval re-solves: 1/64 keeps the multiplier within a fraction of
// a percent of the exact one (TestPlannerTracksExact) while a collection of
// N pages re-solves once every N/64 updates.
const resolveShare = 1.0 / 64

// minResolve is the least number of moves between re-solves, so that a
// small collection does not re-solve on every visit. A re-solve also waits
// for as many moves as there are non-empty bins, which bounds its cost per
// visit by a few dozen frequency evaluations.
const minResolve = 64

// ErrPlanner reports an invalid planner configuration or input.
var ErrPlanner = errors.New("schedule: planner")

// NewPlanner returns an empty Planner.
func NewPlanner(cfg PlannerConfig) (*Planner, error) {
	switch {
	case cfg.Rule > BinaryPoisson:
		return nil, fmt.Errorf("%w: unknown rule %d", ErrPlanner, cfg.Rule)
	case cfg.MinInterval < 0 || cfg.MaxInterval < 0 || math.IsNaN(cfg.MinInterval) || math.IsNaN(cfg.MaxInterval):
		return nil, fmt.Errorf("%w: intervals %g, %g", ErrPlanner, cfg.MinInterval, cfg.MaxInterval)
	case cfg.Rule == Cost && !(cfg.CrawlCost > 0 && cfg.CrawlCost < math.Inf(1)):
		return nil, fmt.Errorf("%w: crawl cost %g must be positive", ErrPlanner, cfg.CrawlCost)
	}
	if cfg.MaxInterval == 0 {
		cfg.MaxInterval = policy.DefaultMaxInterval
	}
	if cfg.MinInterval > cfg.MaxInterval {
		return nil, fmt.Errorf("%w: min interval %g > max interval %g", ErrPlanner, cfg.MinInterval, cfg.MaxInterval)
	}
	return &Planner{cfg: cfg, bins: map[Bin]float64{}, dirty: true, yield: 1}, nil
}

// Config returns the planner's configuration, defaults filled in.
func (p *Planner) Config() PlannerConfig { return p.cfg }

// BinOf returns the histogram bin of a page of the given rate (changes per
// second, ≥ 0) and weight (> 0; 0 is taken as 1).
func BinOf(rate, weight float64) Bin {
	return Bin{Rate: octave(rate), Weight: octave(weightOr1(weight))}
}

func weightOr1(w float64) float64 {
	if !(w > 0) || math.IsInf(w, 1) {
		return 1
	}
	return w
}

func octave(v float64) int16 {
	if !(v > 0) {
		return zeroRate
	}
	k := math.Floor(math.Log2(v) * binsPerOctave)
	return int16(min(max(k, zeroRate+1), math.MaxInt16))
}

// centre is the value a bin stands for: the geometric centre of its range.
func centre(k int16) float64 {
	if k == zeroRate {
		return 0
	}
	return math.Exp2((float64(k) + 0.5) / binsPerOctave)
}

// Add adds delta pages (negative to remove) to bin b. Counts never go
// below zero: removing from an empty bin is ignored.
func (p *Planner) Add(b Bin, delta float64) {
	p.mu.Lock()
	p.add(b, delta)
	p.mu.Unlock()
}

func (p *Planner) add(b Bin, delta float64) {
	if delta == 0 {
		return
	}
	c := p.bins[b]
	n := max(c+delta, 0)
	p.pages += n - c
	p.moved += math.Abs(n-c) / 2 // a Move is a removal and an addition
	if n == 0 {
		delete(p.bins, b)
	} else {
		p.bins[b] = n
	}
}

// Move records that a page left bin from (if it was in the collection,
// wasIn) and entered bin to (if it is now, isIn). It is the one call a
// crawler makes per visit.
func (p *Planner) Move(from Bin, wasIn bool, to Bin, isIn bool) {
	if wasIn == isIn && from == to {
		return
	}
	p.mu.Lock()
	if wasIn {
		p.add(from, -1)
	}
	if isIn {
		p.add(to, 1)
	}
	p.mu.Unlock()
}

// Pages returns the number of pages the histogram holds.
func (p *Planner) Pages() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pages
}

// Bins calls fn for every non-empty bin, in key order.
func (p *Planner) Bins(fn func(b Bin, count float64)) {
	p.mu.Lock()
	keys := make([]Bin, 0, len(p.bins))
	for b := range p.bins {
		keys = append(keys, b)
	}
	counts := make([]float64, len(keys))
	sort.Slice(keys, func(i, j int) bool { return less(keys[i], keys[j]) })
	for i, b := range keys {
		counts[i] = p.bins[b]
	}
	p.mu.Unlock()
	for i, b := range keys {
		fn(b, counts[i])
	}
}

func less(a, b Bin) bool {
	if a.Signalled != b.Signalled {
		return !a.Signalled
	}
	if a.Rate != b.Rate {
		return a.Rate < b.Rate
	}
	return a.Weight < b.Weight
}

// SetBudget sets the total revisit frequency to divide, in visits per
// second. A change of more than 0.1 % re-solves at the next Interval.
func (p *Planner) SetBudget(b float64) {
	if !(b >= 0) || math.IsInf(b, 1) {
		b = 0
	}
	p.mu.Lock()
	if math.Abs(b-p.budget) > 1e-3*p.budget || (b == 0) != (p.budget == 0) {
		p.dirty = true
	}
	p.budget = b
	p.mu.Unlock()
}

// SetMaxInterval changes MaxInterval (seconds, > 0, at least
// MinInterval), as when the collection's mean interval moves; a change of
// more than 1 % re-solves at the next Interval.
func (p *Planner) SetMaxInterval(m float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !(m > 0) || m < p.cfg.MinInterval {
		return
	}
	if math.Abs(m-p.cfg.MaxInterval) > 1e-2*p.cfg.MaxInterval {
		p.dirty = true
	}
	p.cfg.MaxInterval = m
}

// Solves returns how many times the parameter has been re-solved.
func (p *Planner) Solves() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.solves
}

// Interval returns the planned revisit interval, in seconds, of a page of
// the given rate and weight: 1/f for the rule's frequency f at the
// maintained parameter, within [MinInterval, MaxInterval]. With no budget
// (and a rule that needs one) or an empty histogram it returns
// MaxInterval.
func (p *Planner) Interval(rate, weight float64) float64 {
	p.mu.Lock()
	x, lo, hi := p.param(), p.cfg.MinInterval, p.cfg.MaxInterval
	p.mu.Unlock()
	if x == 0 && p.cfg.Rule != Cost {
		return hi
	}
	return bound(p.freq(rate, weightOr1(weight), x), lo, hi)
}

// Multiplier returns the Lagrange multiplier μ of the rules that solve for
// one (Freshness, Age, Harmonic and the Poisson baselines) at the
// maintained parameter (its inverse), re-solving first if the plan has
// moved; 0 before there is a plan, and for Uniform, Proportional and Cost.
func (p *Planner) Multiplier() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cfg.Rule < Freshness || p.cfg.Rule == Cost {
		return 0
	}
	if x := p.param(); x > 0 {
		return 1 / x
	}
	return 0
}

// param is the parameter Interval answers at: the pinned one, or the
// solved one, re-solved first if the plan has moved. Call with mu held.
func (p *Planner) param() float64 {
	switch {
	case p.cfg.Rule == Cost:
		return 0
	case p.pinned > 0:
		return p.pinned
	case p.dirty || p.moved >= max(minResolve, resolveShare*p.pages, float64(len(p.bins))):
		p.solve()
	}
	return p.x
}

// Param returns the rule's parameter x that Interval answers at (the
// inverse multiplier of the rules that solve for one, the frequency of
// Uniform, the frequency per unit rate of Proportional): pinned, or solved
// so that the histogram's load meets the budget; 0 before there is a plan
// and for Cost.
func (p *Planner) Param() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.param()
}

// Pin fixes the parameter at x, solved elsewhere: a cluster's partitions
// each keep a Planner of their own pages, and one Planner of every
// partition's histogram, with the cluster's budget, solves the x they all
// plan at, so that the cluster divides its budget as one crawl would
// (refresh.SharePlan). Until Pin(0), Interval answers at x and the
// planner's own budget is not solved for.
func (p *Planner) Pin(x float64) {
	if !(x > 0) || math.IsInf(x, 1) {
		x = 0
	}
	p.mu.Lock()
	if x == 0 && p.pinned != 0 {
		p.dirty = true
	}
	p.pinned = x
	p.mu.Unlock()
}

// Load returns the visits per second the histogram's pages ask for at
// parameter x: Σ count/Interval, each interval within [MinInterval,
// MaxInterval]. A cluster's plan gives each partition the budget its
// pages' load at the shared x comes to.
func (p *Planner) Load(x float64) float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fill()
	return p.load(x)
}

// Frequency returns 1/Interval.
func (p *Planner) Frequency(rate, weight float64) float64 {
	return 1 / p.Interval(rate, weight)
}

// bound returns 1/f within [lo, hi]: hi for a frequency of zero.
func bound(f, lo, hi float64) float64 {
	I := hi
	if f > 0 {
		I = min(1/f, hi)
	}
	return max(I, lo)
}

// freq is the rule's unbounded frequency for one page at parameter x.
func (p *Planner) freq(rate, w, x float64) float64 {
	switch p.cfg.Rule {
	case Uniform:
		return x
	case Proportional:
		return x * rate
	case Freshness:
		return policy.FreshnessFrequency(rate, w, 1/x)
	case Age:
		return policy.AgeFrequency(rate, w, 1/x)
	case Harmonic:
		return policy.HarmonicFrequency(rate, w, 1/x)
	case LambdaCrawl:
		return policy.LambdaCrawlFrequency(rate, w, 1/x)
	case BinaryPoisson:
		return policy.BinaryPoissonFrequency(rate, w, 1/x)
	default: // Cost
		return policy.FreshnessFrequency(rate, w, p.cfg.CrawlCost)
	}
}

// SignalRate is the pulls per second a signalled page of the given rate
// and weight is planned for at the maintained parameter (signalRate),
// times the share of the pulls planned that are made (SetSignals).
func (p *Planner) SignalRate(rate, weight float64) float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.yield * p.signalRate(rate, weightOr1(weight), p.param())
}

// Pulls is the pulls per second the plan counts on at the maintained
// parameter, before the yield: Σ signalRate over the signalled pages.
func (p *Planner) Pulls() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	x := p.param()
	p.fill()
	s := 0.0
	for _, c := range p.scratch {
		if c.signalled {
			s += c.count * p.signalRate(c.rate, c.weight, x)
		}
	}
	return s
}

// SignalInterval is a signalled page's interval between visits made
// without a signal, in seconds: down to the signal interval where such a
// visit pays (see blind), at most the probe interval, SignalProbe longest
// intervals.
func (p *Planner) SignalInterval(rate, weight float64) float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	x := p.param()
	return bound(p.blind(rate, weightOr1(weight), x), max(p.cfg.MinInterval, p.gap), SignalProbe*p.cfg.MaxInterval)
}

// SetSignals sets the share of the pulls planned that are made, in (0, 1]
// (a site changing in bursts signals several changes of a page as one),
// and the mean interval in seconds between a site's signals, 0 if unknown.
func (p *Planner) SetSignals(yield, gap float64) {
	if !(yield > 0) || yield > 1 {
		yield = 1
	}
	if !(gap > 0) || math.IsInf(gap, 1) {
		gap = 0
	}
	p.mu.Lock()
	p.dirty = p.dirty || yield != p.yield || gap != p.gap
	p.yield, p.gap = yield, gap
	p.mu.Unlock()
}

// blind is the frequency of a signalled page's visits without a signal at
// parameter x, under Freshness, for a page whose pulls pay. A change waits
// for the next signal, g/2 on average for a signal interval g; a visit at
// v after a signal ends the wait of a change before it g − v early, worth
// v₁ = w·λ·g²/6 a visit (at most w/λ) at any frequency up to 1/g. So the
// optimum is 1/g where v₁ > μ, none where v₁ < μ, anything between at v₁ =
// μ: the frequency rises from 0 to 1/g as v₁ goes from μ to 2μ, so that
// the budget of a bin at the jump is spent.
func (p *Planner) blind(rate, w, x float64) float64 {
	g := p.gap
	if p.cfg.Rule != Freshness || !(g > 0) || p.signalRate(rate, w, x) == 0 {
		return 0
	}
	worth := w * min(rate*g*g/6, 1/rate) * x // v₁/μ
	return min(max(worth-1, 0), 1) / g
}

// signalRate is the rate of fetches a signalled page asks for at
// parameter x. Fetched as soon as it changes, a page stays fresh for the
// Exp(λ) time to its next change, 1/λ on average, for one fetch: worth it
// under Freshness where w/λ ≥ μ = 1/x, and under Cost where w/λ ≥ the crawl
// cost. Under Age every change is fetched (a stale copy ages without
// bound), under Harmonic a change with probability min(1, wx/λ) (the
// optimum of −w·ln p against the price λp/x: Kolobov et al.'s signalled
// pages). The baselines act on no signal.
func (p *Planner) signalRate(rate, w, x float64) float64 {
	switch p.cfg.Rule {
	case Freshness:
		if rate <= w*x {
			return rate
		}
	case Cost:
		if rate*p.cfg.CrawlCost <= w {
			return rate
		}
	case Age:
		return rate
	case Harmonic:
		return min(rate, w*x)
	}
	return 0
}

type binCount struct {
	rate, weight, count float64
	signalled           bool
}

// solve finds x with Σ count·(1/interval) = budget over the histogram. The
// load is nondecreasing in x (each page's frequency is), so a bracket is
// grown from the last x and narrowed by bisection in log x, interpolating
// (regula falsi, Illinois variant) once the bracket is tight. When even
// the least load (everything at MaxInterval) exceeds the budget, or the
// most (everything at MinInterval) falls short, the bound stands.
func (p *Planner) solve() {
	p.solves++
	p.moved, p.dirty = 0, false
	p.fill()
	if len(p.scratch) == 0 || !(p.budget > 0) {
		p.x = 0
		return
	}
	if p.load(0) >= p.budget { // the probes alone spend it: every page at MaxInterval
		p.x = math.SmallestNonzeroFloat64
		return
	}
	x := p.x
	if !(x > 0) || x == math.SmallestNonzeroFloat64 {
		x = p.start()
	}
	lo, hi, flo, fhi := p.bracket(x)
	if fhi < 0 { // the budget exceeds every page at MinInterval
		p.x = hi
		return
	}
	p.x = p.illinois(lo, hi, flo, fhi)
}

// fill puts the histogram's bins into scratch, for load.
func (p *Planner) fill() {
	bc := p.scratch[:0]
	for b, n := range p.bins {
		bc = append(bc, binCount{centre(b.Rate), centre(b.Weight), n, b.Signalled})
	}
	p.scratch = bc
}

// load is Σ count/interval over the histogram (as fill left it in
// scratch) at parameter x: the visits per second the pages would ask for.
func (p *Planner) load(x float64) float64 {
	s := 0.0
	probe := 1 / (SignalProbe * p.cfg.MaxInterval)
	for _, c := range p.scratch {
		if c.signalled {
			visits := max(p.blind(c.rate, c.weight, x), probe)
			s += c.count * (p.yield*p.signalRate(c.rate, c.weight, x) + visits)
			continue
		}
		s += c.count / bound(p.freq(c.rate, c.weight, x), p.cfg.MinInterval, p.cfg.MaxInterval)
	}
	return s
}

// bracket grows [lo, hi] from x by factors of 4 until the load minus the
// budget changes sign across it, and returns it with that excess load at
// both ends. fhi < 0 says no x is enough (hi: where the load stops growing).
func (p *Planner) bracket(x float64) (lo, hi, flo, fhi float64) {
	B := p.budget
	lo, hi = x, x
	flo, fhi = p.load(lo)-B, 0.0
	if flo > 0 {
		hi, fhi = lo, flo
		for range 200 {
			lo /= 4
			if flo = p.load(lo) - B; flo <= 0 {
				break
			}
		}
		return lo, hi, flo, fhi
	}
	fhi = flo
	for range 200 {
		was := fhi
		hi *= 4
		// Saturated: a later, smaller budget is bracketed from here.
		if fhi = p.load(hi) - B; fhi >= 0 || fhi == was {
			break
		}
	}
	return lo, hi, flo, fhi
}

// illinois narrows the bracket [lo, hi], with excess loads flo ≤ 0 ≤ fhi,
// by Illinois regula falsi on ln x until the load is within 1e-5 of the
// budget, and returns the end nearer to it.
func (p *Planner) illinois(lo, hi, flo, fhi float64) float64 {
	B := p.budget
	a, b := math.Log(lo), math.Log(hi)
	fa, fb := flo, fhi
	side := 0
	for range 100 {
		if fb-fa == 0 || math.Abs(fa) <= 1e-5*B || math.Abs(fb) <= 1e-5*B || b-a < 1e-12 {
			break
		}
		c := b - fb*(b-a)/(fb-fa)
		if !(c > a && c < b) {
			c = (a + b) / 2
		}
		fc := p.load(math.Exp(c)) - B
		if fc > 0 {
			b, fb = c, fc
			if side == 1 {
				fa /= 2
			}
			side = 1
		} else {
			a, fa = c, fc
			if side == -1 {
				fb /= 2
			}
			side = -1
		}
	}
	if math.Abs(fa) <= math.Abs(fb) {
		return math.Exp(a)
	}
	return math.Exp(b)
}

// start is a first guess of x: the uniform frequency, scaled to the rule.
func (p *Planner) start() float64 {
	f := p.budget / max(p.pages, 1)
	switch p.cfg.Rule {
	case Proportional:
		sum := 0.0
		for b, n := range p.bins {
			sum += n * centre(b.Rate)
		}
		if sum > 0 {
			return p.budget / sum
		}
		return 1
	case Freshness, Age, Harmonic, LambdaCrawl, BinaryPoisson:
		return f * 1e3
	}
	return f
}
