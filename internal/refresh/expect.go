package refresh

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// This file keeps what the crawler expects of its own collection: the
// time-averaged freshness and age each held page has under its estimated
// change rate and the interval its policy chose (dissertation eq. 5.4 and
// Table 5.2, fixed order), summed over the pages, and a histogram of the
// estimated rates. Both follow every row through StagePlan, in memory for
// a scrape of /metrics that costs nothing at any collection size and in
// store counters that outlive the process, like the plan's.

const (
	expectPrefix  = "expect/"
	expectFresh   = expectPrefix + "fresh"   // Σ freshness, in millionths of a page
	expectAge     = expectPrefix + "age"     // Σ age, in milliseconds
	expectPlanned = expectPrefix + "planned" // pages with a revisit interval
	expectOthers  = expectPrefix + "others"  // held pages without one
	expectRate    = expectPrefix + "rate/"   // + octave: the rate histogram
	// expectBasisSetting names the rule the counters were summed under
	// (the closed forms, the buckets); a crawl summed under another
	// rebuilds them.
	expectBasisSetting = "expect-basis"
	expectBasis        = "fixed-order/octave-per-day"
)

// RateOctaves is the number of octave buckets of the rate histogram, in
// changes per day: an estimated rate r > 0 (per second) is counted in
// bucket clamp(⌊log2(86400 r)⌋ − MinRateOctave + 1, 1, RateOctaves−1),
// which holds the rates in [2^(k−1+MinRateOctave), 2^(k+MinRateOctave))
// a day; bucket 0 holds the pages without an estimate.
const (
	RateOctaves   = 48
	MinRateOctave = -20 // 2^-20 a day: once in 2,900 years
)

// RateOctave is the rate histogram's bucket of an estimated rate, in
// changes per second.
func RateOctave(rate float64) int {
	if !(rate > 0) {
		return 0
	}
	k := int(math.Floor(math.Log2(rate*86400))) - MinRateOctave + 1
	return min(max(k, 1), RateOctaves-1)
}

// OctaveRate is the lower edge of bucket k ≥ 1, in changes per day.
func OctaveRate(k int) float64 { return math.Exp2(float64(k - 1 + MinRateOctave)) }

// expectation is one held page's share of the sums.
type expectation struct {
	fresh, age int64 // millionths of a page, milliseconds
	planned    bool
	octave     int
}

// expectationOf is page p's share; a function of the row alone, so that
// the share a row added is the share removed when the row moves on.
func expectationOf(p *store.Page) expectation {
	e := expectation{octave: RateOctave(p.Rate)}
	if !(p.Interval > 0) || math.IsInf(p.Interval, 0) {
		return e
	}
	f := 1 / p.Interval
	e.planned = true
	e.fresh = int64(math.Round(1e6 * policy.Freshness(policy.FixedOrder, p.Rate, f)))
	if a := policy.Age(policy.FixedOrder, p.Rate, f); a > 0 && !math.IsInf(a, 0) {
		e.age = int64(math.Round(1e3 * a))
	}
	return e
}

// expectSums is the collection's sums in memory.
type expectSums struct {
	fresh, age, planned, others atomic.Int64
	rates                       [RateOctaves]atomic.Int64
}

func (s *expectSums) add(txn *store.Txn, e expectation, sign int64) {
	s.rates[e.octave].Add(sign)
	txn.Add(expectRate+strconv.Itoa(e.octave), sign)
	if !e.planned {
		s.others.Add(sign)
		txn.Add(expectOthers, sign)
		return
	}
	s.planned.Add(sign)
	s.fresh.Add(sign * e.fresh)
	s.age.Add(sign * e.age)
	txn.Add(expectPlanned, sign)
	txn.Add(expectFresh, sign*e.fresh)
	txn.Add(expectAge, sign*e.age)
}

// stageExpect moves a page's share as its row goes from prev (held if
// wasHeld) to p.
func (m *Module) stageExpect(txn *store.Txn, prev *store.Page, wasHeld bool, p *store.Page) {
	if wasHeld {
		m.expect.add(txn, expectationOf(prev), -1)
	}
	if p.Held {
		m.expect.add(txn, expectationOf(p), 1)
	}
}

// Expected is what the crawler expects of its collection from its own
// estimates: the mean time-averaged freshness and age (seconds) of the
// held pages that have a revisit interval (planned of them), and the held
// pages without one (others: fetched once, no revisit planned).
type Expected struct {
	Freshness, Age  float64
	Planned, Others int64
}

// Expected returns the collection's expectation now.
func (m *Module) Expected() Expected {
	s := &m.expect
	e := Expected{Planned: s.planned.Load(), Others: s.others.Load()}
	if e.Planned > 0 {
		e.Freshness = float64(s.fresh.Load()) / 1e6 / float64(e.Planned)
		e.Age = float64(s.age.Load()) / 1e3 / float64(e.Planned)
	}
	return e
}

// RateHistogram returns the number of held pages in each rate bucket
// (RateOctave).
func (m *Module) RateHistogram() [RateOctaves]int64 {
	var h [RateOctaves]int64
	for k := range h {
		h[k] = max(m.expect.rates[k].Load(), 0)
	}
	return h
}

// openExpect loads the sums from the store's counters, rebuilt from the
// rows if they do not account for every held page (a data directory from
// before them).
func (m *Module) openExpect() error {
	var v [4]int64
	var rates [RateOctaves]int64
	err := m.store.Counters(expectPrefix, func(name string, n int64) error {
		if k, ok := strings.CutPrefix(name, expectRate); ok {
			if i, err := strconv.Atoi(k); err == nil && i >= 0 && i < RateOctaves {
				rates[i] = n
			}
			return nil
		}
		for i, c := range []string{expectFresh, expectAge, expectPlanned, expectOthers} {
			if name == c {
				v[i] = n
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("refresh: %w", err)
	}
	was, _, err := m.store.Setting(expectBasisSetting)
	if err != nil {
		return fmt.Errorf("refresh: %w", err)
	}
	if v[2]+v[3] != m.size.Held() || was != expectBasis {
		return m.rebuildExpect(v, rates)
	}
	m.setExpect(v, rates)
	return nil
}

func (m *Module) setExpect(v [4]int64, rates [RateOctaves]int64) {
	s := &m.expect
	s.fresh.Store(v[0])
	s.age.Store(v[1])
	s.planned.Store(v[2])
	s.others.Store(v[3])
	for k, n := range rates {
		s.rates[k].Store(n)
	}
}

// rebuildExpect sums the held pages' shares from their rows and corrects
// the stored counters (old, oldRates) to match.
func (m *Module) rebuildExpect(old [4]int64, oldRates [RateOctaves]int64) error {
	var v [4]int64
	var rates [RateOctaves]int64
	err := m.store.ForEachPage(func(p store.Page) error {
		if !p.Held || p.Kind != store.KindPage {
			return nil
		}
		e := expectationOf(&p)
		rates[e.octave]++
		if e.planned {
			v[0], v[1], v[2] = v[0]+e.fresh, v[1]+e.age, v[2]+1
		} else {
			v[3]++
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("refresh: rebuild expectation: %w", err)
	}
	txn := m.store.Begin()
	for i, c := range []string{expectFresh, expectAge, expectPlanned, expectOthers} {
		txn.Add(c, v[i]-old[i])
	}
	for k := range rates {
		txn.Add(expectRate+strconv.Itoa(k), rates[k]-oldRates[k])
	}
	if err := txn.SetSetting(expectBasisSetting, expectBasis); err != nil {
		txn.Abort()
		return fmt.Errorf("refresh: rebuild expectation: %w", err)
	}
	if err := txn.Commit(); err != nil {
		return fmt.Errorf("refresh: rebuild expectation: %w", err)
	}
	m.setExpect(v, rates)
	return nil
}
