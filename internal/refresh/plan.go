package refresh

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/schedule"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// The plan of the optimal and proportional policies is a schedule.Planner:
// the histogram of the held pages' estimated rates, whose counts live in
// the store as counters named planPrefix+"<rate bin>/<weight bin>",
// changed in the same transaction as the page rows, so that a restart
// rebuilds the plan without reading every row. The counters are kept
// under every policy, so that a data directory switched to a planned
// policy finds them right.

const planPrefix = "plan/"

// planBasisSetting records what the plan counters count: planFastBasis
// when planRate gives up pages that change at every visit, "estimate"
// when it is the estimate, either with "+signals" where signalled pages
// are counted apart; a crawl that finds another rebuilds them.
const planBasisSetting = "plan-basis"

// planFastBasis names the rule of censoring.fast; it changes with the
// rule, so that counters counted under an older one are rebuilt.
const planFastBasis = "fast-5"

// PlanCounter names the store counter of a planner bin; a bin of
// signalled pages ends in "/s".
func PlanCounter(b schedule.Bin) string {
	name := planPrefix + strconv.Itoa(int(b.Rate)) + "/" + strconv.Itoa(int(b.Weight))
	if b.Signalled {
		name += "/s"
	}
	return name
}

// PlanCounters is the prefix of the plan counters' names, for
// store.Counters.
const PlanCounters = planPrefix

func parsePlanCounter(name string) (schedule.Bin, bool) {
	r, w, ok := strings.Cut(strings.TrimPrefix(name, planPrefix), "/")
	if !ok {
		return schedule.Bin{}, false
	}
	w, signalled := strings.CutSuffix(w, "/s")
	ri, err1 := strconv.ParseInt(r, 10, 16)
	wi, err2 := strconv.ParseInt(w, 10, 16)
	return schedule.Bin{Rate: int16(ri), Weight: int16(wi), Signalled: signalled}, err1 == nil && err2 == nil
}

// fastRate stands for the rate of a page that changes faster than any
// visit can follow (planRate): 1,000 changes a second.
const fastRate = 1e3

// PlanRate is the change rate the refresh plan uses for page p: its
// estimate, except for a page whose every comparison, the shortest (at
// most a sixth of the mean interval) included, found a change (or
// giveUpAfter comparisons did, censoring.fast): that page changes faster
// than the estimators can tell (an interval that always changed bounds
// the rate from below only, and a prior caps the estimate near the visit
// rate), so it is planned as changing at every moment, which the
// freshness optimum gives up (§5.5.4). (Only under the objectives that
// give pages up: the age optimum and the proportional baseline plan the
// estimate.) The simweb comparison (bench/policy-crawl.sh) found half of
// the pages changing 8 to 32 times a day, visited every 3 days, estimated
// at 1–2 a day and planned every 30 hours: a fifth of the budget for no
// freshness. It is a function of the row alone, so the plan counters can
// follow it.
func (c Config) PlanRate(p *store.Page) float64 {
	if c.signalled(p) {
		return p.Rate // every pull finds a change: no censoring
	}
	return rateOf(p, censoringOf(p), c.planFast())
}

// signals reports whether page p of host h is a signalled page at now:
// the host's sitemaps have earned trust, and one of them listed the page
// with a lastmod at a read within the probe interval (a page a sitemap
// leaves out, or no longer lists, is never claimed, and planned only for
// probes it would be forgotten).
func (m *Module) signals(h *Host, p *store.Page, now time.Time) bool {
	if !m.acts || m.cfg.NoSignals || p.Kind != store.KindPage || m.planner == nil || !Trusted(m.sitemapAgreement(m.changeOf(h))) {
		return false
	}
	lm, read, err := m.store.LastMod(p.URL)
	return err == nil && !lm.IsZero() && now.Sub(read).Seconds() < schedule.SignalProbe*m.maxRevisit().Seconds()
}

// signalled reports whether the plan treats p as a signalled page.
func (c Config) signalled(p *store.Page) bool { return p.Signalled && c.acts() && !c.NoSignals }

// planFast reports whether the plan gives up pages that change at every
// visit: under the objectives whose optimum gives pages up, and under
// binary-Poisson, whose does too (so that it plans on the same estimates).
func (c Config) planFast() bool {
	return c.acts() || c.Policy == BinaryPoisson
}

// acts reports whether the plan acts on news of changes and of new URLs
// (sweeps, sitemap signals, discovery), which it prices in the freshness
// optimum's multiplier: the optimal policy under the objectives whose
// optimum gives pages up. The baselines act on none.
func (c Config) acts() bool {
	return (c.Policy == Optimal || c.Policy == "") && c.Objective != Age && c.Objective != Harmonic
}

// rateOf is PlanRate for a page whose censoring is cs.
func rateOf(p *store.Page, cs censoring, fast bool) float64 {
	if fast && cs.fast() {
		return fastRate
	}
	return p.Rate
}

// PlanBin is page p's bin in the plan's histogram: the plan counter
// (PlanCounter) that counts it while it is held.
func (c Config) PlanBin(p *store.Page) schedule.Bin {
	b := schedule.BinOf(c.PlanRate(p), p.Weight)
	b.Signalled = c.signalled(p)
	return b
}

// censoring is what a page's change summary says about how far its
// visits can follow it: allChanged is the number of its comparisons if
// every one found a change (0 otherwise), mean their mean interval in
// seconds, and short whether the shortest of them was at most a sixth of
// the mean, so a change seen even then.
type censoring struct {
	compared   int // comparisons made
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

// censoringOf decodes p's change summary once for PlanRate and plan.
func censoringOf(p *store.Page) censoring {
	var st change.Stats
	if len(p.Change) == 0 || st.UnmarshalBinary(p.Change) != nil {
		return censoring{}
	}
	if st.Changed() < st.N()*(1-1e-9) {
		return censoring{compared: st.Count()}
	}
	mean := st.SumIntervals() / st.N()
	return censoring{compared: st.Count(), allChanged: st.Count(), mean: mean, short: st.MinChanged()*6 <= mean}
}

// openPlan builds the planner of a planned policy from the store's
// counters, rebuilt from the page rows if they do not account for every
// held page (a data directory from before them, or counted under another
// rule); under the other policies it only brings the counters up to date.
func (m *Module) openPlan() error {
	stored, err := m.planCounts()
	if err != nil {
		return err
	}
	pl, err := m.cfg.newPlanner(m.maxRevisit())
	if pl == nil || err != nil {
		return err
	}
	for b, n := range stored {
		pl.Add(b, float64(n))
	}
	m.planner = pl
	return nil
}

// newPlanner returns an empty planner of the configured policy, nil for a
// policy that plans nothing; maxRevisit is the longest interval.
func (c *Config) newPlanner(maxRevisit time.Duration) (*schedule.Planner, error) {
	var rule schedule.Rule
	switch {
	case c.Policy == Proportional:
		rule = schedule.Proportional
	case c.Policy == LambdaCrawl:
		rule = schedule.LambdaCrawl
	case c.Policy == BinaryPoisson:
		rule = schedule.BinaryPoisson
	case c.Policy != Optimal:
		return nil, nil
	case c.Objective == Age:
		rule = schedule.Age
	case c.Objective == Cost:
		rule = schedule.Cost
	case c.Objective == Harmonic:
		rule = schedule.Harmonic
	default: // freshness, embarrassment
		rule = schedule.Freshness
	}
	pl, err := schedule.NewPlanner(schedule.PlannerConfig{
		Rule: rule, MinInterval: minRevisit.Seconds(), MaxInterval: maxRevisit.Seconds(),
		CrawlCost: c.CrawlCost.Seconds() / c.TimeScale,
	})
	if err != nil {
		return nil, fmt.Errorf("refresh: %w", err)
	}
	return pl, nil
}

// planCounts reads the plan counters, rebuilt from the rows if they do not
// account for every held page.
func (m *Module) planCounts() (map[schedule.Bin]int64, error) {
	stored := map[schedule.Bin]int64{}
	var total int64
	err := m.store.Counters(planPrefix, func(name string, v int64) error {
		if b, ok := parsePlanCounter(name); ok && v != 0 {
			stored[b] = v
			total += v
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("refresh: %w", err)
	}
	basis := "estimate"
	if m.planFast {
		basis = planFastBasis
	}
	if m.cfg.acts() && !m.cfg.NoSignals {
		basis += "+signals" // PlanBin counts signalled pages apart
	}
	was, _, err := m.store.Setting(planBasisSetting)
	if err != nil {
		return nil, fmt.Errorf("refresh: %w", err)
	}
	if total == m.size.Held() && was == basis {
		return stored, nil
	}
	return m.rebuildPlan(stored, basis)
}

// rebuildPlan counts the held pages' bins from their rows and corrects the
// stored counters to match.
func (m *Module) rebuildPlan(stored map[schedule.Bin]int64, basis string) (map[schedule.Bin]int64, error) {
	counts := map[schedule.Bin]int64{}
	err := m.store.ForEachPage(func(p store.Page) error {
		if p.Held && p.Kind == store.KindPage {
			counts[m.cfg.PlanBin(&p)]++
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("refresh: rebuild plan: %w", err)
	}
	txn := m.store.Begin()
	for b, n := range stored {
		txn.Add(PlanCounter(b), -n)
	}
	for b, n := range counts {
		txn.Add(PlanCounter(b), n)
	}
	if err := txn.SetSetting(planBasisSetting, basis); err != nil {
		txn.Abort()
		return nil, fmt.Errorf("refresh: rebuild plan: %w", err)
	}
	if err := txn.Commit(); err != nil {
		return nil, fmt.Errorf("refresh: rebuild plan: %w", err)
	}
	return counts, nil
}

// StagePlan moves a page between the planner's bins, in memory and in the
// store counters of txn, as its row goes from prev (held if wasHeld) to p.
// h is the page's host, whose load loses a page that leaves the
// collection; nil if the host is not at hand (its load then catches up at
// its next revisits).
func (m *Module) StagePlan(txn *store.Txn, h *Host, prev *store.Page, wasHeld bool, p *store.Page) {
	if p.Kind != store.KindPage {
		return
	}
	m.stageExpect(txn, prev, wasHeld, p)
	from, to := m.cfg.PlanBin(prev), m.cfg.PlanBin(p)
	if wasHeld == p.Held && from == to {
		return
	}
	if m.planner != nil {
		m.planner.Move(from, wasHeld, to, p.Held)
		if wasHeld && !p.Held && prev.Interval > 0 && h != nil {
			m.noteLoad(h, 1/prev.Interval, 0)
		}
	}
	if wasHeld {
		txn.Add(PlanCounter(from), -1)
	}
	if p.Held {
		txn.Add(PlanCounter(to), 1)
	}
}

// plan is the planner's interval for p, in seconds. The planner divides
// the revisit budget plus what hosts at capacity cannot take (planBudget):
// the frequencies it plans for them beyond their capacity are not
// fetched, so that much is given to the others.
func (m *Module) plan(p *store.Page) float64 {
	m.syncPlanner()
	if m.cfg.signalled(p) {
		return m.planner.SignalInterval(p.Rate, p.Weight)
	}
	cs := censoringOf(p)
	iv := m.planner.Interval(rateOf(p, cs, m.planFast), p.Weight)
	if m.planFast && cs.allChanged >= 2 && !cs.short && !cs.fast() {
		// Every visit found a change, none at a short interval: the
		// estimate is a floor the visits cannot raise. One visit at an
		// eighth of the mean interval tells a page that changes a few
		// times per interval (it changes in that eighth with probability
		// 1 − e^{−λI/8}: 18 % for a page changing every 2 days visited
		// every 3) from one that changes at every moment (96 % at 8 a
		// day), which PlanRate then gives up.
		iv = min(iv, cs.mean/8)
	}
	if cs.compared < explore && cs.allChanged == 0 && m.planFast {
		iv = min(iv, m.Uniform().Seconds())
	}
	return max(iv, minRevisit.Seconds())
}

// Planner returns the plan of a planned policy, nil under the others.
func (m *Module) Planner() *schedule.Planner { return m.planner }
