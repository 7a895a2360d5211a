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
	if code, ok := parseArgs("accuracy", fs, args, stdout, stderr); !ok {
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
