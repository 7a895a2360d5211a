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
	"github.com/freshcrawl/freshcrawl/internal/schedule"
)

func allocateHelp(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, `Usage: freshcrawl allocate -rates FILE -budget F [-hosts FILE] [-delay D] [-objective NAME] [-policy NAME] [-json]

Divide a budget of fetches per day among pages that change at known rates,
and print how often to visit each page and how fresh and old its copy will
be on average. This is the refresh decision the crawler makes, run on rates
you supply (for example the output of 'freshcrawl estimate').

The rates file (-rates; "-" is standard input, a name ending in .gz is
gunzipped) has one page a line, fields separated by tabs:

  id <TAB> changes_per_day [<TAB> weight [<TAB> host]]

The id is any text without a tab; changes_per_day is the page's change rate
(0 or more); weight is its importance (more than 0, default 1; leave the
field empty to give a host without a weight), e.g. how often users look at
it; host names the site the page is on. Blank lines and lines starting
with # are skipped. A malformed line stops the command with its line
number.

Pages with a host are allocated politely: a host whose delay between
requests is d seconds gets at most 86400/d fetches a day, whatever the
budget, as the crawler would fetch it (Kolobov et al., SIGIR 2019, showed
how to optimise under such limits). The hosts file (-hosts) gives the
delays, one host a line:

  host <TAB> delay

with the delay in seconds ("2", "0.5") or as a duration ("1500ms", "1m");
0 means no limit. Hosts it does not list have the delay -delay, by
default the crawler's. If the budget is more than the hosts allow, every
host gets its limit and the command says how much of the budget is left
unspent.

-budget is the total number of fetches per day for all the pages.

Objectives (-objective; used by -policy optimal):
  freshness      maximise the weighted time-averaged freshness, the share of
                 time a copy is identical to the live page (Cho's
                 dissertation §5.5.4, §5.6). Pages that change too often for
                 their weight are given up (0 visits): a fetch keeps them
                 fresh for too short a time to pay for itself.
  age            minimise the weighted time-averaged age, how long a stale
                 copy has been stale (§5.5.4). Every page that changes is
                 visited, the fast ones somewhat more often.
  embarrassment  paper 002 (Wolf et al.): hand out whole fetches per day to
                 minimise the weighted expected staleness, i.e. with weights
                 = embarrassment weights, the rate of users clicking a stale
                 result. The budget is rounded to whole fetches per day, and
                 a host's limit to whole fetches per day.

Policies (-policy):
  optimal        the objective's optimum (the default)
  uniform        every page visited equally often
  proportional   visits in proportion to the change rate (a pitfall:
                 uniform beats it on both freshness and age, §5.5.2)
With host limits, uniform and proportional give a host that would exceed
its limit exactly its limit, and share the rest among the other hosts.

Pages are assumed to change as Poisson processes and to be visited at
evenly spaced times. Output: per page the id (and host), its rate and
weight, visits per day, the interval between visits, and the expected
time-averaged freshness and age under that frequency; then the
collection's weighted averages. -json prints one JSON object per page
instead (intervals and ages also in seconds; null where infinite; the
host when there is one).

Flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

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
	fs.StringVar(&o.objective, "objective", "freshness", "freshness, age or embarrassment")
	fs.StringVar(&o.policy, "policy", "optimal", "optimal, uniform or proportional")
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object per page")
	return fs
}

// rule picks the capacity-aware allocation for the flags, or reports the
// embarrassment objective (ok false), which allocates whole fetches.
// allocation reads -objective and -policy.
func allocation(objective, pol string) (schedule.Allocation, error) {
	switch objective {
	case "freshness", "age", "embarrassment":
	default:
		return schedule.Allocation{}, fmt.Errorf("unknown -objective %q (want freshness, age or embarrassment)", objective)
	}
	switch pol {
	case "uniform":
		return schedule.Allocation{Rule: schedule.Uniform}, nil
	case "proportional":
		return schedule.Allocation{Rule: schedule.Proportional}, nil
	case "optimal":
	default:
		return schedule.Allocation{}, fmt.Errorf("unknown -policy %q (want optimal, uniform or proportional)", pol)
	}
	switch objective {
	case "age":
		return schedule.Allocation{Rule: schedule.Age}, nil
	case "embarrassment":
		return schedule.Allocation{Period: secondsPerDay}, nil
	}
	return schedule.Allocation{Rule: schedule.Freshness}, nil
}

const secondsPerDay = 86400.0

func runAllocate(args []string, stdout, stderr io.Writer) int {
	var o allocateOptions
	fs := allocateFlags(&o)
	if code, ok := parseArgs("allocate", fs, args, allocateHelp, stdout, stderr); !ok {
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
	rf, err := readInput(o.rates, dataset.ReadRates)
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
		fmt.Fprintf(w, "%d pages, %.6g fetches/day (%s, %s): expected freshness %.4f, age %s (weighted time averages)\n",
			len(rf.Pages), sum.Fetches*secondsPerDay, o.policy, o.objective, fresh, dataset.HumanSeconds(age))
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
		if delays, err = readInput(hostsFile, dataset.ReadHosts); err != nil {
			return schedule.Hosts{}, err
		}
	}
	return rf.HostLimits(delays, delay.Seconds()), nil
}
