package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

func allocateHelp(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, `Usage: freshcrawl allocate -rates FILE -budget F [-objective NAME] [-policy NAME] [-json]

Divide a budget of fetches per day among pages that change at known rates,
and print how often to visit each page and how fresh and old its copy will
be on average. This is the refresh decision the crawler makes, run on rates
you supply (for example the output of 'freshcrawl estimate').

The rates file (-rates; "-" is standard input) has one page a line, fields
separated by tabs:

  id <TAB> changes_per_day [<TAB> weight]

The id is any text without a tab; changes_per_day is the page's change rate
(0 or more); weight is its importance (more than 0, default 1), e.g. how
often users look at it. Blank lines and lines starting with # are skipped.
A malformed line stops the command with its line number.

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
                 result. The budget is rounded to whole fetches per day.

Policies (-policy):
  optimal        the objective's optimum (the default)
  uniform        every page visited equally often
  proportional   visits in proportion to the change rate (a pitfall:
                 uniform beats it on both freshness and age, §5.5.2)

Pages are assumed to change as Poisson processes and to be visited at
evenly spaced times. Output: per page the id, its rate and weight, visits
per day, the interval between visits, and the expected time-averaged
freshness and age under that frequency; then the collection's weighted
averages. -json prints one JSON object per page instead (intervals and ages
also in seconds; null where infinite).

Flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// allocateOptions are the allocate command's flags.
type allocateOptions struct {
	rates, objective, policy string
	budget                   float64
	asJSON                   bool
}

func allocateFlags(o *allocateOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("allocate", flag.ContinueOnError)
	// Parse errors are reported by runAllocate in one line; -h by allocateHelp.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&o.rates, "rates", "", "rates `file` (id, changes per day, optional weight; - for stdin)")
	fs.Float64Var(&o.budget, "budget", 0, "total `fetches` per day")
	fs.StringVar(&o.objective, "objective", "freshness", "freshness, age or embarrassment")
	fs.StringVar(&o.policy, "policy", "optimal", "optimal, uniform or proportional")
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object per page")
	return fs
}

// allocator picks the policy for the flags.
func allocator(objective, pol string) (policy.Allocator, error) {
	switch objective {
	case "freshness", "age", "embarrassment":
	default:
		return nil, fmt.Errorf("unknown -objective %q (want freshness, age or embarrassment)", objective)
	}
	switch pol {
	case "uniform":
		return policy.Uniform{}, nil
	case "proportional":
		return policy.Proportional{}, nil
	case "optimal":
	default:
		return nil, fmt.Errorf("unknown -policy %q (want optimal, uniform or proportional)", pol)
	}
	switch objective {
	case "age":
		return policy.OptimalAge{}, nil
	case "embarrassment":
		return policy.Embarrassment{Period: secondsPerDay}, nil
	}
	return policy.OptimalFreshness{}, nil
}

const secondsPerDay = 86400.0

func runAllocate(args []string, stdout, stderr io.Writer) int {
	var o allocateOptions
	fs := allocateFlags(&o)
	if code, ok := parseArgs("allocate", fs, args, allocateHelp, stdout, stderr); !ok {
		return code
	}
	if o.rates == "" {
		fmt.Fprintln(stderr, "freshcrawl allocate: -rates is required (see -h)")
		return 2
	}
	if !(o.budget > 0) || math.IsInf(o.budget, 1) {
		fmt.Fprintln(stderr, "freshcrawl allocate: -budget must be a positive number of fetches per day")
		return 2
	}
	alloc, err := allocator(o.objective, o.policy)
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl allocate: %v\n", err)
		return 2
	}
	in, err := openInput(o.rates)
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl allocate: %v\n", err)
		return 2
	}
	defer in.Close()
	ids, pages, err := readRates(in)
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl allocate: %s: %v\n", o.rates, err)
		return 2
	}
	if len(pages) == 0 {
		fmt.Fprintf(stderr, "freshcrawl allocate: %s: no pages\n", o.rates)
		return 2
	}
	freq := make([]float64, len(pages))
	if err := alloc.Allocate(pages, o.budget/secondsPerDay, freq); err != nil {
		fmt.Fprintf(stderr, "freshcrawl allocate: %v\n", err)
		return 1
	}
	w := bufio.NewWriterSize(stdout, 1<<16)
	if o.asJSON {
		err = writeAllocationJSON(w, ids, pages, freq)
	} else {
		writeAllocation(w, ids, pages, freq, o)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl allocate: %v\n", err)
		return 1
	}
	return 0
}

// readRates reads the rates file: id, changes per day and an optional
// weight per line, tab-separated, into pages in changes per second.
func readRates(r io.Reader) (ids []string, pages []policy.Page, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 2 || len(f) > 3 || f[0] == "" {
			return nil, nil, fmt.Errorf("line %d: want id<TAB>changes_per_day[<TAB>weight], got %d fields", n, len(f))
		}
		rate, err := strconv.ParseFloat(strings.TrimSpace(f[1]), 64)
		if err != nil || !(rate >= 0) || math.IsInf(rate, 1) {
			return nil, nil, fmt.Errorf("line %d: changes per day %q is not a number ≥ 0", n, f[1])
		}
		weight := 1.0
		if len(f) == 3 {
			weight, err = strconv.ParseFloat(strings.TrimSpace(f[2]), 64)
			if err != nil || !(weight > 0) || math.IsInf(weight, 1) {
				return nil, nil, fmt.Errorf("line %d: weight %q is not a number > 0", n, f[2])
			}
		}
		ids = append(ids, f[0])
		pages = append(pages, policy.Page{Rate: rate / secondsPerDay, Weight: weight})
	}
	return ids, pages, sc.Err()
}

// jsonAllocation is one page in -json output. Infinite intervals (never
// visited) and ages (never visited but changing) are null.
type jsonAllocation struct {
	ID              string   `json:"id"`
	ChangesPerDay   float64  `json:"changes_per_day"`
	Weight          float64  `json:"weight"`
	VisitsPerDay    float64  `json:"visits_per_day"`
	Interval        string   `json:"interval"`
	IntervalSeconds *float64 `json:"interval_seconds"`
	Freshness       float64  `json:"freshness"`
	Age             string   `json:"age"`
	AgeSeconds      *float64 `json:"age_seconds"`
}

func finite(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return &v
}

func writeAllocationJSON(w io.Writer, ids []string, pages []policy.Page, freq []float64) error {
	enc := json.NewEncoder(w)
	for i, p := range pages {
		interval := 1 / freq[i]
		age := policy.Age(policy.FixedOrder, p.Rate, freq[i])
		if err := enc.Encode(jsonAllocation{
			ID: ids[i], ChangesPerDay: p.Rate * secondsPerDay, Weight: weightOf(p),
			VisitsPerDay: freq[i] * secondsPerDay, Interval: every(freq[i]), IntervalSeconds: finite(interval),
			Freshness: policy.Freshness(policy.FixedOrder, p.Rate, freq[i]), Age: humanSeconds(age), AgeSeconds: finite(age),
		}); err != nil {
			return err
		}
	}
	return nil
}

func weightOf(p policy.Page) float64 {
	if p.Weight == 0 {
		return 1
	}
	return p.Weight
}

func writeAllocation(w io.Writer, ids []string, pages []policy.Page, freq []float64, o allocateOptions) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "id\tchanges/day\tweight\tvisits/day\tevery\tfreshness\tage\t")
	for i, p := range pages {
		fmt.Fprintf(tw, "%s\t%.4g\t%.4g\t%.4g\t%s\t%.4f\t%s\t\n", ids[i], p.Rate*secondsPerDay, weightOf(p),
			freq[i]*secondsPerDay, every(freq[i]), policy.Freshness(policy.FixedOrder, p.Rate, freq[i]),
			humanSeconds(policy.Age(policy.FixedOrder, p.Rate, freq[i])))
	}
	tw.Flush()
	var total float64
	for _, f := range freq {
		total += f
	}
	fresh, age := policy.Collection(pages, freq)
	fmt.Fprintf(w, "%d pages, %.6g fetches/day (%s, %s): expected freshness %.4f, age %s (weighted time averages)\n",
		len(pages), total*secondsPerDay, o.policy, o.objective, fresh, humanSeconds(age))
}

// humanSeconds formats a duration in seconds as "45s", "12m", "7.2h",
// "3.5d" or "∞".
func humanSeconds(s float64) string {
	switch {
	case math.IsInf(s, 1) || math.IsNaN(s):
		return "∞"
	case s < 60:
		return strconv.FormatFloat(s, 'g', 3, 64) + "s"
	case s < 3600:
		return strconv.FormatFloat(s/60, 'g', 3, 64) + "m"
	case s < 2*secondsPerDay:
		return strconv.FormatFloat(s/3600, 'g', 3, 64) + "h"
	}
	return strconv.FormatFloat(s/secondsPerDay, 'g', 3, 64) + "d"
}

// every formats the interval between visits at frequency f (per second).
func every(f float64) string {
	if f == 0 {
		return "never"
	}
	return humanSeconds(1 / f)
}
