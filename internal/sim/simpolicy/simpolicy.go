// Package simpolicy runs package policy's refresh policies in the
// simulator: it adapts them to sim.Policy, sim.Replanner and sim.Oracle.
// It lives apart from both so that policy, which the crawler imports,
// never imports sim.
package simpolicy

import (
	"fmt"
	"math"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/sim"
)

// Visitor is a per-page schedule driven by visit outcomes:
// policy.NutchSchedule, policy.StormSchedule and policy.Online.
type Visitor interface {
	// Visit records a visit to page i at time t and returns its next due
	// time.
	Visit(i int, t float64, obs change.Observation) float64
}

// Adaptive runs a Visitor that knows no budget, such as Nutch's or
// StormCrawler's rule; the engine's budget delays whatever it asks for
// beyond it. A next visit time in the past (Nutch's sync delta gives one
// when the page's Last-Modified is more than Max/SyncDeltaRate old) is
// moved to the fetch time: such a page is due at once, but it joins the
// queue behind the pages already waiting, as every overdue page is alike to
// Nutch's generator, instead of jumping ahead of all of them by being the
// most overdue, which the engine's due order would make it.
type Adaptive struct {
	v     Visitor
	first float64
}

// NewAdaptive returns a policy that spreads the first visits evenly over
// [0, first) seconds, page i at (i + ½)/n·first, and then lets v decide.
func NewAdaptive(v Visitor, first float64) *Adaptive { return &Adaptive{v: v, first: first} }

// Init places the first visits.
func (a *Adaptive) Init(s *sim.Schedule) {
	n := s.Len()
	for i := 0; i < n; i++ {
		s.SetDue(i, (float64(i)+0.5)/float64(n)*a.first)
	}
}

// Fetched asks the Visitor.
func (a *Adaptive) Fetched(f *sim.Fetch) float64 {
	return max(a.v.Visit(f.Page, f.Time, f.Obs), f.Time)
}

// Online runs a learning policy.Online: it re-plans at every
// sim.Config.ReplanEvery and moves every page's due time to its last visit
// plus its new interval.
type Online struct {
	P *policy.Online
	// Err is the first error a Replan met; the policy then keeps its
	// previous plan.
	Err error
}

// Init places the first visits by the initial plan.
func (o *Online) Init(s *sim.Schedule) { setDue(o.P, s) }

// Fetched records the visit.
func (o *Online) Fetched(f *sim.Fetch) float64 { return o.P.Visit(f.Page, f.Time, f.Obs) }

// Replan re-estimates, re-allocates and reschedules.
func (o *Online) Replan(s *sim.Schedule) {
	if err := o.P.Replan(); err != nil {
		if o.Err == nil {
			o.Err = fmt.Errorf("replan at %gs: %w", s.Now(), err)
		}
		return
	}
	setDue(o.P, s)
}

func setDue(p *policy.Online, s *sim.Schedule) {
	for i := 0; i < s.Len(); i++ {
		s.SetDue(i, p.Due(i))
	}
}

// Oracle is the reference policy: when the engine hands it the truth it
// builds a policy.NewOracle from the pages' mean rates (sim.Process.Rate,
// also for Pareto and quasi-deterministic pages) and weights.
type Oracle struct {
	// Config configures the oracle; its Weights are replaced by the pages'.
	Config policy.OnlineConfig
	// P is the oracle, set by SetTruth.
	P *policy.Online
	// Err is SetTruth's error; the oracle then visits nothing.
	Err error
}

// SetTruth builds the oracle's plan.
func (o *Oracle) SetTruth(pages []sim.Page) {
	rates := make([]float64, len(pages))
	cfg := o.Config
	cfg.Weights = make([]float64, len(pages))
	for i, p := range pages {
		rates[i] = p.Process.Rate
		cfg.Weights[i] = p.Weight
	}
	o.P, o.Err = policy.NewOracle(rates, cfg)
}

// Init places the first visits.
func (o *Oracle) Init(s *sim.Schedule) {
	if o.P == nil {
		for i := 0; i < s.Len(); i++ {
			s.SetDue(i, math.Inf(1))
		}
		return
	}
	setDue(o.P, s)
}

// Fetched returns the page's next visit.
func (o *Oracle) Fetched(f *sim.Fetch) float64 { return o.P.Visit(f.Page, f.Time, f.Obs) }
