package refresh

import (
	"math"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// Policy decides when a page of the collection is fetched again. The
// module's Revisit, Postpone and Retry call it; its state, if it keeps
// any, is the page row's Interval.
type Policy interface {
	// Next sets p.NextDue (and p.Interval, if the policy keeps it) after
	// a fetch at now of p, a held page of host h, that compared its
	// content with the copy held: changed says whether it differed,
	// prevHeld whether p was held before the fetch.
	Next(h *Host, p *store.Page, prevHeld, changed bool, now time.Time)
	// Interval is the interval the policy wants now between visits of
	// p, a held page of host h, on the crawler's clock; with h nil, before
	// any host's capacity stretches it.
	Interval(h *Host, p *store.Page) time.Duration
	// Postpone returns when a revisit of p, due now by the schedule,
	// should be made instead, or zero to make it now.
	Postpone(h *Host, p *store.Page, now time.Time) time.Time
	// Retry is how long p waits to be tried again after a fetch that
	// failed transiently (a network error, 5xx or 429 after the last
	// attempt).
	Retry(p *store.Page) time.Duration
}

// newPolicy returns the policy the configuration names; Open has built
// the planner it needs, if any.
func (m *Module) newPolicy() Policy {
	switch {
	case m.planner != nil:
		return planned{m}
	case m.cfg.Policy == Nutch:
		return nutch{m}
	case m.cfg.Policy == StormCrawler:
		return stormCrawler{m}
	case m.cfg.Policy == RoundRobin:
		return roundRobin{m}
	}
	return uniform{m}
}

// Revisit sets the revisit of p, a held page of host h fetched at now
// with an answer that compared its content (v is the visit; changed: the
// content differed; prevHeld: p was held before), and p.Modified, when the
// page was last known to change.
func (m *Module) Revisit(h *Host, p *store.Page, prevHeld bool, v *store.Visit, changed bool, now time.Time) {
	if changed {
		p.Modified = now
	}
	if !v.Modified.IsZero() {
		p.Modified = v.Modified
	}
	m.policy.Next(h, p, prevHeld, changed, now)
}

// Postpone returns when a revisit of p (held or not, a page or not) on
// host h, due by the schedule at now, should be made instead; zero: now.
// A revisit a signal pulled forward (Pulled) is made now: the policy's
// rule of waiting for the planned interval would undo the pull.
func (m *Module) Postpone(h *Host, p *store.Page, now time.Time) time.Time {
	if Pulled(p) {
		return time.Time{}
	}
	return m.policy.Postpone(h, p, now)
}

// Retry is how long p waits after a fetch that failed transiently: the
// policy's answer for a page, the uniform interval for a sitemap.
func (m *Module) Retry(p *store.Page) time.Duration {
	if p.Kind != store.KindPage {
		return m.Uniform()
	}
	return m.policy.Retry(p)
}

// wait is the rule of the policies that plan an interval: the interval
// changes as the collection grows and the estimates move, so a revisit
// scheduled when it was shorter waits for the current one, iv, unless it
// is nearly due anyway. (A longer one is caught up at the page's next
// visit.)
func wait(p *store.Page, iv time.Duration, now time.Time) time.Time {
	if !p.LastFetch.IsZero() && p.LastFetch.Add(iv*9/10).After(now) {
		return p.LastFetch.Add(iv)
	}
	return time.Time{}
}

// uniform visits every page at the uniform interval.
type uniform struct{ m *Module }

func (u uniform) Next(_ *Host, p *store.Page, _, _ bool, now time.Time) {
	iv := u.m.Uniform()
	p.NextDue, p.Interval = now.Add(iv), iv.Seconds()
}

func (u uniform) Interval(*Host, *store.Page) time.Duration { return u.m.Uniform() }

func (u uniform) Postpone(_ *Host, p *store.Page, now time.Time) time.Time {
	return wait(p, u.m.Uniform(), now)
}

func (u uniform) Retry(*store.Page) time.Duration { return u.m.Uniform() }

// planned visits each page at the interval the plan gives its rate and
// weight, stretched on a host whose plan exceeds its capacity; the
// interval before the stretch is kept in the row, its frequency in the
// host's load.
type planned struct{ m *Module }

func (pl planned) Next(h *Host, p *store.Page, prevHeld, _ bool, now time.Time) {
	p.Signalled = pl.m.signals(h, p, now)
	iv := pl.m.plan(p)
	old, load := 0.0, 1/iv
	if prevHeld && p.Interval > 0 {
		old = 1 / p.Interval
	}
	if pl.m.cfg.signalled(p) {
		// Its probes, and the pulls its signals will bring: the row's
		// interval is the mean one, as its host's load counts it.
		load += pl.m.planner.SignalRate(p.Rate, p.Weight)
	}
	pl.m.noteLoad(h, old, load)
	p.Interval = 1 / load
	next := pl.m.stretch(h, iv)
	if d := pl.m.discoveryInterval(p); d > 0 {
		next = min(next, d)
	}
	p.NextDue = now.Add(next)
}

func (pl planned) Interval(h *Host, p *store.Page) time.Duration {
	if h == nil {
		return secondsDuration(pl.m.plan(p))
	}
	return pl.m.stretch(h, pl.m.plan(p))
}

func (pl planned) Postpone(h *Host, p *store.Page, now time.Time) time.Time {
	iv := pl.m.Uniform()
	if p.Held && p.Kind == store.KindPage {
		iv = pl.Interval(h, p)
	}
	if d := pl.m.discoveryInterval(p); d > 0 {
		iv = min(iv, d)
	}
	return wait(p, iv, now)
}

func (pl planned) Retry(*store.Page) time.Duration { return pl.m.Uniform() }

// nutch is Nutch's AdaptiveFetchSchedule with its default settings, its
// bounds moved to the crawler's clock, a new page starting at the uniform
// interval.
type nutch struct{ m *Module }

func (n nutch) Next(_ *Host, p *store.Page, _, changed bool, now time.Time) {
	scale := n.m.cfg.TimeScale
	rule := policy.NutchAdaptive{
		Default: n.m.Uniform().Seconds(),
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
}

func (n nutch) Interval(_ *Host, p *store.Page) time.Duration { return adaptiveInterval(n.m, p) }

// Postpone never puts a revisit off: the adaptive policies' intervals
// move only at visits.
func (nutch) Postpone(*Host, *store.Page, time.Time) time.Time { return time.Time{} }

func (n nutch) Retry(*store.Page) time.Duration { return n.m.Uniform() }

// stormCrawler is StormCrawler's adaptive scheduler with its default
// settings, moved to the crawler's clock.
type stormCrawler struct{ m *Module }

func (s stormCrawler) Next(_ *Host, p *store.Page, _, changed bool, now time.Time) {
	scale := s.m.cfg.TimeScale
	rule := policy.StormCrawler{
		Default: s.m.Uniform().Seconds(),
		Min:     policy.StormMinInterval / scale, Max: policy.StormMaxInterval / scale,
	}
	t := seconds(now)
	next := rule.Next(&p.Interval, t, policy.StatusFetched, changed)
	p.NextDue = now.Add(secondsDuration(next - t))
}

func (s stormCrawler) Interval(_ *Host, p *store.Page) time.Duration { return adaptiveInterval(s.m, p) }

func (stormCrawler) Postpone(*Host, *store.Page, time.Time) time.Time { return time.Time{} }

// Retry is StormCrawler's fixed error interval.
func (s stormCrawler) Retry(p *store.Page) time.Duration {
	rule := policy.StormCrawler{OnFetchError: policy.StormFetchError / s.m.cfg.TimeScale}
	return secondsDuration(rule.Next(&p.Interval, 0, policy.StatusFetchError, false))
}

// roundRobin is a naive crawler's rule, a baseline: nothing is planned,
// every page held is due again as soon as it is fetched, so a host's due
// index is its cycle (the page fetched longest ago first), the budget is
// always spent, and the cycle lasts as long as the budget takes to fetch
// every page once: the uniform interval, found by fetching rather than
// planned.
type roundRobin struct{ m *Module }

// Next makes p due at once; its interval, as far as the expectation of the
// collection goes (expect.go), is the cycle's: the uniform one.
func (r roundRobin) Next(_ *Host, p *store.Page, _, _ bool, now time.Time) {
	p.NextDue, p.Interval = now, r.m.Uniform().Seconds()
}

func (r roundRobin) Interval(*Host, *store.Page) time.Duration { return r.m.Uniform() }

func (roundRobin) Postpone(*Host, *store.Page, time.Time) time.Time { return time.Time{} }

func (r roundRobin) Retry(*store.Page) time.Duration { return r.m.Uniform() }

// adaptiveInterval is an adaptive policy's interval for p: the one in its
// row, or the uniform one before its first revisit.
func adaptiveInterval(m *Module, p *store.Page) time.Duration {
	if p.Interval > 0 {
		return secondsDuration(p.Interval)
	}
	return m.Uniform()
}
