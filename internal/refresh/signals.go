package refresh

import (
	"math"
	"sync"
	"time"
)

// signalYield is what the crawl has seen of its signals, for the plan
// (schedule.Planner.SetSignals): the pulls made on trusted sitemaps'
// claims against those the plan counted on, and how often those sitemaps
// are read. In memory only: a restarted crawl learns it again.
type signalYield struct {
	mu sync.Mutex
	at time.Time // the last read noted
	// made and planned are the pulls made and those the plan counted on,
	// and reads the trusted sitemaps' reads, each forgetting with time
	// constant yieldMemory uniform intervals.
	made, planned, reads float64
	gap                  float64 // moving average of the reads' intervals, seconds
}

const (
	// yieldMemory is the time constant of the yield's counts, in uniform
	// intervals: long enough to hold a site's bursts and the lulls
	// between them.
	yieldMemory = 2
	// yieldMin is the least yield the plan is told: at least one pull in
	// twenty is made, whatever a quiet spell says.
	yieldMin = 0.05
	// yieldSample is how many pulls the plan must have counted on before
	// the yield is measured rather than taken as 1.
	yieldSample = 20
	// gapWeight is the weight of a read's interval in the average.
	gapWeight = 1.0 / 16
)

// noteSignals records a trusted sitemap's read at now, the read before it
// at since (zero: none), in which pulls of signalled pages were made, and
// gives the plan the yield and signal interval that follow.
func (m *Module) noteSignals(pulls int, since, now time.Time) {
	y := &m.yield
	y.mu.Lock()
	defer y.mu.Unlock()
	if !y.at.IsZero() && now.After(y.at) {
		dt := now.Sub(y.at).Seconds()
		keep := math.Exp(-dt / (yieldMemory * m.Uniform().Seconds()))
		y.planned = y.planned*keep + m.planner.Pulls()*dt
		y.made *= keep
		y.reads *= keep
	}
	y.made += float64(pulls)
	y.reads++
	y.at = now
	if !since.IsZero() && now.After(since) {
		g := now.Sub(since).Seconds()
		if y.gap == 0 {
			y.gap = g
		} else {
			y.gap += gapWeight * (g - y.gap)
		}
	}
	k := 1.0
	if y.planned >= yieldSample {
		k = min(1, max(y.made/y.planned, yieldMin))
	}
	m.planner.SetSignals(k, y.gap)
}

// SignalReads is the rate of the trusted sitemaps' reads, per second, up
// to half the revisit budget: the plan leaves it out of the budget it
// divides (planBudget), and with the held pages' planned visits and pulls
// it spends the revisit budget. Unaccounted for, the reads were a budget
// the plan thought idle, its multiplier fell, and the sitemaps' intervals,
// which it prices, with it: on the PEPs' history half the fetches went to
// reading sitemaps.
func (m *Module) SignalReads() float64 {
	y := &m.yield
	y.mu.Lock()
	reads := y.reads
	y.mu.Unlock()
	r := m.revisitBudget()
	return min(reads/(yieldMemory*m.Uniform().Seconds()), r/2)
}
