package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/dataset"
	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/schedule"
)

// allocateOptions are the allocate command's flags.
type allocateOptions struct {
	rates, hosts, objective, policy string
	budget                          float64
	delay                           time.Duration
	asJSON                          bool
}

func allocateFlags(o *allocateOptions) *flag.FlagSet {
	fs := newFlagSet("allocate")
	fs.StringVar(&o.rates, "rates", "", "rates `file` (id, changes per day, optional weight and host; - for stdin)")
	fs.Float64Var(&o.budget, "budget", 0, "total `fetches` per day")
	fs.StringVar(&o.hosts, "hosts", "", "hosts `file` (host, delay between requests)")
	fs.DurationVar(&o.delay, "delay", crawler.DefaultDelay, "delay of the hosts the -hosts file does not list (0: no limit)")
	fs.StringVar(&o.objective, "objective", "freshness", "freshness, age, harmonic or embarrassment")
	fs.StringVar(&o.policy, "policy", "optimal", "optimal, uniform, proportional, lambdacrawl or binary-poisson")
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object per page")
	return fs
}

// rule picks the capacity-aware allocation for the flags, or reports the
// embarrassment objective (ok false), which allocates whole fetches.
// allocation reads -objective and -policy.
func allocation(objective, pol string) (schedule.Allocation, error) {
	switch objective {
	case "freshness", "age", "harmonic", "embarrassment":
	default:
		return schedule.Allocation{}, fmt.Errorf("unknown -objective %q (want freshness, age, harmonic or embarrassment)", objective)
	}
	switch pol {
	case "uniform":
		return schedule.Allocation{Rule: schedule.Uniform}, nil
	case "proportional":
		return schedule.Allocation{Rule: schedule.Proportional}, nil
	case "lambdacrawl":
		return schedule.Allocation{Baseline: policy.LambdaCrawl{}}, nil
	case "binary-poisson":
		return schedule.Allocation{Baseline: policy.BinaryPoisson{}}, nil
	case "optimal":
	default:
		return schedule.Allocation{}, fmt.Errorf("unknown -policy %q (want optimal, uniform, proportional, lambdacrawl or binary-poisson)", pol)
	}
	switch objective {
	case "age":
		return schedule.Allocation{Rule: schedule.Age}, nil
	case "harmonic":
		return schedule.Allocation{Rule: schedule.Harmonic}, nil
	case "embarrassment":
		return schedule.Allocation{Period: secondsPerDay}, nil
	}
	return schedule.Allocation{Rule: schedule.Freshness}, nil
}

const secondsPerDay = 86400.0

func runAllocate(args []string, stdout, stderr io.Writer) int {
	var o allocateOptions
	fs := allocateFlags(&o)
	if code, ok := parseArgs("allocate", fs, args, stdout, stderr); !ok {
		return code
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "freshcrawl allocate: "+format+"\n", a...)
		return code
	}
	switch {
	case o.rates == "":
		return fail(2, "-rates is required (see -h)")
	case !(o.budget > 0) || math.IsInf(o.budget, 1):
		return fail(2, "-budget must be a positive number of fetches per day")
	case o.delay < 0:
		return fail(2, "-delay %v is negative", o.delay)
	}
	alloc, err := allocation(o.objective, o.policy)
	if err != nil {
		return fail(2, "%v", err)
	}
	rf, err := dataset.ReadInput(o.rates, dataset.ReadRates)
	if err != nil {
		return fail(2, "%v", err)
	}
	if len(rf.Pages) == 0 {
		return fail(2, "%s: no pages", o.rates)
	}
	hosts, err := hostLimits(rf, o.hosts, o.delay)
	if err != nil {
		return fail(2, "%v", err)
	}
	freq := make([]float64, len(rf.Pages))
	budget := o.budget / secondsPerDay
	spent, err := alloc.Allocate(rf.Pages, hosts, budget, freq)
	if err != nil {
		return fail(1, "%v", err)
	}
	if alloc.Period > 0 {
		budget = math.Round(o.budget) / secondsPerDay // whole fetches
	}
	if spent < budget*(1-1e-9) {
		fmt.Fprintf(stderr, "freshcrawl allocate: the hosts allow %.6g fetches/day in all; %.6g of the budget is not spent\n",
			spent*secondsPerDay, (budget-spent)*secondsPerDay)
	}
	w := bufio.NewWriterSize(stdout, 1<<16)
	sum := dataset.WriteAllocation(w, rf, freq, o.asJSON)
	if !o.asJSON {
		fresh, age := sum.Averages()
		fmt.Fprintf(w, "%d pages, %.6g fetches/day (%s, %s): expected freshness %.4f, age %s, harmonic staleness %.4g (weighted time averages)\n",
			len(rf.Pages), sum.Fetches*secondsPerDay, o.policy, o.objective, fresh, dataset.HumanSeconds(age), sum.Harmonic())
	}
	if err := w.Flush(); err != nil {
		return fail(1, "%v", err)
	}
	return 0
}

// hostLimits reads the hosts file (if any) and gives each host of the
// rates file its capacity. Without a host column in the rates file there
// are no limits, and a hosts file is a mistake.
func hostLimits(rf *dataset.Rates, hostsFile string, delay time.Duration) (schedule.Hosts, error) {
	if !rf.HasHosts() {
		if hostsFile != "" {
			return schedule.Hosts{}, fmt.Errorf("-hosts %s: the rates file names no hosts (a 4th column)", hostsFile)
		}
		return schedule.Hosts{}, nil
	}
	var delays map[string]float64
	if hostsFile != "" {
		var err error
		if delays, err = dataset.ReadInput(hostsFile, dataset.ReadHosts); err != nil {
			return schedule.Hosts{}, err
		}
	}
	return rf.HostLimits(delays, delay.Seconds()), nil
}
