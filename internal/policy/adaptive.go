package policy

import (
	"math"

	"github.com/freshcrawl/freshcrawl/internal/change"
)

// This file holds the revisit rules of the open-source crawlers, the
// baselines freshcrawl is measured against (spec anchors-crawlers §0, §1.1,
// §1.3). Neither estimates a rate or knows a budget: each page carries an
// interval that shrinks when a visit finds a change and grows when it does
// not, within [min, max].

// Nutch's AdaptiveFetchSchedule defaults, from nutch-default.xml (spec
// anchors-crawlers §1.1; the Java fallbacks differ) and
// db.fetch.interval.default.
const (
	NutchInc           = 0.4
	NutchDec           = 0.2
	NutchSyncDeltaRate = 0.3
	NutchMinInterval   = 60.0
	NutchMaxInterval   = 365 * 86400.0
	NutchDefault       = 30 * 86400.0
)

// NutchAdaptive is Apache Nutch's AdaptiveFetchSchedule. After a visit at
// time t with interval I (seconds):
//
//   - changed: I ← I·(1 − Dec), and the known modification time becomes t;
//   - unchanged: I ← I·(1 + Inc);
//   - sync delta (unless NoSyncDelta): with δ = t − (known modification
//     time), I ← max(I, δ), and the next visit is counted from
//     t − δ·SyncDeltaRate instead of t;
//   - I is clamped to [Min, Max], and the next visit is at (reference) + I.
//
// The known modification time is the page's Last-Modified when the server
// sends one, else the last visit that saw a change, else (never seen) t, so
// that δ = 0. Zero fields take nutch-default.xml's values (the Nutch
// constants above).
type NutchAdaptive struct {
	Inc, Dec      float64 // growth on no change, shrinkage on change; zero: 0.4, 0.2
	NoSyncDelta   bool    // disables db.fetch.schedule.adaptive.sync_delta
	SyncDeltaRate float64 // zero: 0.3
	Min, Max      float64 // interval bounds in seconds; zero: 60 s, 365 days
	Default       float64 // a new page's interval in seconds; zero: 30 days
}

// withDefaults returns c with its zero fields set.
func (c NutchAdaptive) withDefaults() NutchAdaptive {
	def := func(x *float64, v float64) {
		if *x == 0 {
			*x = v
		}
	}
	def(&c.Inc, NutchInc)
	def(&c.Dec, NutchDec)
	def(&c.SyncDeltaRate, NutchSyncDeltaRate)
	def(&c.Min, NutchMinInterval)
	def(&c.Max, NutchMaxInterval)
	def(&c.Default, NutchDefault)
	return c
}

// NutchPage is one page's schedule state under NutchAdaptive.
type NutchPage struct {
	Interval float64 // current interval, seconds; zero: not set yet (Default)
	Modified float64 // known modification time; NaN: none known
}

// Next applies the rule to page p after a visit at time t that observed
// obs (Changed, and SinceModified when the server sent Last-Modified) and
// returns the next visit time. obs.Interval is not used: Nutch adapts its
// own interval, not the elapsed time.
func (c NutchAdaptive) Next(p *NutchPage, t float64, obs change.Observation) float64 {
	c = c.withDefaults()
	I := p.Interval
	if I == 0 {
		I = c.Default
	}
	mod := p.Modified
	if obs.SinceModified >= 0 {
		mod = t - obs.SinceModified
	}
	if math.IsNaN(mod) {
		mod = t
	}
	if obs.Changed {
		I *= 1 - c.Dec
		mod = t
	} else {
		I *= 1 + c.Inc
	}
	ref := t
	if !c.NoSyncDelta {
		delta := t - mod
		I = max(I, delta)
		ref = t - delta*c.SyncDeltaRate
	}
	I = min(max(I, c.Min), c.Max)
	p.Interval, p.Modified = I, mod
	return ref + I
}

// StormCrawler's scheduler defaults (spec anchors-crawlers §1.3): the
// DefaultScheduler's intervals by status and the AdaptiveScheduler's
// bounds and rates.
const (
	StormDefault     = 1440 * 60.0  // fetchInterval.default: 1 day
	StormFetchError  = 120 * 60.0   // fetchInterval.fetch.error: 2 hours
	StormMinInterval = 60 * 60.0    // scheduler.adaptive.fetchInterval.min: 1 hour
	StormMaxInterval = 20160 * 60.0 // scheduler.adaptive.fetchInterval.max: 2 weeks
	StormIncr        = 0.5
	StormDecr        = 0.5
)

// Status is a fetch's outcome class, the key of StormCrawler's interval
// table.
type Status uint8

// Fetch statuses, as StormCrawler names them.
const (
	StatusFetched    Status = iota // content fetched: the adaptive rule applies
	StatusFetchError               // transient failure (timeout, 5xx): retried after a fixed interval
	StatusError                    // permanent failure (404, robots): never retried by default
)

// StormCrawler is StormCrawler's AdaptiveScheduler over its DefaultScheduler
// (spec anchors-crawlers §1.3). For a fetched page with interval I:
//
//   - changed: I ← (1 − Decr)·I + Decr·Min, which slows the approach to Min;
//   - unchanged (or 304): I ← min(Max, I·(1 + Incr));
//
// and the next visit is at t + I. Other statuses reset the page and take a
// fixed interval from the table, as the DefaultScheduler does. StormCrawler
// keeps intervals in whole minutes; this keeps seconds. Zero fields take
// StormCrawler's defaults (the Storm constants above).
type StormCrawler struct {
	Incr, Decr float64 // zero: 0.5, 0.5
	Min, Max   float64 // seconds; zero: 1 hour, 2 weeks
	Default    float64 // a new page's interval, seconds; zero: 1 day
	// OnFetchError and OnError are the fixed intervals after a fetch
	// error and a permanent error. Zero means 2 hours and never (+Inf).
	OnFetchError, OnError float64
}

func (c StormCrawler) withDefaults() StormCrawler {
	def := func(x *float64, v float64) {
		if *x == 0 {
			*x = v
		}
	}
	def(&c.Incr, StormIncr)
	def(&c.Decr, StormDecr)
	def(&c.Min, StormMinInterval)
	def(&c.Max, StormMaxInterval)
	def(&c.Default, StormDefault)
	def(&c.OnFetchError, StormFetchError)
	def(&c.OnError, math.Inf(1))
	return c
}

// Next applies the rule to a page whose current interval is *interval
// (zero: not set yet, Default) after a visit at time t with the given
// status; changed matters only for StatusFetched. It updates *interval and
// returns the next visit time (+Inf: never).
func (c StormCrawler) Next(interval *float64, t float64, status Status, changed bool) float64 {
	c = c.withDefaults()
	switch status {
	case StatusFetchError:
		*interval = 0
		return t + c.OnFetchError
	case StatusError:
		*interval = 0
		return t + c.OnError
	}
	I := *interval
	if I == 0 {
		I = c.Default
	}
	if changed {
		I = (1-c.Decr)*I + c.Decr*c.Min
	} else {
		I = min(c.Max, I*(1+c.Incr))
	}
	*interval = I
	return t + I
}

// NutchSchedule runs NutchAdaptive over a collection of pages indexed
// 0..n−1.
type NutchSchedule struct {
	rule  NutchAdaptive
	pages []NutchPage
}

// NewNutchSchedule returns a schedule of n new pages under rule.
func NewNutchSchedule(n int, rule NutchAdaptive) *NutchSchedule {
	s := &NutchSchedule{rule: rule.withDefaults(), pages: make([]NutchPage, n)}
	for i := range s.pages {
		s.pages[i].Modified = math.NaN()
	}
	return s
}

// Visit records a visit to page i at time t and returns its next visit
// time.
func (s *NutchSchedule) Visit(i int, t float64, obs change.Observation) float64 {
	return s.rule.Next(&s.pages[i], t, obs)
}

// Interval returns page i's current interval in seconds.
func (s *NutchSchedule) Interval(i int) float64 {
	if I := s.pages[i].Interval; I > 0 {
		return I
	}
	return s.rule.Default
}

// StormSchedule runs StormCrawler over a collection of pages indexed
// 0..n−1; every visit counts as StatusFetched.
type StormSchedule struct {
	rule     StormCrawler
	interval []float64
}

// NewStormSchedule returns a schedule of n new pages under rule.
func NewStormSchedule(n int, rule StormCrawler) *StormSchedule {
	return &StormSchedule{rule: rule.withDefaults(), interval: make([]float64, n)}
}

// Visit records a successful fetch of page i at time t and returns its next
// visit time.
func (s *StormSchedule) Visit(i int, t float64, obs change.Observation) float64 {
	return s.rule.Next(&s.interval[i], t, StatusFetched, obs.Changed)
}

// Interval returns page i's current interval in seconds.
func (s *StormSchedule) Interval(i int) float64 {
	if I := s.interval[i]; I > 0 {
		return I
	}
	return s.rule.Default
}
