package study

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/freshcrawl/freshcrawl/internal/change"
)

// DynamicRow is how one estimator with forgetting time constant τ follows a
// rate that jumps, in the experiment of DynamicConfig.
type DynamicRow struct {
	// Estimator is Auto; LastModified says which branch of the rule ran:
	// lm-reduced with Last-Modified, prior-mle with the empirical-Bayes
	// prior without.
	Estimator    string `json:"estimator"`
	LastModified bool   `json:"last_modified"`
	// Tau is τ in visit intervals; 0 means no forgetting.
	Tau float64 `json:"tau"`
	// Before is the accuracy on the last visit before the switch: the
	// steady-state noise of the memory, for τ well below the visits
	// before the switch; a longer memory has not filled yet, and shows
	// the noise of those visits.
	Before Metrics `json:"before"`
	// Up and Down follow the rate's rise and fall.
	Up   Switch `json:"up"`
	Down Switch `json:"down"`
}

// Switch is how an estimator followed one jump of the rate.
type Switch struct {
	// Lag is the number of visits after the switch from which on the
	// median estimate stays within the tolerance of the new rate; −1 if it
	// is not there by the last visit.
	Lag int `json:"lag"`
	// End is the accuracy on the last visit, against the new rate.
	End Metrics `json:"end"`
}

// dynamicRun is one τ's outcome: a row for each branch of Auto.
type dynamicRun = [2]DynamicRow

// runDynamic simulates the rate switch with forgetting time constant tau
// (in visit intervals, 0 for none). Each trial runs the visits before the
// switch once and then both directions from the same state.
func runDynamic(ctx context.Context, cfg Config, tau, popRate float64) (dynamicRun, error) {
	d := cfg.Dynamic
	eb, err := change.PriorFromRate(popRate, 1)
	if err != nil {
		return dynamicRun{}, fmt.Errorf("empirical-Bayes prior: %w", err)
	}
	ests := [2]change.Auto{{Prior: eb, LastModified: true}, {Prior: eb}}
	lambda := d.R / Interval
	rates := [2]float64{lambda * d.Factor, lambda / d.Factor} // up, down
	before := [2][]float64{}
	// after[dir][e][k][trial] is estimator e's estimate k+1 visits after
	// the switch in direction dir.
	var after [2][2][][]float64
	for e := range 2 {
		before[e] = make([]float64, d.Trials)
		for dir := range 2 {
			after[dir][e] = make([][]float64, d.After)
			for k := range after[dir][e] {
				after[dir][e][k] = make([]float64, d.Trials)
			}
		}
	}
	key := streamKey(cfg.Seed, fmt.Sprintf("dynamic/%g", tau))
	src := rand.NewPCG(0, 0)
	rng := rand.New(src)
	for trial := range d.Trials {
		if trial%64 == 0 && ctx.Err() != nil {
			return dynamicRun{}, ctx.Err()
		}
		src.Seed(key, uint64(trial))
		pg := newPage(rng, Poisson, lambda, Regular, Interval)
		s := change.Stats{Decay: tau * Interval}
		for range d.Before {
			s.Add(pg.visit())
		}
		for e, est := range ests {
			before[e][trial] = rate(est.Estimate(&s))
		}
		for dir, newRate := range rates {
			bp, bs := pg, s // the branch's page and Stats
			bp.ch.setRate(newRate, bp.t)
			for k := range d.After {
				bs.Add(bp.visit())
				for e, est := range ests {
					after[dir][e][k][trial] = rate(est.Estimate(&bs))
				}
			}
		}
	}
	var run dynamicRun
	for e, est := range ests {
		row := DynamicRow{Estimator: Auto, LastModified: est.LastModified, Tau: tau}
		row.Before = summarise(before[e], lambda)
		for dir, sw := range [2]*Switch{&row.Up, &row.Down} {
			sw.Lag = lag(after[dir][e], rates[dir], d.Tolerance)
			sw.End = summarise(after[dir][e][d.After-1], rates[dir])
		}
		run[e] = row
	}
	return run, nil
}

// lag returns the number of visits after which the median of est[k] (the
// estimates k+1 visits after the switch) stays within tol of lambda, or −1
// if the last is not within. It reorders est.
func lag(est [][]float64, lambda, tol float64) int {
	l := -1
	for k := len(est) - 1; k >= 0; k-- {
		for i, v := range est[k] {
			if math.IsNaN(v) {
				est[k][i] = math.Inf(1) // no estimate is as far off as can be
			}
		}
		if math.Abs(median(est[k])/lambda-1) > tol {
			break
		}
		l = k + 1
	}
	return l
}

// dynamicRows orders the runs' rows by estimator (Last-Modified first),
// then τ.
func dynamicRows(cfg Config, runs []dynamicRun) []DynamicRow {
	var rows []DynamicRow
	for e := range 2 {
		for i := range cfg.Dynamic.Taus {
			rows = append(rows, runs[i][e])
		}
	}
	return rows
}
