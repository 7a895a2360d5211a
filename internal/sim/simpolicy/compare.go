package simpolicy

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/sim"
)

const day = 86400.0

// Comparison is a run of several policies on one workload over several
// seeds; the oracle is always run too, as the reference.
type Comparison struct {
	Setup
	// Policies to compare, names from Policies.
	Policies []string
	// Model and LastModified describe the pages (see Ch4Pages).
	Model        Model
	LastModified float64
	// Days and WarmUp are the run's length and the part of it left out of
	// the averages, in days.
	Days, WarmUp float64
	// ReplanEvery is the learning policies' re-plan period in seconds;
	// zero means one day.
	ReplanEvery float64
	// Seeds are the seeds to repeat the run with; each seed draws new pages
	// and new changes.
	Seeds []uint64
	// Parallel is the number of runs at once; zero means GOMAXPROCS.
	Parallel int
}

// Stat is a mean over seeds and the sample standard deviation (0 for one
// seed).
type Stat struct{ Mean, SD float64 }

// StatOf returns the mean of xs and their sample standard deviation.
func StatOf(xs []float64) Stat {
	var s Stat
	for _, x := range xs {
		s.Mean += x
	}
	s.Mean /= float64(len(xs))
	if len(xs) > 1 {
		v := 0.0
		for _, x := range xs {
			v += (x - s.Mean) * (x - s.Mean)
		}
		s.SD = math.Sqrt(v / float64(len(xs)-1))
	}
	return s
}

// Row is one policy's results over the seeds.
type Row struct {
	Policy string
	// Freshness and Age (seconds) are the time averages after warm-up;
	// OfOracle is freshness as a share of the oracle's in the same seed.
	Freshness, Age, OfOracle Stat
	// Harmonic is the time-averaged harmonic staleness (sim.Result's).
	Harmonic Stat
	// Fetches and Changes are the fetches after warm-up and those that
	// found the page changed; Delay is the mean fetch delay in seconds.
	Fetches, Changes, Delay Stat
	// BudgetUsed is the fetches after warm-up as a share of those the
	// budget allows in that time.
	BudgetUsed Stat
	// ToGivenUp is the share of the fetches after warm-up that went to
	// pages the oracle gives up (f = 0 in the optimal allocation on the
	// true rates): budget the optimum would have spent elsewhere.
	ToGivenUp Stat
	// ToGivenUpPerSeed is ToGivenUp seed by seed.
	ToGivenUpPerSeed []float64
	// Wall is the total wall time of the policy's runs.
	Wall time.Duration
	// Series is freshness and age over the whole run, one point a day,
	// averaged over the seeds.
	Series []sim.Point
	// PerSeed is each seed's result.
	PerSeed []*sim.Result
}

// Report is a Comparison's outcome: one Row per policy, the oracle
// included, in the order asked (the oracle where asked, else last).
type Report struct {
	Rows []Row
	Wall time.Duration
}

// Compare runs every policy of c, and the oracle, on every seed.
func Compare(ctx context.Context, c Comparison) (*Report, error) {
	if len(c.Seeds) == 0 {
		return nil, fmt.Errorf("compare: no seeds")
	}
	names := append([]string(nil), c.Policies...)
	oracle := -1
	for i, n := range names {
		if !slices.Contains(Policies, n) {
			return nil, fmt.Errorf("unknown policy %q (want one of %v)", n, Policies)
		}
		if n == "oracle" {
			oracle = i
		}
	}
	if oracle < 0 {
		names = append(names, "oracle")
		oracle = len(names) - 1
	}
	type job struct{ p, s int }
	results := make([][]*sim.Result, len(names))
	walls := make([][]time.Duration, len(names))
	shares := make([][]float64, len(names))
	for i := range results {
		results[i] = make([]*sim.Result, len(c.Seeds))
		walls[i] = make([]time.Duration, len(c.Seeds))
		shares[i] = make([]float64, len(c.Seeds))
	}
	pages, givenUp, err := c.workloads()
	if err != nil {
		return nil, err
	}
	jobs := make(chan job)
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	par := c.Parallel
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	start := time.Now()
	for range par {
		wg.Go(func() {
			for j := range jobs {
				cfg := sim.Config{Pages: pages[j.s], Seed: c.Seeds[j.s], Duration: c.Days * day,
					WarmUp: c.WarmUp * day, Budget: c.Budget, ReplanEvery: c.ReplanEvery, SeriesStep: day, PerPage: true}
				t0 := time.Now()
				r, err := Run(ctx, cfg, names[j.p], c.Setup)
				if r != nil {
					shares[j.p][j.s] = ShareTo(r.PerPage, givenUp[j.s])
					r.PerPage = nil // 48 bytes a page, not kept for every run
				}
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("seed %d: %w", c.Seeds[j.s], err)
				}
				results[j.p][j.s], walls[j.p][j.s] = r, time.Since(t0)
				mu.Unlock()
			}
		})
	}
	for s := range c.Seeds {
		for p := range names {
			jobs <- job{p, s}
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	rep := &Report{Wall: time.Since(start)}
	for p, n := range names {
		row := summarise(n, results[p], results[oracle], walls[p], c.Budget)
		row.ToGivenUp, row.ToGivenUpPerSeed = StatOf(shares[p]), shares[p]
		rep.Rows = append(rep.Rows, row)
	}
	return rep, nil
}

// workloads returns each seed's pages and which of them the oracle gives
// up.
func (c Comparison) workloads() (pages [][]sim.Page, givenUp [][]bool, err error) {
	pages = make([][]sim.Page, len(c.Seeds))
	givenUp = make([][]bool, len(c.Seeds))
	for s, seed := range c.Seeds {
		pages[s] = Ch4Pages(c.Pages, c.Model, c.LastModified, seed)
		if givenUp[s], err = OracleGivenUp(pages[s], c.Setup); err != nil {
			return nil, nil, fmt.Errorf("seed %d: %w", seed, err)
		}
	}
	return pages, givenUp, nil
}

func summarise(name string, rs, oracle []*sim.Result, walls []time.Duration, budget float64) Row {
	row := Row{Policy: name, PerSeed: rs}
	col := func(f func(i int, r *sim.Result) float64) Stat {
		xs := make([]float64, len(rs))
		for i, r := range rs {
			xs[i] = f(i, r)
		}
		return StatOf(xs)
	}
	row.Freshness = col(func(_ int, r *sim.Result) float64 { return r.Freshness })
	row.Age = col(func(_ int, r *sim.Result) float64 { return r.Age })
	row.Harmonic = col(func(_ int, r *sim.Result) float64 { return r.Harmonic })
	row.OfOracle = col(func(i int, r *sim.Result) float64 { return r.Freshness / oracle[i].Freshness })
	row.Fetches = col(func(_ int, r *sim.Result) float64 { return float64(r.Fetches) })
	row.BudgetUsed = col(func(_ int, r *sim.Result) float64 { return float64(r.Fetches) / (budget * r.Window) })
	row.Changes = col(func(_ int, r *sim.Result) float64 { return float64(r.ChangesDetected) })
	row.Delay = col(func(_ int, r *sim.Result) float64 { return r.MeanDelay })
	for _, w := range walls {
		row.Wall += w
	}
	row.Series = append([]sim.Point(nil), rs[0].Series...)
	for j := range row.Series {
		var f, a float64
		for _, r := range rs {
			f += r.Series[j].Freshness
			a += r.Series[j].Age
		}
		row.Series[j].Freshness = f / float64(len(rs))
		row.Series[j].Age = a / float64(len(rs))
	}
	return row
}

// OracleGivenUp reports, page by page, whether the oracle's allocation on
// the pages' true rates gives the page up (f = 0), with s's budget and
// allocator.
func OracleGivenUp(pages []sim.Page, s Setup) ([]bool, error) {
	o := Oracle{Config: policy.OnlineConfig{Budget: s.Budget, Allocator: s.Allocator}}
	o.SetTruth(pages)
	if o.Err != nil {
		return nil, o.Err
	}
	out := make([]bool, len(pages))
	for i := range out {
		out[i] = o.P.Frequency(i) == 0
	}
	return out, nil
}

// ShareTo returns the share of the fetches in perPage that went to the
// pages marked in mask (0 when there was no fetch).
func ShareTo(perPage []sim.PageResult, mask []bool) float64 {
	var all, in int64
	for i, p := range perPage {
		all += int64(p.Fetches)
		if mask[i] {
			in += int64(p.Fetches)
		}
	}
	if all == 0 {
		return 0
	}
	return float64(in) / float64(all)
}
