package crawler

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/schedule"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// The refresh policy decides when a held page is fetched again. The
// optimal and proportional policies keep a schedule.Planner: the
// histogram of the held pages' estimated rates, whose counts live in the
// store as counters named planPrefix+"<rate bin>/<weight bin>", changed
// in the same transaction as the page rows, so that a restart rebuilds the
// plan without reading every row. Nutch's and StormCrawler's rules keep
// each page's interval in its row (store.Page.Interval).

const planPrefix = "plan/"

// planBasisSetting records what the plan counters count: planFastBasis
// when planRate gives up pages that change at every visit, "estimate"
// when it is the estimate; a crawl that finds another rebuilds them.
const planBasisSetting = "plan-basis"

// planFastBasis names the rule of censoring.fast; it changes with the
// rule, so that counters counted under an older one are rebuilt.
const planFastBasis = "fast-5"

// planCounter names the store counter of a planner bin.
func planCounter(b schedule.Bin) string {
	return planPrefix + strconv.Itoa(int(b.Rate)) + "/" + strconv.Itoa(int(b.Weight))
}

func parsePlanCounter(name string) (schedule.Bin, bool) {
	r, w, ok := strings.Cut(strings.TrimPrefix(name, planPrefix), "/")
	if !ok {
		return schedule.Bin{}, false
	}
	ri, err1 := strconv.ParseInt(r, 10, 16)
	wi, err2 := strconv.ParseInt(w, 10, 16)
	return schedule.Bin{Rate: int16(ri), Weight: int16(wi)}, err1 == nil && err2 == nil
}

// fastRate stands for the rate of a page that changes faster than any
// visit can follow (planRate): 1,000 changes a second.
const fastRate = 1e3

// planRate is the change rate the refresh plan uses for page p: its
// estimate, except for a page whose every comparison, the shortest (at
// most a sixth of the mean interval) included, found a change (or
// giveUpAfter comparisons did, censoring.fast): that
// page changes faster than the estimators can tell (an interval that
// always changed bounds the rate from below only, and a prior caps the
// estimate near the visit rate), so it is planned as changing at every
// moment, which the freshness optimum gives up (§5.5.4). (Only under
// the objectives that give pages up: the age optimum and the proportional
// baseline plan the estimate, c.planFast false.) The simweb
// comparison (bench/policy-crawl.sh) found half of the pages changing 8
// to 32 times a day, visited every 3 days, estimated at 1–2 a day and
// planned every 30 hours: a fifth of the budget for no freshness. It is a
// function of the row alone, so the plan counters can follow it.
func (c *Crawler) planRate(p *store.Page) float64 {
	return c.rateOf(p, censoringOf(p))
}

// rateOf is planRate for a page whose censoring is cs.
func (c *Crawler) rateOf(p *store.Page, cs censoring) float64 {
	if c.planFast && cs.fast() {
		return fastRate
	}
	return p.Rate
}

// planBin is page p's bin in the plan's histogram.
func (c *Crawler) planBin(p *store.Page) schedule.Bin {
	return schedule.BinOf(c.planRate(p), pageWeight(p))
}

// censoring is what a page's change summary says about how far its
// visits can follow it: allChanged is the number of its comparisons if
// every one found a change (0 otherwise), mean their mean interval in
// seconds, and short whether the shortest of them was at most a sixth of
// the mean, so a change seen even then.
type censoring struct {
	allChanged int
	mean       float64
	short      bool
}

// giveUpAfter is the number of comparisons, every one of which found a
// change, after which a page is planned as changing at every moment even
// though none was short. Probes planned at an eighth of the mean interval
// often come late (a host at capacity stretches them), and each late one
// that sees a change shrinks the mean it is judged against, so the short
// test alone can keep a fast page probing for ever: on simweb, 4,700
// pages changing 8–64 times a day were probed every 8 hours at simulated
// day 14 and took half the budget. A page changing once a day, visited
// every 3 days and then probed three times at 0.4 days, is given up with
// probability 0.92·0.33³ = 3 %.
const giveUpAfter = 5

// fast reports whether the page is planned as changing at every moment:
// every comparison, a short one included, found a change, or
// giveUpAfter of them did.
func (cs censoring) fast() bool {
	return cs.allChanged >= 3 && cs.short || cs.allChanged >= giveUpAfter
}

// censoringOf decodes p's change summary once for planRate and plan.
func censoringOf(p *store.Page) censoring {
	var st change.Stats
	if len(p.Change) == 0 || st.UnmarshalBinary(p.Change) != nil || st.Changed() < st.N()*(1-1e-9) {
		return censoring{}
	}
	mean := st.SumIntervals() / st.N()
	return censoring{allChanged: st.Count(), mean: mean, short: st.MinChanged()*6 <= mean}
}

// pageWeight is a page's importance, the weight of its freshness (§5.6):
// under an importance ordering its PageRank or backlinks over the average
// held page's, as last ranked when it was fetched (Page.Weight), else 1.
// The planner reads zero as 1.
func pageWeight(p *store.Page) float64 { return p.Weight }

// openRefresh sets up the refresh policy: for a planned policy it builds
// the planner from the store's counters, or, if they do not account for
// every held page (a data directory from before them), from the page rows,
// and writes the counters.
func (c *Crawler) openRefresh() error {
	c.planFast = c.cfg.Policy == PolicyOptimal && c.cfg.Objective != ObjectiveAge
	stored, err := c.planCounts()
	if err != nil {
		return err
	}
	var rule schedule.Rule
	switch c.cfg.Policy {
	case PolicyProportional:
		rule = schedule.Proportional
	case PolicyOptimal:
		switch c.cfg.Objective {
		case ObjectiveAge:
			rule = schedule.Age
		case ObjectiveCost:
			rule = schedule.Cost
		default: // freshness, embarrassment
			rule = schedule.Freshness
		}
	default:
		return nil
	}
	pl, err := schedule.NewPlanner(schedule.PlannerConfig{
		Rule: rule, MinInterval: minRevisit.Seconds(), MaxInterval: c.maxRevisit().Seconds(),
		CrawlCost: c.cfg.CrawlCost.Seconds() / c.cfg.TimeScale,
	})
	if err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	for b, n := range stored {
		pl.Add(b, float64(n))
	}
	c.planner = pl
	return nil
}

// planCounts reads the plan counters, rebuilt from the rows if they do not
// account for every held page (a data directory from before them).
func (c *Crawler) planCounts() (map[schedule.Bin]int64, error) {
	stored := map[schedule.Bin]int64{}
	var total int64
	err := c.store.Counters(planPrefix, func(name string, v int64) error {
		if b, ok := parsePlanCounter(name); ok && v != 0 {
			stored[b] = v
			total += v
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("crawl: %w", err)
	}
	basis := "estimate"
	if c.planFast {
		basis = planFastBasis
	}
	was, _, err := c.store.Setting(planBasisSetting)
	if err != nil {
		return nil, fmt.Errorf("crawl: %w", err)
	}
	if total == c.held.Load() && was == basis {
		return stored, nil
	}
	return c.rebuildPlan(stored, basis)
}

// rebuildPlan counts the held pages' bins from their rows and corrects the
// stored counters to match.
func (c *Crawler) rebuildPlan(stored map[schedule.Bin]int64, basis string) (map[schedule.Bin]int64, error) {
	counts := map[schedule.Bin]int64{}
	err := c.store.ForEachPage(func(p store.Page) error {
		if p.Held && p.Kind == KindPage {
			counts[c.planBin(&p)]++
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("crawl: rebuild plan: %w", err)
	}
	txn := c.store.Begin()
	for b, n := range stored {
		txn.Add(planCounter(b), -n)
	}
	for b, n := range counts {
		txn.Add(planCounter(b), n)
	}
	if err := txn.SetSetting(planBasisSetting, basis); err != nil {
		txn.Abort()
		return nil, fmt.Errorf("crawl: rebuild plan: %w", err)
	}
	if err := txn.Commit(); err != nil {
		return nil, fmt.Errorf("crawl: rebuild plan: %w", err)
	}
	return counts, nil
}

// stagePlan moves a page between the planner's bins, in memory and in the
// store counters of txn, as its row goes from prev (held if wasHeld) to p.
// The counters are kept under every policy, so that a data directory
// switched to a planned policy finds them right.
func (c *Crawler) stagePlan(txn *store.Txn, h *host, prev *store.Page, wasHeld bool, p *store.Page) {
	if p.Kind != KindPage {
		return
	}
	from, to := c.planBin(prev), c.planBin(p)
	if wasHeld == p.Held && from == to {
		return
	}
	if c.planner != nil {
		c.planner.Move(from, wasHeld, to, p.Held)
		if wasHeld && !p.Held && prev.Interval > 0 && h != nil {
			c.noteLoad(h, 1/prev.Interval, 0)
		}
	}
	if wasHeld {
		txn.Add(planCounter(from), -1)
	}
	if p.Held {
		txn.Add(planCounter(to), 1)
	}
}

// revisitBudget is the rate of revisits the held pages share, per second:
// the share of Budget the held pages are of the capacity (as the uniform
// interval gives them), or, without a budget, the collection once per
// Revisit interval (DefaultRevisit if unset).
func (c *Crawler) revisitBudget() float64 {
	return float64(c.held.Load()) / c.interval().Seconds()
}

// maxRevisit is the longest revisit interval, on the crawler's clock.
func (c *Crawler) maxRevisit() time.Duration {
	if c.cfg.MaxRevisit > 0 {
		return time.Duration(float64(c.cfg.MaxRevisit) / c.cfg.TimeScale)
	}
	return DefaultMaxRevisits * c.interval()
}

// plannedInterval is the interval the policy wants now between visits of
// the held page p of host h: the planner's for its rate (longer on a host
// whose plan exceeds its capacity, hostScale), the adaptive policies'
// stored interval, or the uniform one.
func (c *Crawler) plannedInterval(h *host, p *store.Page) time.Duration {
	if c.planner != nil {
		return c.stretch(h, c.plan(p))
	}
	return c.policyInterval(p)
}

// policyInterval is plannedInterval before any host's capacity applies.
func (c *Crawler) policyInterval(p *store.Page) time.Duration {
	switch {
	case c.planner != nil:
		return secondsDuration(c.plan(p))
	case (c.cfg.Policy == PolicyNutch || c.cfg.Policy == PolicyStormCrawler) && p.Interval > 0:
		return secondsDuration(p.Interval)
	}
	return c.interval()
}

// plan is the planner's interval for p, in seconds. The planner divides
// the revisit budget plus what hosts at capacity cannot take (c.excess):
// the frequencies it plans for them beyond their capacity are not
// fetched, so that much is given to the others.
func (c *Crawler) plan(p *store.Page) float64 {
	c.planner.SetBudget(c.revisitBudget() + c.excess())
	c.planner.SetMaxInterval(c.maxRevisit().Seconds())
	cs := censoringOf(p)
	iv := c.planner.Interval(c.rateOf(p, cs), pageWeight(p))
	if c.planFast && cs.allChanged >= 2 && !cs.short && !cs.fast() {
		// Every visit found a change, none at a short interval: the
		// estimate is a floor the visits cannot raise. One visit at an
		// eighth of the mean interval tells a page that changes a few
		// times per interval (it changes in that eighth with probability
		// 1 − e^{−λI/8}: 18 % for a page changing every 2 days visited
		// every 3) from one that changes at every moment (96 % at 8 a
		// day), which planRate then gives up.
		iv = min(iv, cs.mean/8)
	}
	return max(iv, minRevisit.Seconds())
}

// Host capacity. A host takes at most one request at a time and waits its
// delay after each, so it serves at most 1/(delay + response time)
// fetches a second (Kolobov et al., SIGIR 2019, were the first to put this
// limit into refresh scheduling). Under a planned policy each host keeps
// the planned frequency of its held pages (load); a host whose load
// exceeds its capacity has its pages' intervals stretched by load/capacity
// (scale), and the excess, summed over hosts (c.excess), is added to what
// the planner divides, so the others get the budget it cannot use. This
// is the host constraint of the optimum met by scaling a saturated host's
// plan rather than by its own multiplier; the loads live in memory and are
// rebuilt by the first round of revisits after a restart.

// capacity is the host's fetches per second.
func (h *host) capacity() float64 {
	return 1 / (max(h.delay.Seconds(), 0) + max(h.service, 1e-3))
}

// scale is the factor the host's planned intervals are stretched by.
func (h *host) scale() float64 {
	if c := h.capacity(); h.load > c {
		return h.load / c
	}
	return 1
}

// stretch is a planned interval iv (seconds) on host h: scaled by the
// host's load over its capacity, but no further than the longest revisit
// interval (politeness holds the host back anyway).
func (c *Crawler) stretch(h *host, iv float64) time.Duration {
	return secondsDuration(min(iv*h.scale(), max(iv, c.maxRevisit().Seconds())))
}

// noteService folds a response time into the host's moving average.
func (h *host) noteService(d time.Duration) {
	if h.service == 0 {
		h.service = d.Seconds()
		return
	}
	h.service += (d.Seconds() - h.service) / 16
}

// noteLoad replaces a page's planned frequency old with new (per second,
// 0 for none) in its host's load and the crawl's excess. Committer only.
func (c *Crawler) noteLoad(h *host, old, new float64) {
	if c.planner == nil || old == new {
		return
	}
	h.load = max(h.load-old+new, 0)
	e := max(h.load-h.capacity(), 0)
	c.excessBits.Store(math.Float64bits(max(c.excess()+e-h.excess, 0)))
	h.excess = e
}

// excess is the planned frequency hosts at capacity cannot take.
func (c *Crawler) excess() float64 { return math.Float64frombits(c.excessBits.Load()) }

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

// scheduleRevisit sets p.NextDue after a fetch at now that answered 200
// or 304 (changed: the content differed) for a held page of host h
// (prevHeld: held before this fetch), and keeps the policies' state in the
// row: the adaptive policies' interval, or the planned interval before the
// host's capacity stretched it, whose frequency is in the host's load.
func (c *Crawler) scheduleRevisit(h *host, p *store.Page, prevHeld bool, v *store.Visit, changed bool, now time.Time) {
	if changed {
		p.Modified = now
	}
	if !v.Modified.IsZero() {
		p.Modified = v.Modified
	}
	switch c.cfg.Policy {
	case PolicyNutch:
		scale := c.cfg.TimeScale
		rule := policy.NutchAdaptive{
			Default: c.interval().Seconds(),
			Min:     policy.NutchMinInterval / scale, Max: policy.NutchMaxInterval / scale,
		}
		np := policy.NutchPage{Interval: p.Interval, Modified: math.NaN()}
		if !p.Modified.IsZero() {
			np.Modified = seconds(p.Modified)
		}
		t := seconds(now)
		next := rule.Next(&np, t, change.Observation{Changed: changed, SinceModified: -1})
		p.Interval = np.Interval
		p.NextDue = now.Add(secondsDuration(next - t))
	case PolicyStormCrawler:
		scale := c.cfg.TimeScale
		rule := policy.StormCrawler{
			Default: c.interval().Seconds(),
			Min:     policy.StormMinInterval / scale, Max: policy.StormMaxInterval / scale,
		}
		t := seconds(now)
		next := rule.Next(&p.Interval, t, policy.StatusFetched, changed)
		p.NextDue = now.Add(secondsDuration(next - t))
	default:
		if c.planner == nil {
			p.NextDue = now.Add(c.interval())
			return
		}
		iv := c.plan(p)
		old := 0.0
		if prevHeld && p.Interval > 0 {
			old = 1 / p.Interval
		}
		c.noteLoad(h, old, 1/iv)
		p.Interval = iv
		p.NextDue = now.Add(c.stretch(h, iv))
	}
}

// retryInterval is when a page whose fetch failed transiently (network
// error, 5xx, 429 after the last attempt) is tried again: StormCrawler's
// fixed error interval under its policy, else the uniform interval.
func (c *Crawler) retryInterval(p *store.Page) time.Duration {
	if c.cfg.Policy == PolicyStormCrawler && p.Kind == KindPage {
		rule := policy.StormCrawler{OnFetchError: policy.StormFetchError / c.cfg.TimeScale}
		return secondsDuration(rule.Next(&p.Interval, 0, policy.StatusFetchError, false))
	}
	return c.interval()
}
