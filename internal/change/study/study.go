// Package study measures how accurately the change-rate estimators of
// package change recover known rates: the project's own version of Cho's
// dissertation Figs. 6.5–6.15 and §6.8 (issue 4). Pages with a known rate λ
// change by a Poisson process or, to break the model, a gamma renewal
// process of the same rate (§6.8.1); a crawler visits each on a regular or
// an irregular schedule of mean interval 1/f; every estimator sees the
// first n visits, and the study reports the relative error of its estimate
// against r = λ/f and n. A second experiment measures how fast exponential
// forgetting (change.Stats.Decay) follows a rate that jumps, and what it
// costs in noise.
//
// Everything is synthetic and seeded: the same Config gives the same
// Result, whatever the number of workers.
package study

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/freshcrawl/freshcrawl/internal/change"
)

// Interval is the mean visit interval 1/f of the study, one week in
// seconds. The estimators are scale-free except two that carry absolute
// rates: Bayes's classes (daily to yearly) and paper 001's prior (57.5 h).
// A week puts the r grid's rates, one change in 70 days to five a week,
// across the classes, as the dissertation's Fig. 6.16 (10-day visits) does.
const Interval = 7 * 24 * 3600.0

// Config is what the study simulates. A zero number or a nil slice means
// DefaultConfig's value, except for Seed, where 0 is a seed like any other;
// an empty non-nil slice means none (Dynamic.Taus: no rate-switch
// experiment).
type Config struct {
	// Seed seeds every random stream; a cell's trials depend only on the
	// seed and the cell, not on the grid or the workers.
	Seed uint64 `json:"seed"`
	// Trials is the number of simulated pages per cell.
	Trials int `json:"trials"`
	// Rs are the rates to study as r = λ/f.
	Rs []float64 `json:"r"`
	// Ns are the numbers of visits compared (observations) at which every
	// estimator is evaluated. A trial's visits are shared: its estimate
	// at n = 10 is made from the first 10 of the visits that give n = 20.
	Ns []int `json:"n"`
	// Processes are the change processes.
	Processes []Process `json:"processes"`
	// Schedules are the visit schedules.
	Schedules []Schedule `json:"schedules"`
	// Dynamic is the rate-switch experiment.
	Dynamic DynamicConfig `json:"dynamic"`
	// Workers is the number of goroutines; 0 means GOMAXPROCS. It does not
	// change the Result.
	Workers int `json:"-"`
}

// DynamicConfig is the experiment on a rate that jumps (dissertation §6.7,
// which names the problem but gives no method): pages change by a Poisson
// process at r = R for Before visits, then at R·Factor (up) or R/Factor
// (down) for After visits, on regular visits, and the crawler's estimators
// forget with time constant τ.
type DynamicConfig struct {
	// Taus are the time constants τ in visit intervals; 0 means no
	// forgetting.
	Taus []float64 `json:"tau"`
	// Trials is the number of pages per τ and direction.
	Trials int `json:"trials"`
	// Before and After are the visits before and after the switch.
	Before int `json:"before"`
	After  int `json:"after"`
	// R is the rate before the switch, as λ/f.
	R float64 `json:"r"`
	// Factor is how many times the rate rises, or falls.
	Factor float64 `json:"factor"`
	// Tolerance is how close to the new rate the median estimate must be
	// (relative) for the estimator to have caught up.
	Tolerance float64 `json:"tolerance"`
}

// DefaultConfig returns the full study: 2,000 trials per cell over eight
// r, five n, three processes (Poisson, gamma shape 0.5 and 2) and the three
// schedules, and the dynamic experiment with τ ∈ {none, 10, 25, 50, 100,
// 200}.
func DefaultConfig() Config {
	return Config{
		Seed:      1,
		Trials:    2000,
		Rs:        []float64{0.1, 0.25, 0.5, 1, 1.5, 2, 3, 5},
		Ns:        []int{5, 10, 20, 50, 100},
		Processes: []Process{Poisson, {Shape: 0.5}, {Shape: 2}},
		Schedules: slices.Clone(Schedules),
		Dynamic: DynamicConfig{
			Taus:      []float64{0, 10, 25, 50, 100, 200},
			Trials:    2000,
			Before:    100,
			After:     100,
			R:         1,
			Factor:    4,
			Tolerance: 0.25,
		},
	}
}

// QuickConfig returns a small study for tests and CI: three r, two n (20
// is kept, as the table's r columns are drawn there, and so is r = 1.5, its
// n columns'), Poisson and gamma-2 changes, 300 trials, and two τ.
func QuickConfig() Config {
	c := DefaultConfig()
	c.Trials = 300
	c.Rs = []float64{0.5, 1.5, 3}
	c.Ns = []int{5, 20}
	c.Processes = []Process{Poisson, {Shape: 2}}
	c.Dynamic.Taus = []float64{0, 25}
	c.Dynamic.Trials = 300
	return c
}

// withDefaults fills the zero fields from DefaultConfig.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Trials == 0 {
		c.Trials = d.Trials
	}
	if c.Rs == nil {
		c.Rs = d.Rs
	}
	if c.Ns == nil {
		c.Ns = d.Ns
	}
	if c.Processes == nil {
		c.Processes = d.Processes
	}
	if c.Schedules == nil {
		c.Schedules = d.Schedules
	}
	dd, cd := d.Dynamic, &c.Dynamic
	if cd.Taus == nil {
		cd.Taus = dd.Taus
	}
	if cd.Trials == 0 {
		cd.Trials = dd.Trials
	}
	if cd.Before == 0 {
		cd.Before = dd.Before
	}
	if cd.After == 0 {
		cd.After = dd.After
	}
	if cd.R == 0 {
		cd.R = dd.R
	}
	if cd.Factor == 0 {
		cd.Factor = dd.Factor
	}
	if cd.Tolerance == 0 {
		cd.Tolerance = dd.Tolerance
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	return c
}

// validate reports the first field of c that cannot be simulated.
func (c Config) validate() error {
	switch {
	case c.Trials < 1:
		return fmt.Errorf("study: %d trials", c.Trials)
	case c.Dynamic.Trials < 1:
		return fmt.Errorf("study: %d dynamic trials", c.Dynamic.Trials)
	case c.Dynamic.Before < 1 || c.Dynamic.After < 1:
		return fmt.Errorf("study: dynamic visits %d before and %d after the switch", c.Dynamic.Before, c.Dynamic.After)
	case !(c.Dynamic.R > 0) || !(c.Dynamic.Factor > 0) || !(c.Dynamic.Tolerance > 0):
		return fmt.Errorf("study: dynamic r %v, factor %v, tolerance %v", c.Dynamic.R, c.Dynamic.Factor, c.Dynamic.Tolerance)
	}
	for _, r := range c.Rs {
		if !(r > 0) || math.IsInf(r, 1) {
			return fmt.Errorf("study: r = %v", r)
		}
	}
	for _, n := range c.Ns {
		if n < 1 {
			return fmt.Errorf("study: n = %d", n)
		}
	}
	for _, p := range c.Processes {
		if !(p.Shape > 0) || math.IsInf(p.Shape, 1) {
			return fmt.Errorf("study: gamma shape %v", p.Shape)
		}
	}
	for _, s := range c.Schedules {
		if s < Regular || s > Exponential {
			return fmt.Errorf("study: unknown schedule %d", int(s))
		}
	}
	for _, t := range c.Dynamic.Taus {
		if !(t >= 0) || math.IsInf(t, 1) {
			return fmt.Errorf("study: τ = %v", t)
		}
	}
	return nil
}

// Cell is one estimator's accuracy in one setting.
type Cell struct {
	Process      string  `json:"process"`       // Process.Name
	Schedule     string  `json:"schedule"`      // Schedule.String
	LastModified bool    `json:"last_modified"` // whether the estimator used Last-Modified
	Estimator    string  `json:"estimator"`
	R            float64 `json:"r"`
	N            int     `json:"n"`
	Metrics
}

// Result is the outcome of Run.
type Result struct {
	Config Config `json:"config"`
	// Interval is the mean visit interval 1/f in seconds.
	Interval float64 `json:"interval_seconds"`
	// PopulationR is the geometric mean of Config.Rs: the rate, as λ/f, of
	// the empirical-Bayes prior (PriorEB and Auto).
	PopulationR float64 `json:"population_r"`
	// Cells hold every estimator in every setting, ordered by process,
	// schedule, r, then the estimators in the order of the table, then n.
	Cells []Cell `json:"cells"`
	// Dynamic holds the rate-switch experiment, by estimator, then τ.
	Dynamic []DynamicRow `json:"dynamic"`
}

// Run simulates the study described by cfg. It returns ctx's error if ctx
// is cancelled first.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	logSum := 0.0
	for _, r := range cfg.Rs {
		logSum += math.Log(r)
	}
	res := &Result{Config: cfg, Interval: Interval, PopulationR: math.Exp(logSum / float64(len(cfg.Rs)))}
	popRate := res.PopulationR / Interval

	// One job per (process, schedule, r) and per τ; each writes its own
	// slot, so the order of the output does not depend on scheduling.
	var static []staticJob
	for _, p := range cfg.Processes {
		for _, s := range cfg.Schedules {
			for _, r := range cfg.Rs {
				static = append(static, staticJob{process: p, schedule: s, r: r})
			}
		}
	}
	staticOut := make([][]Cell, len(static))
	dynOut := make([]dynamicRun, len(cfg.Dynamic.Taus))
	jobs := make(chan func() error)
	errs := make(chan error, cfg.Workers)
	var wg sync.WaitGroup
	for range cfg.Workers {
		wg.Go(func() {
			for job := range jobs {
				if err := job(); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		})
	}
	send := func(job func() error) bool {
		select {
		case jobs <- job:
			return true
		case <-ctx.Done():
			return false
		}
	}
	// The dynamic jobs are the longest; they go first so that the static
	// ones fill in around them.
	sent := true
	for i, tau := range cfg.Dynamic.Taus {
		sent = sent && send(func() error {
			var err error
			dynOut[i], err = runDynamic(ctx, cfg, tau, popRate)
			return err
		})
	}
	for i, job := range static {
		sent = sent && send(func() error {
			var err error
			staticOut[i], err = job.run(ctx, cfg, popRate)
			return err
		})
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case err := <-errs:
		return nil, err
	default:
	}
	for _, cells := range staticOut {
		res.Cells = append(res.Cells, cells...)
	}
	res.Dynamic = dynamicRows(cfg, dynOut)
	return res, nil
}

// streamKey identifies a job's random streams: a hash of the seed and the
// job's name, so that a cell's draws do not depend on what else the grid
// holds.
func streamKey(seed uint64, name string) uint64 {
	h := fnv.New64a()
	h.Write(binary.LittleEndian.AppendUint64(nil, seed))
	h.Write([]byte(name))
	return h.Sum64()
}

// staticJob is the trials of one (process, schedule, r).
type staticJob struct {
	process  Process
	schedule Schedule
	r        float64
}

// run simulates the job's trials and returns a Cell for every estimator
// and n.
func (j staticJob) run(ctx context.Context, cfg Config, popRate float64) ([]Cell, error) {
	lambda := j.r / Interval
	ests, err := estimators(lambda, popRate)
	if err != nil {
		return nil, err
	}
	ns := slices.Sorted(slices.Values(cfg.Ns))
	ns = slices.Compact(ns)
	nmax := ns[len(ns)-1]
	// est[e][k][trial] is estimator e's estimate after ns[k] visits.
	est := make([][][]float64, len(ests))
	for e := range est {
		est[e] = make([][]float64, len(ns))
		for k := range ns {
			est[e][k] = make([]float64, cfg.Trials)
		}
	}
	key := streamKey(cfg.Seed, fmt.Sprintf("static/%s/%s/%g", j.process.Name(), j.schedule, j.r))
	src := rand.NewPCG(0, 0)
	rng := rand.New(src)
	for trial := range cfg.Trials {
		if trial%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		src.Seed(key, uint64(trial)) // each trial its own stream
		pg := newPage(rng, j.process, lambda, j.schedule, Interval)
		var s change.Stats
		k := 0
		for visit := 1; visit <= nmax; visit++ {
			s.Add(pg.visit())
			if visit != ns[k] {
				continue
			}
			for e, en := range ests {
				est[e][k][trial] = rate(en.est.Estimate(&s))
			}
			k++
		}
	}
	var cells []Cell
	for e, en := range ests {
		for k, n := range ns {
			cells = append(cells, Cell{
				Process:      j.process.Name(),
				Schedule:     j.schedule.String(),
				LastModified: en.lm,
				Estimator:    en.name,
				R:            j.r,
				N:            n,
				Metrics:      summarise(est[e][k], lambda),
			})
		}
	}
	return cells, nil
}

// rate returns e's rate, NaN when e is not OK.
func rate(e change.Estimate) float64 {
	if !e.OK {
		return math.NaN()
	}
	return e.Rate
}
