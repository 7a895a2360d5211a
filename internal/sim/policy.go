package sim

import "github.com/freshcrawl/freshcrawl/internal/change"

// Fetch is what a crawler learns when it fetches a page, and all a Policy
// is told. It deliberately carries no change rate or process: a policy
// must estimate those from the observations (TestPolicySeesOnlyObservations
// keeps it that way).
type Fetch struct {
	// Page is the page's index in Config.Pages.
	Page int
	// Time is when the fetch happened, in simulated seconds.
	Time float64
	// Due is when the policy had asked for it; Time − Due is the delay the
	// budget or the host's politeness imposed.
	Due float64
	// Obs compares this fetch with the previous copy of the page (the copy
	// taken at time 0 for the first fetch): the interval, whether the
	// content changed, and, when the page's host sends Last-Modified, the
	// time since the last change (NaN otherwise). It is ready for
	// change.Stats.Add(f.Obs, f.Time).
	Obs change.Observation
}

// Policy decides when each page is fetched next, from what the crawler saw.
type Policy interface {
	// Init is called once before the run to set the first due time of
	// every page; a page the policy leaves alone is due at time 0.
	Init(s *Schedule)
	// Fetched is called after every fetch and returns the page's next due
	// time in simulated seconds. A time at or before f.Time asks for the
	// page again as soon as the budget allows; +Inf (or NaN) takes the page
	// out of the schedule until a Replanner puts it back. (With an
	// unlimited budget, a policy that keeps answering f.Time never lets
	// simulated time advance.)
	Fetched(f *Fetch) float64
}

// Replanner is implemented by policies that re-plan globally, for example
// re-allocating frequencies from their current estimates. Replan is called
// every Config.ReplanEvery seconds of simulated time, between fetches.
type Replanner interface {
	Replan(s *Schedule)
}

// Oracle is implemented by reference policies that are allowed the truth.
// SetTruth is called once, before Init, with the configured pages (change
// processes, weights, hosts); the policy must not modify them. No other
// policy is ever given a rate.
type Oracle interface {
	Policy
	SetTruth(pages []Page)
}

// Schedule is a policy's view of the due times, valid only during the call
// it is passed to.
type Schedule struct{ e *engine }

// Len returns the number of pages.
func (s *Schedule) Len() int { return len(s.e.due) }

// Now returns the current simulated time in seconds.
func (s *Schedule) Now() float64 { return s.e.now }

// Due returns page i's due time (+Inf if it is not scheduled).
func (s *Schedule) Due(i int) float64 { return s.e.due[i] }

// SetDue sets page i's due time; +Inf or NaN unschedules it. A due time in
// the past means as soon as the budget allows.
func (s *Schedule) SetDue(i int, t float64) {
	if t != t { // NaN
		t = posInf
	}
	s.e.due[i] = t
	s.e.dirty = true
}
