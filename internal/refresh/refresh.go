// Package refresh is the crawler's UpdateModule (dissertation ch. 7): it
// turns what the visits of a held page showed into the page's estimated
// change rate (ch. 6, paper 001) and the estimate into the page's next
// visit (ch. 5), under the refresh policy the crawl was given.
//
// Its state is the page row (store.Page: the change summary, the rate, the
// policy's interval), a Host per host (what the host's validators and
// sitemaps have earned, its pooled change history, its capacity) and, for
// the planned policies, the plan: a histogram of the held pages' rates and
// one Lagrange multiplier (schedule.Planner), whose counts live in the
// store as counters that change in the same transaction as the rows. The
// crawler calls it at three points of a fetch: before the request
// (Conditional: carry the validators or not; Due: go now or later), when
// the outcome is recorded (Observe, then Revisit, Stage and StagePlan in
// the commit's transaction), and for a failure (Retry).
//
// Everything here is a function of its arguments and the Module's
// configuration: nothing reads the clock, so the crawler, the tests and a
// simulation can run it on any time.
package refresh

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/schedule"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// Name names a refresh policy, as the crawl's -policy flag spells it.
type Name string

// The refresh policies. Optimal is freshcrawl's: every page's rate is
// estimated from its visits (ch. 6, paper 001) and the budget divided by
// the optimum of the Objective (ch. 5), maintained as the estimates
// change. The others are baselines: the uniform interval, proportional to
// the estimated rate (a pitfall, §5.5.2), Nutch's AdaptiveFetchSchedule
// and StormCrawler's adaptive scheduler with their default settings, the
// interval of a new page being the uniform one, a naive crawler's
// round robin: every page held fetched again in turn, the one fetched
// longest ago first, as fast as the budget allows, and the optima of
// Kolobov et al.'s LambdaCrawl (harmonic staleness) and Azar et al.
// (freshness) for Poisson crawls, on the same estimates as Optimal and
// visited at evenly spaced times, as the published baselines for
// Optimal's objectives.
const (
	Optimal       Name = "optimal"
	Uniform       Name = "uniform"
	Proportional  Name = "proportional"
	Nutch         Name = "nutch"
	StormCrawler  Name = "stormcrawler"
	RoundRobin    Name = "roundrobin"
	LambdaCrawl   Name = "lambdacrawl"
	BinaryPoisson Name = "binary-poisson"
)

// Names lists the refresh policies.
var Names = []Name{Optimal, Uniform, Proportional, Nutch, StormCrawler, RoundRobin, LambdaCrawl, BinaryPoisson}

// Objective names what the optimal refresh policy optimises.
type Objective string

// The objectives. Embarrassment is paper 002's: the rate at which users
// see stale results, Σ w_i·(stale share of page i), with w_i the page's
// embarrassment weight. Under Poisson changes and evenly spaced visits
// the stale share is 1 − freshness, so it is freshness weighted by the
// pages' weights, which the crawler takes from their importance. Cost is
// paper 001's staleness cost, a fetch costing CrawlCost of staleness.
// Harmonic is Kolobov et al.'s harmonic staleness (policy.OptimalHarmonic):
// a copy that missed N changes costs 1 + 1/2 + … + 1/N, so no page is
// given up, the first missed change counting most.
const (
	Freshness     Objective = "freshness"
	Age           Objective = "age"
	Embarrassment Objective = "embarrassment"
	Cost          Objective = "cost"
	Harmonic      Objective = "harmonic"
)

// Objectives lists the objectives.
var Objectives = []Objective{Freshness, Age, Embarrassment, Cost, Harmonic}

// Defaults for zero fields of Config.
const (
	// DefaultRevisit is the revisit interval of a crawl with neither a
	// budget nor an interval of its own.
	DefaultRevisit = 24 * time.Hour
	// DefaultCrawlCost makes a fetch cost as much as one hour of a stale
	// copy: a page changing daily is then fetched about every 9 hours.
	DefaultCrawlCost = time.Hour
	// DefaultMaxRevisits is MaxRevisit's default in uniform intervals:
	// how long a page the plan gives up waits for its probe. The
	// simulator, whose pages keep their rates, found probes every 20
	// uniform intervals as fresh as any longer. On the web rates drift and
	// change comes in sweeps: a page given up for changing at every visit
	// may have had a burst, and waits out its probe stale. Measured
	// through the crawler (15 min, minutes 5–15), the bursty world held
	// 0.6425 with probes every 2 uniform intervals against 0.6280 every 5
	// (its copies 21 days old on average against 31), the PEPs' replay
	// 0.8709 against 0.8661, and simweb's demo web the same (held 0.7025
	// against 0.6998). Probes also find the pages born since (the fastest
	// pages carry the newest links).
	DefaultMaxRevisits = 2
	// DefaultChangeMemory is the default ChangeDecay in revisit intervals.
	// The accuracy study (freshcrawl accuracy, the rate-switch table)
	// chose it: at 25 a 4-fold change of rate is followed within 25 % in
	// about 50 visits with Last-Modified and 70-90 without, at 18 % noise;
	// at 50 it takes 90-100 visits with Last-Modified and is never
	// followed without.
	DefaultChangeMemory = 25
)

// ErrConfig is wrapped by New's errors about the configuration.
var ErrConfig = errors.New("invalid refresh configuration")

// Config configures a Module. A zero field takes its documented default.
type Config struct {
	// Policy is the refresh policy; empty means Optimal.
	Policy Name
	// Objective is what Optimal optimises; empty means Freshness.
	Objective Objective
	// CrawlCost is, for the Cost objective, what one fetch costs in
	// seconds of a page being stale on the servers' clock (paper 001's
	// C_c/C_s). Zero means DefaultCrawlCost.
	CrawlCost time.Duration
	// MaxRevisit is the longest interval a held page waits, on the
	// servers' clock; pages the optimal policy gives up are probed this
	// often so that a wrong estimate is corrected. Zero means
	// DefaultMaxRevisits uniform intervals.
	MaxRevisit time.Duration
	// Revisit is the uniform interval between visits of a held page. Zero
	// means the one that fits the Budget: Capacity / Budget, the capacity
	// being the pages held and the new URLs queued if it is zero (so
	// revisits take the share of the budget the pages held are of it, and
	// discovery the rest), or
	// DefaultRevisit without a budget. With a Revisit and no Budget, the
	// planned policies divide as many visits (the collection every
	// Revisit) as the uniform policy would.
	Revisit time.Duration
	// Budget is the crawl's fetches per second; zero means no limit.
	Budget float64
	// NoSignals reads sitemaps for new URLs only: their lastmod dates are
	// never judged against the pages' changes, so no sitemap earns trust,
	// and none brings a revisit forward or says when a page changed. Trust
	// (or distrust) earned in an earlier run is set aside, not erased: it
	// stays stored for a later run with signals. It is the baseline that
	// shows what the signals are worth.
	NoSignals bool
	// Capacity is the collection's size in pages; zero means no limit.
	Capacity int
	// ChangeDecay is the time constant of the estimators' forgetting: an
	// observation made that long ago weighs 1/e of a new one, so estimates
	// follow pages whose rate changes. Zero means DefaultChangeMemory
	// uniform intervals; negative, no forgetting.
	ChangeDecay time.Duration
	// TimeScale is how many seconds pass on the servers' clocks for each
	// second of the crawler's: 1 on the real web, the speed-up of a
	// simulated web like simweb's. It relates Last-Modified ages to the
	// crawler's clock. Zero means 1.
	TimeScale float64
	// Logger receives warnings about unreadable records; nil means
	// slog.Default().
	Logger *slog.Logger
	// Now is the crawler's clock; nil means time.Now.
	Now func() time.Time
}

// Check reports what is wrong with the configuration, as Open would.
func (c Config) Check() error { return c.defaults() }

func (c *Config) defaults() error {
	if c.Policy == "" {
		c.Policy = Optimal
	}
	if !slices.Contains(Names, c.Policy) {
		return fmt.Errorf("%w: refresh policy %q (want one of %v)", ErrConfig, c.Policy, Names)
	}
	if c.Objective == "" {
		c.Objective = Freshness
	}
	if !slices.Contains(Objectives, c.Objective) {
		return fmt.Errorf("%w: objective %q (want one of %v)", ErrConfig, c.Objective, Objectives)
	}
	if c.CrawlCost == 0 {
		c.CrawlCost = DefaultCrawlCost
	}
	switch {
	case c.Policy == RoundRobin && c.Budget <= 0:
		// Every page is due again once fetched: without a budget each
		// host would be fetched round and round as fast as its delay lets.
		return fmt.Errorf("%w: refresh policy %s needs a budget", ErrConfig, RoundRobin)
	case c.CrawlCost < 0 || c.MaxRevisit < 0:
		return fmt.Errorf("%w: negative crawl cost or max revisit interval", ErrConfig)
	case c.Revisit < 0 || c.Budget < 0 || c.Capacity < 0:
		return fmt.Errorf("%w: negative revisit interval, budget or capacity", ErrConfig)
	case c.TimeScale == 0:
		c.TimeScale = 1
	case !(c.TimeScale > 0) || math.IsInf(c.TimeScale, 1):
		return fmt.Errorf("%w: time scale %g", ErrConfig, c.TimeScale)
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return nil
}

// Size is what the module needs to know of the crawl's size, read at each
// decision: the uniform interval follows it.
type Size interface {
	// Held is the number of pages in the collection.
	Held() int64
	// Queued is the number of new URLs waiting for their first fetch.
	Queued() int64
}

// Module is the UpdateModule of one crawl. Its methods may be called by
// the crawler's workers (Conditional, Due) and committer (the others) at
// once, as long as one Host is only touched by one of them at a time: the
// crawler's rule that a host is busy, worker then committer, from dispatch
// to release.
type Module struct {
	cfg    Config
	size   Size
	store  *store.Store
	policy Policy
	// planner is the plan of the optimal, proportional and Poisson-crawl
	// policies; nil under the others.
	planner *schedule.Planner
	// planFast is set when the plan gives up pages that change at every
	// visit (planRate); acts when it also acts on news: sweeps, sitemap
	// signals and the new URLs a page reveals.
	planFast, acts bool
	// excessBits holds the float64 sum of the hosts' planned frequency
	// beyond their capacity (capacity.go); written by the committer.
	excessBits atomic.Uint64
	// basePrior is the change-rate prior of pages of a host with too
	// little history of its own.
	basePrior change.Prior
	// pool is the crawl's pooled change history, all hosts together
	// (committer only), and poolPrior the prior learnt from it when it
	// had poolAt observations (crawlPrior).
	pool      change.Stats
	poolPrior change.Prior
	poolAt    int
	log       *slog.Logger
	// expect is the collection's expected freshness and age and its rate
	// histogram (expect.go).
	expect expectSums
	// shared is the cluster's plan, nil outside a cluster (share.go);
	// shareMu orders its changes with the planner's pin.
	shared  atomic.Pointer[Shared]
	shareMu sync.Mutex
	// yield is what the crawl has seen of its signals (signals.go).
	yield signalYield
}

// Open returns the module of the crawl whose state is s, its plan built
// from the store's counters (or, if they do not account for every held
// page, rebuilt from the rows, which it writes back).
func Open(cfg Config, s *store.Store, size Size) (*Module, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	m := &Module{cfg: cfg, size: size, store: s, basePrior: defaultPrior(cfg.TimeScale), log: cfg.Logger}
	m.planFast, m.acts = cfg.planFast(), cfg.acts()
	if err := m.openPlan(); err != nil {
		return nil, err
	}
	if err := m.openExpect(); err != nil {
		return nil, err
	}
	m.policy = m.newPolicy()
	return m, nil
}

// Policy returns the refresh policy the module runs.
func (m *Module) Policy() Policy { return m.policy }

// Config returns the module's configuration, defaults filled in.
func (m *Module) Config() Config { return m.cfg }

// Uniform is the uniform revisit interval: the configured one, the
// cluster's (SetShared), or the one that fits the budget.
func (m *Module) Uniform() time.Duration {
	if sh := m.shared.Load(); sh != nil && sh.Uniform > 0 && m.cfg.Revisit <= 0 {
		return sh.Uniform
	}
	return m.cfg.uniform(m.size.Held(), m.size.Queued())
}

// uniform is the uniform revisit interval of a crawl that holds held
// pages and has queued new URLs waiting.
func (c *Config) uniform(held, queued int64) time.Duration {
	if c.Revisit > 0 {
		return c.Revisit
	}
	if c.Budget <= 0 {
		return DefaultRevisit
	}
	capacity := float64(c.Capacity)
	if capacity == 0 {
		// No capacity: the pages held and the new URLs waiting are the
		// best guess of what the collection will hold. (The URLs seen
		// were, until the ones gone, moved or disallowed, never to be
		// held, kept a share of the budget from the revisits: on the Go
		// website's history, whose deleted pages were a quarter of the
		// URLs seen, a fifth of the budget went unspent, the queue empty
		// and the revisits planned for three quarters of it.)
		capacity = float64(max(held+queued, 1))
	}
	return max(time.Second, time.Duration(capacity/c.Budget*float64(time.Second)))
}

// maxRevisit is the longest revisit interval, on the crawler's clock.
func (m *Module) maxRevisit() time.Duration { return m.cfg.maxRevisit(m.Uniform()) }

// maxRevisit is the longest revisit interval, on the crawler's clock, for
// the uniform interval u.
func (c *Config) maxRevisit(u time.Duration) time.Duration {
	if c.MaxRevisit > 0 {
		return time.Duration(float64(c.MaxRevisit) / c.TimeScale)
	}
	return DefaultMaxRevisits * u
}

// decay is the estimators' forgetting time constant in seconds, 0 for none.
func (m *Module) decay() float64 {
	switch {
	case m.cfg.ChangeDecay > 0:
		return m.cfg.ChangeDecay.Seconds()
	case m.cfg.ChangeDecay < 0:
		return 0
	}
	return DefaultChangeMemory * m.Uniform().Seconds()
}

// minRevisit is the shortest interval any policy gives a page; the
// planner knows it, so the budget a floor leaves unspent goes to others.
const minRevisit = time.Millisecond

// secondsDuration converts seconds to a Duration, at least minRevisit.
func secondsDuration(s float64) time.Duration {
	if !(s < float64(math.MaxInt64/int64(time.Second))) {
		return math.MaxInt64
	}
	return max(minRevisit, time.Duration(s*float64(time.Second)))
}

// seconds is t as seconds since the Unix epoch, the estimators' clock.
func seconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
