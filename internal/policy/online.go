package policy

import (
	"errors"
	"fmt"
	"math"

	"github.com/freshcrawl/freshcrawl/internal/change"
)

// Online is freshcrawl's default refresh policy for a crawler that learns
// change rates as it goes. It is crawler-neutral: pages are indices
// 0..n−1, time is seconds on any fixed clock, and all it is told is each
// visit's change.Observation.
//
// Each page keeps a change.Stats; every visit is also added to one pooled
// Stats of the whole collection. Replan (call it periodically, e.g. daily)
// estimates every page's rate and runs the Allocator on the estimates.
// Until the pool has MinPool observations the estimator is change.Auto with
// the base prior (paper 001's); from then on it is empirical Bayes over
// change's rate grid (estimateEB: the collection's mixing weights by EM,
// each page's posterior summarised by change.FreshnessRate), with
// lm-reduced kept for the pages whose Last-Modified change.Auto uses. A page's interval is then
// 1/f_i; a page the allocator gives up (f_i = 0) or visits less often than
// every MaxInterval is visited every MaxInterval, so that a wrong estimate
// can still be corrected (the probe). The probes' cost is taken out of the
// budget before the allocator divides the rest. After a visit at t the
// page is due at t + interval.
//
// Visit is O(1); Replan is O(N) (a few passes of the allocator and one
// estimate per page whose data or prior changed). An Online is not safe for
// concurrent use.
type Online struct {
	cfg      OnlineConfig
	known    bool           // rates are the truth: nothing is estimated
	stats    []change.Stats // per page; nil when known
	pool     change.Stats
	prior    change.Prior // prior the current rates were estimated with
	stale    []bool       // page has new observations since its rate was estimated
	pages    []Page       // rates (estimated or true) and weights
	freq     []float64
	interval []float64 // seconds; +Inf never
	last     []float64 // last visit, NaN before the first
	phase    []float64 // first visit at phase·interval
	givenUp  int       // pages on the probe interval in the last plan
	share    float64   // budget the allocator divided in the last plan
	// The empirical-Bayes estimate (estimateEB): the pages' mixing weights
	// over change's rate grid, each page's relative likelihood under every
	// class (change.GridLen float32s a page, all 0 before its first
	// observation) and whether the weights have been fitted yet.
	pop    change.Population
	lik    []float32
	fitted bool
}

// OnlineConfig configures an Online. Zero values are documented per field.
type OnlineConfig struct {
	// Budget is the fetch rate to divide, in visits per second (> 0).
	Budget float64
	// Allocator divides it; nil means OptimalFreshness.
	Allocator Allocator
	// Weights are the pages' importances (§5.6); nil means all 1.
	Weights []float64
	// MaxInterval is the longest interval any page gets, and the probe
	// interval of pages the allocator gives up, in seconds. Zero means
	// DefaultMaxInterval. An oracle (NewOracle) never probes.
	MaxInterval float64
	// Decay is the change.Stats forgetting time constant τ in seconds;
	// zero keeps every observation.
	Decay float64
	// Base is the prior used until the pool is large enough and the base of
	// the empirical-Bayes prior after; zero means change.Paper001Prior.
	Base change.Prior
	// PriorWeight is the weight of the empirical-Bayes prior; zero means 1.
	PriorWeight float64
	// MinPool is the number of pooled observations from which the
	// empirical-Bayes prior replaces Base; zero means DefaultMinPool.
	MinPool int
}

// Defaults of OnlineConfig.
const (
	// DefaultMaxInterval is 60 days. On the ch. 4 rate mix (10^4 pages, a
	// third of a daily visit each, two tuning seeds) freshness rose with it
	// by about 0.001 a doubling from 7 to 60 days and was flat beyond: the
	// probes cost little (23 % of pages given up, probed every 60 days, take
	// 1 % of the budget) and longer ones mostly lengthen the age.
	DefaultMaxInterval = 60 * 86400.0
	// DefaultMinPool is the pool size at which the empirical-Bayes prior
	// takes over: 1,000 observations estimate a pooled rate to a few %.
	DefaultMinPool = 1000
)

// NewOnline returns an Online for n pages that learns their rates.
func NewOnline(n int, cfg OnlineConfig) (*Online, error) {
	o, err := newOnline(n, cfg)
	if err != nil {
		return nil, err
	}
	o.stats = make([]change.Stats, n)
	for i := range o.stats {
		o.stats[i].Decay = cfg.Decay
	}
	o.pool.Decay = cfg.Decay
	o.stale = make([]bool, n)
	o.lik = make([]float32, n*change.GridLen)
	o.prior = o.cfg.Base
	rate := o.prior.Rate()
	for i := range o.pages {
		o.pages[i].Rate = rate
	}
	return o, o.plan()
}

// NewOracle returns the reference policy: an Online that is told the true
// rates (changes per second, one per page) instead of learning them, with
// the same allocator. It never probes a page the allocator gives up.
func NewOracle(rates []float64, cfg OnlineConfig) (*Online, error) {
	o, err := newOnline(len(rates), cfg)
	if err != nil {
		return nil, err
	}
	o.known = true
	for i, r := range rates {
		o.pages[i].Rate = r
	}
	return o, o.plan()
}

// WithDefaults returns cfg with its zero fields set to their defaults.
func (cfg OnlineConfig) WithDefaults() OnlineConfig {
	if cfg.Allocator == nil {
		cfg.Allocator = OptimalFreshness{}
	}
	if cfg.MaxInterval == 0 {
		cfg.MaxInterval = DefaultMaxInterval
	}
	if cfg.Base == (change.Prior{}) {
		cfg.Base = change.Paper001Prior()
	}
	if cfg.PriorWeight == 0 {
		cfg.PriorWeight = 1
	}
	if cfg.MinPool == 0 {
		cfg.MinPool = DefaultMinPool
	}
	return cfg
}

func newOnline(n int, cfg OnlineConfig) (*Online, error) {
	switch {
	case n <= 0:
		return nil, fmt.Errorf("%w: %d pages", ErrInput, n)
	case !(cfg.Budget > 0) || math.IsInf(cfg.Budget, 1):
		return nil, fmt.Errorf("%w: budget %v", ErrInput, cfg.Budget)
	case cfg.Weights != nil && len(cfg.Weights) != n:
		return nil, fmt.Errorf("%w: %d weights for %d pages", ErrInput, len(cfg.Weights), n)
	case cfg.MaxInterval < 0 || cfg.Decay < 0 || cfg.PriorWeight < 0:
		return nil, fmt.Errorf("%w: negative max interval, decay or prior weight", ErrInput)
	}
	cfg = cfg.WithDefaults()
	o := &Online{cfg: cfg, pages: make([]Page, n), freq: make([]float64, n),
		interval: make([]float64, n), last: make([]float64, n), phase: make([]float64, n)}
	for i := range o.pages {
		if cfg.Weights != nil {
			o.pages[i].Weight = cfg.Weights[i]
		}
		o.last[i] = math.NaN()
		o.phase[i] = (float64(i) + 0.5) / float64(n)
	}
	return o, nil
}

// Len returns the number of pages.
func (o *Online) Len() int { return len(o.pages) }

// Visit records a visit to page i at time t that observed obs (the first
// visit of a page may carry an invalid obs: it only sets the baseline) and
// returns the page's next due time.
func (o *Online) Visit(i int, t float64, obs change.Observation) float64 {
	if !o.known && obs.Valid() {
		o.stats[i].Add(obs, t)
		o.pool.Add(obs, t)
		o.stale[i] = true
	}
	o.last[i] = t
	return t + o.interval[i]
}

// Due returns page i's due time under the current plan: its last visit
// plus its interval or, before its first visit, its phase (i + ½)/n times
// its interval, so that first visits are spread out as in fixed order.
func (o *Online) Due(i int) float64 {
	if math.IsNaN(o.last[i]) {
		return o.phase[i] * o.interval[i]
	}
	return o.last[i] + o.interval[i]
}

// Interval returns page i's current interval in seconds (+Inf: never).
func (o *Online) Interval(i int) float64 { return o.interval[i] }

// Rate returns page i's current rate estimate (the truth for an oracle),
// in changes per second.
func (o *Online) Rate(i int) float64 { return o.pages[i].Rate }

// Frequency returns the allocator's frequency for page i in the current
// plan, visits per second (0: given up).
func (o *Online) Frequency(i int) float64 { return o.freq[i] }

// Prior returns the prior the current estimates were made with.
func (o *Online) Prior() change.Prior { return o.prior }

// GivenUp returns the number of pages held at MaxInterval in the current
// plan: given up by the allocator, or allocated less than one visit per
// MaxInterval.
func (o *Online) GivenUp() int { return o.givenUp }

// Replan re-estimates the rates from everything seen so far and
// re-allocates the budget. An oracle's plan never changes, so Replan does
// nothing for it.
func (o *Online) Replan() error {
	if o.known {
		return nil
	}
	o.estimate()
	return o.plan()
}

// estimate refreshes the rate of every page with new observations, and of
// every page when the empirical-Bayes prior moved by more than 1 %.
func (o *Online) estimate() {
	all := false
	if o.pool.Count() >= o.cfg.MinPool {
		if p, err := change.PriorFromPopulation(&o.pool, o.cfg.Base, o.cfg.PriorWeight); err == nil {
			if math.Abs(p.Rate()/o.prior.Rate()-1) > 0.01 {
				o.prior, all = p, true
			}
		}
	}
	est := change.Auto{Prior: o.prior, LastModified: true}
	if o.pool.Count() >= o.cfg.MinPool {
		o.estimateEB(est)
		return
	}
	for i := range o.pages {
		if all || o.stale[i] {
			o.pages[i].Rate = est.Estimate(&o.stats[i]).Rate
			o.stale[i] = false
		}
	}
}

// EM steps of the empirical-Bayes weights: at the first fit, from uniform
// weights, and at each re-plan after, warm-started from the last.
const (
	firstEMSteps  = 50
	replanEMSteps = 2
)

// estimateEB estimates every page's rate by empirical Bayes over the rate
// grid (change.Empirical, computed here from the cached likelihoods): it
// refreshes the likelihoods of the pages with new observations, takes a
// few EM steps on the population's weights over all pages, and sets each
// page's rate to change.FreshnessRate of its posterior at its own mean
// visit frequency. Pages whose Last-Modified est uses get lm-reduced's
// estimate, and pages never compared yet est's (the prior's rate).
func (o *Online) estimateEB(est change.Auto) {
	const K = change.GridLen
	for i := range o.pages {
		if o.stale[i] {
			change.RelLikelihood(&o.stats[i], o.lik[i*K:i*K])
		}
	}
	steps := replanEMSteps
	if !o.fitted {
		steps, o.fitted = firstEMSteps, true
	}
	o.pop.Fit(o.lik, steps)
	var piBuf, postBuf [K]float64
	pi := o.pop.Weights(piBuf[:0])
	for i := range o.pages {
		s := &o.stats[i]
		switch {
		case est.UsesLastModified(s) || !(s.N() > 0):
			if o.stale[i] || !(s.N() > 0) {
				o.pages[i].Rate = est.Estimate(s).Rate
			}
		default:
			post := change.Posterior(pi, o.lik[i*K:(i+1)*K], postBuf[:0])
			o.pages[i].Rate = change.FreshnessRate(post, s.N()/s.SumIntervals())
		}
		o.stale[i] = false
	}
}

// plan allocates the budget on the current rates and sets the intervals.
// Pages held at MaxInterval (given up, or allocated less) cost 1/MaxInterval
// each, which the allocator cannot see, so the budget it divides is
// reduced by the excess over the budget and the allocation repeated until
// the plan fits within 0.1 %. The search starts from the last plan's share,
// so a re-plan usually takes one round.
func (o *Online) plan() error {
	B := o.cfg.Budget
	share := B
	if o.share > 0 {
		share = o.share
	}
	maxI := o.cfg.MaxInterval
	for round := 0; ; round++ {
		if err := o.cfg.Allocator.Allocate(o.pages, share, o.freq); err != nil {
			return fmt.Errorf("online plan: %w", err)
		}
		load, held := 0.0, 0
		for i, f := range o.freq {
			I := 1 / f // +Inf when f = 0
			switch {
			case o.known: // the truth needs no probe
			case !(I <= maxI):
				I = maxI
				held++
			}
			o.interval[i] = I
			if I < math.Inf(1) {
				load += 1 / I
			}
		}
		o.givenUp = held
		if (load <= B*1.001 && load >= B*0.995) || round == 8 {
			o.share = share
			return nil
		}
		share -= load - B
		share = min(share, B)
		if !(share > 0) {
			return errors.Join(ErrInput, fmt.Errorf("online plan: the probes alone (%d pages every %gs) exceed the budget", held, maxI))
		}
	}
}
