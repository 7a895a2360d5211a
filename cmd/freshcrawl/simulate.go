package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/dataset"
	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/sim/simpolicy"
)

// simulateOptions are the simulate command's flags.
type simulateOptions struct {
	pages, seeds, parallel       int
	seed                         uint64
	days, warmup, budget         float64
	lastMod, maxInterval, replan float64
	priorWeight                  float64
	policy, objective, model     string
	csvFile, plotFile            string
	knownRates, asJSON           bool
}

func simulateFlags(o *simulateOptions) *flag.FlagSet {
	fs := newFlagSet("simulate")
	fs.IntVar(&o.pages, "pages", 10000, "number of `pages`")
	fs.Float64Var(&o.days, "days", 150, "simulated `days`")
	fs.Float64Var(&o.warmup, "warmup", 60, "`days` at the start left out of the averages")
	fs.Float64Var(&o.budget, "budget", 0, "`fetches` per day (0: pages/3, a third of a daily visit per page)")
	fs.StringVar(&o.policy, "policy", "all", "policy `names`, comma-separated: "+strings.Join(simpolicy.Policies, ", ")+"; or all")
	fs.StringVar(&o.objective, "objective", "freshness", "freshness, age or harmonic")
	fs.StringVar(&o.model, "model", "poisson", "change `model`: poisson, pareto, qd or mix")
	fs.Float64Var(&o.lastMod, "lastmod", 0.6, "`share` of pages sending an honest Last-Modified (simweb: 0.6)")
	fs.BoolVar(&o.knownRates, "known-rates", false, "give default and proportional the true rates instead of learning them")
	fs.IntVar(&o.seeds, "seeds", 1, "repeat with `k` seeds and report mean ± standard deviation")
	fs.Uint64Var(&o.seed, "seed", 1, "first `seed`; the runs use seed, seed+1, ...")
	fs.Float64Var(&o.maxInterval, "max-interval", policy.DefaultMaxInterval/secondsPerDay, "default's longest interval and probe interval of given-up pages, in `days`")
	fs.Float64Var(&o.priorWeight, "prior-weight", 1, "`weight` of default's empirical-Bayes prior, in pseudo-observations (paper 001 uses 1)")
	fs.Float64Var(&o.replan, "replan", 24, "default's re-plan period in `hours`")
	fs.IntVar(&o.parallel, "parallel", 0, "`runs` at once (0: one per CPU)")
	fs.StringVar(&o.csvFile, "csv", "", "write freshness and age over time to `file`")
	fs.StringVar(&o.plotFile, "plot", "", "draw freshness over time to `file`.png or .svg")
	fs.BoolVar(&o.asJSON, "json", false, "print the results as JSON")
	return fs
}

// comparison checks the flags and builds the comparison they ask for.
func (o *simulateOptions) comparison() (simpolicy.Comparison, error) {
	var c simpolicy.Comparison
	if err := o.check(); err != nil {
		return c, err
	}
	switch o.objective {
	case "freshness":
		c.Allocator = policy.OptimalFreshness{}
	case "age":
		c.Allocator = policy.OptimalAge{}
	case "harmonic":
		c.Allocator = policy.OptimalHarmonic{}
	default:
		return c, fmt.Errorf("unknown -objective %q (want freshness, age or harmonic)", o.objective)
	}
	m, err := simpolicy.ParseModel(o.model)
	if err != nil {
		return c, fmt.Errorf("-model: %w", err)
	}
	c.Policies = simpolicy.Policies
	if o.policy != "all" {
		c.Policies = nil
		for _, name := range strings.Split(o.policy, ",") {
			if !slices.Contains(simpolicy.Policies, name) {
				return c, fmt.Errorf("unknown -policy %q (want %s or all, or a comma-separated list)", name, strings.Join(simpolicy.Policies, ", "))
			}
			if !slices.Contains(c.Policies, name) {
				c.Policies = append(c.Policies, name)
			}
		}
	}
	budget := o.budget
	if budget == 0 {
		budget = float64(o.pages) / 3
	}
	c.Pages, c.Budget = o.pages, budget/secondsPerDay
	c.KnownRates = o.knownRates
	c.MaxInterval = o.maxInterval * secondsPerDay
	c.PriorWeight = o.priorWeight
	c.Model, c.LastModified = m, o.lastMod
	c.Days, c.WarmUp = o.days, o.warmup
	c.ReplanEvery = o.replan * 3600
	c.Parallel = o.parallel
	for k := range o.seeds {
		c.Seeds = append(c.Seeds, o.seed+uint64(k))
	}
	return c, nil
}

// check checks the numbers and the plot file's name.
func (o *simulateOptions) check() error {
	pos := func(x float64) bool { return x > 0 && !math.IsInf(x, 1) }
	switch {
	case o.pages < 1 || o.pages > 1<<26:
		return fmt.Errorf("-pages must be between 1 and %d", 1<<26)
	case !pos(o.days):
		return errors.New("-days must be a positive number")
	case !(o.warmup >= 0 && o.warmup < o.days):
		return errors.New("-warmup must be at least 0 and less than -days")
	case !(o.budget >= 0) || math.IsInf(o.budget, 1):
		return errors.New("-budget must be a positive number of fetches per day")
	case !(o.lastMod >= 0 && o.lastMod <= 1):
		return errors.New("-lastmod must be a share between 0 and 1")
	case o.seeds < 1 || o.seeds > 1000:
		return errors.New("-seeds must be between 1 and 1000")
	case !pos(o.maxInterval):
		return errors.New("-max-interval must be a positive number of days")
	case !pos(o.priorWeight):
		return errors.New("-prior-weight must be a positive number")
	case !pos(o.replan):
		return errors.New("-replan must be a positive number of hours")
	case o.parallel < 0:
		return errors.New("-parallel must not be negative")
	}
	if o.plotFile != "" && plotFormat(o.plotFile) == "" {
		return fmt.Errorf("-plot %s: the file name must end in .png or .svg", o.plotFile)
	}
	return nil
}

func runSimulate(args []string, stdout, stderr io.Writer) int {
	var o simulateOptions
	fs := simulateFlags(&o)
	if code, ok := parseArgs("simulate", fs, args, stdout, stderr); !ok {
		return code
	}
	c, err := o.comparison()
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl simulate: %v\n", err)
		return 2
	}
	rep, err := simpolicy.Compare(context.Background(), c)
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl simulate: %v\n", err)
		return 1
	}
	if o.csvFile != "" {
		if err := writeFileWith(o.csvFile, buffered(func(w io.Writer) error { return rep.WriteSeriesCSV(w) })); err != nil {
			fmt.Fprintf(stderr, "freshcrawl simulate: %v\n", err)
			return 1
		}
	}
	if o.plotFile != "" {
		format := plotFormat(o.plotFile)
		if err := writeFileWith(o.plotFile, buffered(func(w io.Writer) error {
			return simpolicy.FreshnessChart(rep, o.warmup).Write(w, format, simpolicy.PlotSize)
		})); err != nil {
			fmt.Fprintf(stderr, "freshcrawl simulate: %v\n", err)
			return 1
		}
	}
	w := bufio.NewWriter(stdout)
	if o.asJSON {
		err = rep.WriteJSON(w, c)
	} else {
		writeSimulate(w, c, rep)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl simulate: %v\n", err)
		return 1
	}
	return 0
}

// buffered wraps a writing function in a bufio.Writer.
func buffered(write func(io.Writer) error) func(io.Writer) error {
	return func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
}

// pm formats a Stat as "mean ± sd" with format f, or the mean alone for
// one seed.
func pm(s simpolicy.Stat, f string, seeds int) string {
	if seeds < 2 {
		return fmt.Sprintf(f, s.Mean)
	}
	return fmt.Sprintf(f+" ± "+f, s.Mean, s.SD)
}

func writeSimulate(w io.Writer, c simpolicy.Comparison, rep *simpolicy.Report) {
	k := len(c.Seeds)
	fmt.Fprintf(w, "%d pages, %s changes (ch. 4 rate mix), budget %.6g fetches/day, %g days (warm-up %g), %s, %d seed(s)",
		c.Pages, c.Model, c.Budget*secondsPerDay, c.Days, c.WarmUp, c.Objective(), k)
	if c.KnownRates {
		fmt.Fprint(w, ", known rates")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "policy\tfreshness\t% of oracle\tage (days)\tharmonic\tfetches\tbudget used\tchanges\tto given-up\tdelay\twall\t\n")
	for _, r := range rep.Rows {
		pct := r.OfOracle
		pct.Mean, pct.SD = 100*pct.Mean, 100*pct.SD
		age := r.Age
		age.Mean, age.SD = age.Mean/secondsPerDay, age.SD/secondsPerDay
		toGivenUp := r.ToGivenUp
		toGivenUp.Mean, toGivenUp.SD = 100*toGivenUp.Mean, 100*toGivenUp.SD
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.0f\t%.3f\t%.0f\t%s %%\t%s\t%s\t\n", r.Policy, pm(r.Freshness, "%.4f", k), pm(pct, "%.2f", k),
			pm(age, "%.3g", k), pm(r.Harmonic, "%.4f", k), r.Fetches.Mean, r.BudgetUsed.Mean, r.Changes.Mean, pm(toGivenUp, "%.1f", k),
			dataset.HumanSeconds(r.Delay.Mean), r.Wall.Round(time.Millisecond))
	}
	tw.Flush()
	fmt.Fprintf(w, "wall time %v\n", rep.Wall.Round(time.Millisecond))
}
