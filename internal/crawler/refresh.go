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

// pageWeight is a page's importance, the weight of its freshness (§5.6).
// Until importance is computed (ranking), every page weighs 1.
func pageWeight(*store.Page) float64 { return 1 }

// openRefresh sets up the refresh policy: for a planned policy it builds
// the planner from the store's counters, or, if they do not account for
// every held page (a data directory from before them), from the page rows,
// and writes the counters.
func (c *Crawler) openRefresh() error {
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
	if total == c.held.Load() {
		return stored, nil
	}
	return c.rebuildPlan(stored)
}

// rebuildPlan counts the held pages' bins from their rows and corrects the
// stored counters to match.
func (c *Crawler) rebuildPlan(stored map[schedule.Bin]int64) (map[schedule.Bin]int64, error) {
	counts := map[schedule.Bin]int64{}
	err := c.store.ForEachPage(func(p store.Page) error {
		if p.Held && p.Kind == KindPage {
			counts[schedule.BinOf(p.Rate, pageWeight(&p))]++
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
	if err := txn.Commit(); err != nil {
		return nil, fmt.Errorf("crawl: rebuild plan: %w", err)
	}
	return counts, nil
}

// stagePlan moves a page between the planner's bins, in memory and in the
// store counters of txn, as its row goes from prev (held if wasHeld) to p.
// The counters are kept under every policy, so that a data directory
// switched to a planned policy finds them right.
func (c *Crawler) stagePlan(txn *store.Txn, prev *store.Page, wasHeld bool, p *store.Page) {
	if p.Kind != KindPage {
		return
	}
	from, to := schedule.BinOf(prev.Rate, pageWeight(prev)), schedule.BinOf(p.Rate, pageWeight(p))
	if wasHeld == p.Held && from == to {
		return
	}
	if c.planner != nil {
		c.planner.Move(from, wasHeld, to, p.Held)
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
// the held page p: the planner's for its rate, the adaptive policies'
// stored interval, or the uniform one.
func (c *Crawler) plannedInterval(p *store.Page) time.Duration {
	switch {
	case c.planner != nil:
		c.planner.SetBudget(c.revisitBudget())
		c.planner.SetMaxInterval(c.maxRevisit().Seconds())
		return secondsDuration(c.planner.Interval(p.Rate, pageWeight(p)))
	case (c.cfg.Policy == PolicyNutch || c.cfg.Policy == PolicyStormCrawler) && p.Interval > 0:
		return secondsDuration(p.Interval)
	}
	return c.interval()
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

// scheduleRevisit sets p.NextDue after a fetch at now that answered 200
// or 304 (changed: the content differed) for a held page, and keeps the
// adaptive policies' state in the row.
func (c *Crawler) scheduleRevisit(p *store.Page, v *store.Visit, changed bool, now time.Time) {
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
		p.NextDue = now.Add(c.plannedInterval(p))
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
