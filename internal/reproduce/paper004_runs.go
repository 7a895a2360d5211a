package reproduce

// Paper 004's experiments (§4): the measurements behind the claims of
// paper004_claims.go, on the sampling world of paper004.go.

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/freshcrawl/freshcrawl/internal/policy/sampling"
	"github.com/freshcrawl/freshcrawl/internal/sim/simpolicy"
)

// Paper 004's setup (§4.2, spec §C.10–§C.11): 252 sites of 1,400 pages
// (353,000 pages in the paper, 352,800 here), R = 100,000 downloads a
// cycle, five cycles, s = 10, adaptive k = 10 and α = 0.9.
const (
	p004Sites  = 252
	p004Pages  = 1400
	p004Budget = 100000
	p004Cycles = 5
)

// The sweeps: Fig. 7's sample sizes, Fig. 8's budgets, Figs. 11–12's k
// and α (α swept for k = 1, 5, 10 only). Fig. 6's settings are among them
// at the given indices.
var (
	p004S     = []int{1, 2, 5, 10, 20, 50, 100, 200, 400}
	p004R     = []int{3000, 5000, 10000, 20000, 50000, 100000, 200000, 300000}
	p004K     = []int{1, 5, 10, 20, 50}
	p004Alpha = []float64{0.5, 0.75, 0.9, 0.99}
)

const (
	p004S10   = 3 // s = 10 in p004S
	p004R100k = 5 // R = 100,000 in p004R
	p004K10   = 2 // k = 10 in p004K
	p004A09   = 2 // α = 0.9 in p004Alpha
)

// paper004Result is paper 004's experiments on the synthetic V-shaped mix,
// each value the mean over seeds of a run's mean ChangeRatio over its
// cycles.
type paper004Result struct {
	// Seeds is the number of seeds; Changed the mean pages changed per
	// cycle.
	Seeds   int
	Changed float64
	// Fig. 6 at R = 100,000: frequency-based and round-robin; greedy and
	// proportional are Greedy[p004S10] and Prop[p004S10], adaptive
	// Adaptive[p004K10][p004A09].
	Frequency, RoundRobin float64
	// Fig. 7: greedy and proportional over p004S, and the standard
	// deviation across cycles at s = 1, the root mean square over seeds.
	Greedy, Prop       []float64
	SDGreedy1, SDProp1 float64
	// Fig. 8: greedy (s = 10), round-robin and oracle over p004R; Fig. 9:
	// subset sampling at R = 5,000.
	GreedyR, RoundRobinR, OracleR []float64
	Subset5k                      float64
	// Figs. 11–12: adaptive over p004K × p004Alpha (NaN where not run).
	Adaptive [][]float64
	// Fig. 10: the long run, per cycle, on a smaller world of the same r
	// (LongSites sites of 400 pages, LongBudget a cycle), and the
	// frequency policy's limit Σp²/Σp on it.
	LongSites, LongBudget int
	LongFrequency         []float64
	LongGreedy            []float64
	LongLimit             float64
}

// The long run's world: 63 sites of 400 pages, and the budget, rounded,
// that keeps r, the budget's share of the pages, as in the main world.
const (
	p004LongSites, p004LongPages = 63, 400
	p004LongBudget               = (2*p004Budget*p004LongSites*p004LongPages + p004Sites*p004Pages) / (2 * p004Sites * p004Pages)
)

func newPaper004Result(seeds, cycles int) *paper004Result {
	r := &paper004Result{Seeds: seeds, LongSites: p004LongSites, LongBudget: p004LongBudget,
		Greedy: make([]float64, len(p004S)), Prop: make([]float64, len(p004S)),
		GreedyR: make([]float64, len(p004R)), RoundRobinR: make([]float64, len(p004R)), OracleR: make([]float64, len(p004R)),
		Adaptive: make([][]float64, len(p004K)), LongFrequency: make([]float64, cycles), LongGreedy: make([]float64, cycles)}
	for j := range r.Adaptive {
		r.Adaptive[j] = make([]float64, len(p004Alpha))
	}
	return r
}

// measurePaper004 runs paper 004's experiments (spec §C.10) on spec §C.11's
// synthetic V-shaped mix, one world per seed shared by every policy:
// Fig. 6's comparison, Fig. 7's sample sizes, Fig. 8's budgets and Fig. 9's
// subset sampling, Figs. 11–12's adaptive parameters over five cycles, and
// Fig. 10's long run (the five cycles repeated) on 63 sites of 400 pages
// with the same r, cycles long.
func measurePaper004(ctx context.Context, seeds []uint64, cycles, par int) (paper004Result, error) {
	runs := make([]*paper004Result, len(seeds))
	var jobs []func(context.Context) error
	for k, seed := range seeds {
		runs[k] = newPaper004Result(1, cycles)
		jobs = append(jobs, runs[k].jobs(seed, cycles)...)
	}
	if err := runAll(ctx, par, jobs); err != nil {
		return paper004Result{}, fmt.Errorf("paper 004: %w", err)
	}
	return meanPaper004(runs, cycles), nil
}

// jobs are one seed's experiments, each filling its part of r, the
// seed's result.
func (r *paper004Result) jobs(seed uint64, cycles int) []func(context.Context) error {
	rng := func(stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }
	world := sync.OnceValue(func() *SamplingWorld { return VShapedWorld(p004Sites, p004Pages, p004Cycles, rng(0)) })
	fs := []func(){
		func() { r.measureFig6(world()) },
		func() { r.measureFig7(world(), rng) },
		func() { r.measureFig89(world(), rng) },
		func() { r.measureFig10(cycles, rng) },
	}
	for j := range p004K {
		fs = append(fs, func() { r.measureFig11(world(), j, rng) })
	}
	jobs := make([]func(context.Context) error, len(fs))
	for i, f := range fs {
		jobs[i] = func(ctx context.Context) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			f()
			return nil
		}
	}
	return jobs
}

// measureFig6 measures the pages changed a cycle and Fig. 6's
// frequency-based and round-robin policies.
func (r *paper004Result) measureFig6(w *SamplingWorld) {
	for c := range p004Cycles {
		r.Changed += float64(w.Changed(c)) / p004Cycles
	}
	r.Frequency = Mean(w.RunFrequency(p004Budget, p004Cycles))
	r.RoundRobin = Mean(w.RunRoundRobin(p004Budget, p004Cycles))
}

// measureFig7 measures greedy and proportional over Fig. 7's sample
// sizes.
func (r *paper004Result) measureFig7(w *SamplingWorld, rng func(uint64) *rand.Rand) {
	for j, s := range p004S {
		// One stream for both: the same samples, so that the two differ
		// only in how they spend the rest.
		g := w.RunSampled(sampling.SampledGreedy, s, p004Budget, p004Cycles, rng(1))
		p := w.RunSampled(sampling.SampledProportional, s, p004Budget, p004Cycles, rng(1))
		r.Greedy[j], r.Prop[j] = Mean(g), Mean(p)
		if s == 1 {
			r.SDGreedy1, r.SDProp1 = simpolicy.StatOf(g).SD, simpolicy.StatOf(p).SD
		}
	}
}

// measureFig89 measures greedy, round-robin and the oracle over Fig. 8's
// budgets, and Fig. 9's subset sampling.
func (r *paper004Result) measureFig89(w *SamplingWorld, rng func(uint64) *rand.Rand) {
	for j, R := range p004R {
		r.GreedyR[j] = Mean(w.RunSampled(sampling.SampledGreedy, 10, R, p004Cycles, rng(3)))
		r.RoundRobinR[j] = Mean(w.RunRoundRobin(R, p004Cycles))
		for c := range p004Cycles {
			r.OracleR[j] += w.Oracle(R, c) / p004Cycles
		}
	}
	// Fig. 9: subsets sized so that R is 18% of their pages (§4.4).
	r.Subset5k = Mean(w.RunSubset(int(math.Round(5000/0.18)), 10, 5000, p004Cycles, rng(4)))
}

// measureFig10 runs the long run on its own smaller world.
func (r *paper004Result) measureFig10(cycles int, rng func(uint64) *rand.Rand) {
	lw := VShapedWorld(p004LongSites, p004LongPages, p004Cycles, rng(6))
	r.LongFrequency = lw.RunFrequency(p004LongBudget, cycles)
	r.LongGreedy = lw.RunSampled(sampling.SampledGreedy, 10, p004LongBudget, cycles, rng(7))
	r.LongLimit = lw.FrequencyLimit()
}

// measureFig11 measures adaptive sampling at k = p004K[j] over Fig. 12's
// α, or at α = 0.9 alone for k above 10.
func (r *paper004Result) measureFig11(w *SamplingWorld, j int, rng func(uint64) *rand.Rand) {
	k := p004K[j]
	for a, alpha := range p004Alpha {
		r.Adaptive[j][a] = math.NaN()
		if k > 10 && a != p004A09 {
			continue
		}
		r.Adaptive[j][a] = Mean(w.RunAdaptive(sampling.AdaptiveSampling{Alpha: alpha, K: k}, p004Budget, p004Cycles, rng(5)))
	}
}

// meanPaper004 averages the seeds' results: each value's mean, and the
// root mean square of the standard deviations.
func meanPaper004(runs []*paper004Result, cycles int) paper004Result {
	n := float64(len(runs))
	res := newPaper004Result(len(runs), cycles)
	add := func(dst, src []float64) {
		for i, v := range src {
			dst[i] += v / n
		}
	}
	for _, r := range runs {
		res.Changed += r.Changed / n
		res.Frequency += r.Frequency / n
		res.RoundRobin += r.RoundRobin / n
		res.SDGreedy1 += r.SDGreedy1 * r.SDGreedy1 / n
		res.SDProp1 += r.SDProp1 * r.SDProp1 / n
		res.Subset5k += r.Subset5k / n
		res.LongLimit += r.LongLimit / n
		add(res.Greedy, r.Greedy)
		add(res.Prop, r.Prop)
		add(res.GreedyR, r.GreedyR)
		add(res.RoundRobinR, r.RoundRobinR)
		add(res.OracleR, r.OracleR)
		add(res.LongFrequency, r.LongFrequency)
		add(res.LongGreedy, r.LongGreedy)
		for j := range res.Adaptive {
			add(res.Adaptive[j], r.Adaptive[j])
		}
	}
	res.SDGreedy1, res.SDProp1 = math.Sqrt(res.SDGreedy1), math.Sqrt(res.SDProp1)
	return *res
}
