package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/freshcrawl/freshcrawl/internal/change/study"
)

func accuracyHelp(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, `Usage: freshcrawl accuracy [-seed N] [-trials N] [-quick] [-csv FILE] [-plot FILE] [-json]

Measure how accurately each change-rate estimator recovers known rates, on
synthetic pages (no network): Cho's dissertation Figs. 6.5-6.15 and §6.8
redone for this project's estimators. A page changes at rate λ by a Poisson
process, or by a renewal process with gamma-distributed gaps of shape 0.5
(bursty) or 2 (regular) and the same mean; a crawler visits it every week
on average, regularly, at intervals uniform on [0.5, 1.5] weeks, or at
exponential intervals (random visits); r = λ/f is the rate in changes per
visit interval. Each estimator sees the first n visits after the first.
The run is deterministic for a given -seed and -trials.

The table has one block per change process and visit schedule, a row per
estimator and two sweeps:
  left   relative bias E[λ̂]/λ − 1, in %%, at n = 20 visits, one column per r
  right  relative RMSE √E[(λ̂/λ − 1)²], in %%, at r = 1.5, one column per n
A "!" marks a cell where some trials gave no estimate (those are left out
of the mean; the CSV counts them); "n/a", none did. Estimators:
  naive          X/T, changes seen over time watched (§6.4.1)
  improved       −log((X̄+0.5)/(n+0.5))·f, for regular visits (§6.4.2)
  mle            eq. 6.3, the MLE for irregular visits (§6.4.3)
  bayes          the most probable of 5 classes, daily to yearly (§6.6)
  prior-mle      eq. 6.3 with paper 001's prior (one change in 57.5 h)
  prior-mle-eb   the same prior moved to the population's geometric-mean rate
                 (empirical Bayes, what the crawler learns from a site)
  prior-mle-10x  the same prior moved to 10 times the page's true rate
  auto           the crawler's rule: lm-reduced* once Last-Modified has
                 shown 2 changes, else prior-mle-eb
  lm*            X/T with the Last-Modified dates (§6.5, Fig. 6.11)
  lm-reduced*    the bias-reduced Last-Modified estimator (Fig. 6.14)
  auto-early*    the rule the study rejected: lm-reduced from 2
                 Last-Modified visits, changed or not
* marks the estimators that read Last-Modified, exact in this study.

The rate-switch table follows a page whose rate jumps 4-fold up or down
after 100 visits, with the crawler's rule and exponential forgetting of
time constant τ visit intervals (none: no forgetting):
  before  bias and RMSE (%%) just before the switch: the memory's noise
  lag     visits after the switch from which the median estimate stays
          within 25 %% of the new rate; never: not within 100 visits
  bias, RMSE  the same 100 visits after the switch, against the new rate

Flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// accuracyOptions are the accuracy command's flags.
type accuracyOptions struct {
	seed           uint64
	trials         int
	quick, asJSON  bool
	csvOut, plotTo string
}

// accuracyFlags defines the accuracy command's flags.
func accuracyFlags(o *accuracyOptions) *flag.FlagSet {
	fs := newFlagSet("accuracy")
	def := study.DefaultConfig()
	fs.Uint64Var(&o.seed, "seed", def.Seed, "random seed: the same seed and trials give the same tables")
	fs.IntVar(&o.trials, "trials", def.Trials, "simulated pages per cell and per τ (default 300 with -quick)")
	fs.BoolVar(&o.quick, "quick", false, "a small grid (r 0.5, 1.5, 3; n 5, 20; Poisson and gamma-2; τ none, 25) for tests")
	fs.StringVar(&o.csvOut, "csv", "", "also write every cell and metric to `file` as CSV")
	fs.StringVar(&o.plotTo, "plot", "", "also draw E[λ̂]/λ and median |log(λ̂/λ)| against r to `file` (.png or .svg)")
	fs.BoolVar(&o.asJSON, "json", false, "print the whole result as one JSON object instead of the tables")
	return fs
}

func runAccuracy(args []string, stdout, stderr io.Writer) int {
	var o accuracyOptions
	fs := accuracyFlags(&o)
	if code, ok := parseArgs("accuracy", fs, args, accuracyHelp, stdout, stderr); !ok {
		return code
	}
	cfg := study.DefaultConfig()
	if o.quick {
		cfg = study.QuickConfig()
	}
	trialsSet := false
	fs.Visit(func(f *flag.Flag) { trialsSet = trialsSet || f.Name == "trials" })
	if trialsSet {
		if o.trials < 1 {
			fmt.Fprintf(stderr, "freshcrawl accuracy: -trials %d is not positive\n", o.trials)
			return 2
		}
		cfg.Trials, cfg.Dynamic.Trials = o.trials, o.trials
	}
	cfg.Seed = o.seed
	format := ""
	if o.plotTo != "" {
		if format = plotFormat(o.plotTo); format == "" {
			fmt.Fprintf(stderr, "freshcrawl accuracy: -plot %s: want a .png or .svg file\n", o.plotTo)
			return 2
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := study.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl accuracy: %v\n", err)
		return 1
	}
	if o.csvOut != "" {
		if err := writeFileWith(o.csvOut, res.WriteCSV); err != nil {
			fmt.Fprintf(stderr, "freshcrawl accuracy: %v\n", err)
			return 1
		}
	}
	if o.plotTo != "" {
		plot := func(w io.Writer) error { return res.Plot(w, format) }
		if err := writeFileWith(o.plotTo, plot); err != nil {
			fmt.Fprintf(stderr, "freshcrawl accuracy: %v\n", err)
			return 1
		}
	}
	if o.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(res)
	} else {
		err = res.WriteTable(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl accuracy: %v\n", err)
		return 1
	}
	return 0
}

// writeFileWith creates path and writes it with write.
func writeFileWith(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
