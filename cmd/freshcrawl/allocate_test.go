package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/dataset"
	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/schedule"
)

// example54 is Example 5.4 of Cho's dissertation (§5.5.4): five pages
// changing 1..5 times a day, with a comment and a blank line.
const example54 = "# id\tchanges/day\n1\t1\n2\t2\n\n3\t3\n4\t4\n5\t5\n"

func allocateJSON(t *testing.T, args ...string) []dataset.Allocation {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := runAllocate(append(args, "-json"), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var pages []dataset.Allocation
	dec := json.NewDecoder(&out)
	for dec.More() {
		var p dataset.Allocation
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p)
	}
	return pages
}

// TestAllocateExample54 runs Example 5.4 through the command and checks
// the visits per day against Table 5.5's printed rows (freshness: 1.15,
// 1.36, 1.35, 1.14, 0, to half a unit of the second decimal) and the
// age-optimal frequencies against the spec's reconstruction (0.835, 0.968,
// 1.034, 1.071, 1.093 to 5e-4; the table prints 0.84 for the first, which
// the policy package flags), plus each page's freshness against
// (1 − e^{−r})/r.
func TestAllocateExample54(t *testing.T) {
	file := writeFile(t, "rates.tsv", example54)
	tests := []struct {
		objective string
		want      []float64
		tol       float64
	}{
		{"freshness", []float64{1.15, 1.36, 1.35, 1.14, 0}, 0.005},
		{"age", []float64{0.835, 0.968, 1.034, 1.071, 1.093}, 5e-4},
	}
	for _, tt := range tests {
		t.Run(tt.objective, func(t *testing.T) {
			pages := allocateJSON(t, "-rates", file, "-budget", "5", "-objective", tt.objective)
			if len(pages) != 5 {
				t.Fatalf("%d pages", len(pages))
			}
			for i, p := range pages {
				if math.Abs(p.VisitsPerDay-tt.want[i]) > tt.tol {
					t.Errorf("page %s: %.4f visits/day, want %g", p.ID, p.VisitsPerDay, tt.want[i])
				}
				r := p.ChangesPerDay / p.VisitsPerDay
				if want := (1 - math.Exp(-r)) / r; p.VisitsPerDay > 0 && math.Abs(p.Freshness-want) > 1e-12 {
					t.Errorf("page %s: freshness %g, want %g", p.ID, p.Freshness, want)
				}
			}
		})
	}
	// Page 5 is given up for freshness: never visited, infinite age.
	p := allocateJSON(t, "-rates", file, "-budget", "5")[4]
	if p.VisitsPerDay != 0 || p.Interval != "never" || p.IntervalSeconds != nil || p.AgeSeconds != nil || p.Freshness != 0 {
		t.Errorf("page 5: %+v", p)
	}
}

// TestAllocateHarmonic: the README's three pages. Under freshness the
// page changing 9 times a day is given up, so the harmonic staleness is
// infinite; under harmonic every page is visited and it is finite.
func TestAllocateHarmonic(t *testing.T) {
	file := writeFile(t, "rates.tsv", "a\t9\nb\t1\nc\t0.5\t2\n")
	for objective, want := range map[string]string{"freshness": "harmonic staleness +Inf", "harmonic": "harmonic staleness 0.6687"} {
		var out, errOut bytes.Buffer
		if code := runAllocate([]string{"-rates", file, "-budget", "3", "-objective", objective}, &out, &errOut); code != 0 {
			t.Fatalf("%s: exit %d: %s", objective, code, errOut.String())
		}
		if !strings.Contains(out.String(), want) || objective == "harmonic" && strings.Contains(out.String(), "never") {
			t.Errorf("%s: want %q and, for harmonic, no page never visited:\n%s", objective, want, out.String())
		}
	}
}

// TestAllocateText checks the table and the summary line: Example 5.4's
// optimal freshness is 0.37389 and uniform's 0.36505 (spec §4.4 recon),
// and uniform visits every page daily, a 24h interval.
func TestAllocateText(t *testing.T) {
	file := writeFile(t, "rates.tsv", example54)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"-policy", "optimal"}, []string{"expected freshness 0.3739", "5 pages, 5 fetches/day (optimal, freshness)", "never"}},
		{[]string{"-policy", "uniform"}, []string{"expected freshness 0.3651", "24h"}},
		{[]string{"-policy", "proportional"}, []string{"expected freshness 0.3167"}},
	}
	for _, tt := range tests {
		t.Run(tt.args[1], func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := runAllocate(append([]string{"-rates", file, "-budget", "5"}, tt.args...), &out, &errOut); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

// TestAllocateEmbarrassment checks paper 002's discrete allocation through
// the command: whole fetches per day summing to the rounded budget, the
// heavier of two equal-rate pages getting at least as many.
func TestAllocateEmbarrassment(t *testing.T) {
	file := writeFile(t, "rates.tsv", "a\t2\t1\nb\t2\t5\nc\t0.5\n")
	pages := allocateJSON(t, "-rates", file, "-budget", "9.6", "-objective", "embarrassment")
	var sum float64
	for _, p := range pages {
		if p.VisitsPerDay != math.Round(p.VisitsPerDay) {
			t.Errorf("page %s: %g visits/day, not whole", p.ID, p.VisitsPerDay)
		}
		sum += p.VisitsPerDay
	}
	if sum != 10 || pages[1].VisitsPerDay < pages[0].VisitsPerDay {
		t.Errorf("visits %+v, want 10 in all and b ≥ a", pages)
	}
}

// TestAllocateStdin reads the rates from standard input; one page takes
// the whole budget, within policy.SumTolerance.
func TestAllocateStdin(t *testing.T) {
	file := writeFile(t, "rates.tsv", "x\t1\n")
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	old := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = old }()
	pages := allocateJSON(t, "-rates", "-", "-budget", "2")
	if len(pages) != 1 || math.Abs(pages[0].VisitsPerDay-2) > 2*policy.SumTolerance || pages[0].Interval != "12h" {
		t.Errorf("%+v", pages)
	}
}

// TestAllocateErrors checks that bad flags and malformed lines give exit 2
// and a one-line message naming the problem (and the line).
func TestAllocateErrors(t *testing.T) {
	good := writeFile(t, "good.tsv", "a\t1\n")
	tests := []struct {
		name    string
		content string // rates file; "" uses good
		args    []string
		want    string
	}{
		{"no budget", "", []string{}, "-budget"},
		{"negative budget", "", []string{"-budget", "-3"}, "-budget"},
		{"bad objective", "", []string{"-budget", "1", "-objective", "speed"}, "objective"},
		{"bad policy", "", []string{"-budget", "1", "-policy", "random"}, "policy"},
		{"one field", "a\t1\nb\n", []string{"-budget", "1"}, "line 2"},
		{"bad rate", "a\t1\n\nb\tfast\n", []string{"-budget", "1"}, "line 3"},
		{"negative rate", "a\t-1\n", []string{"-budget", "1"}, "line 1"},
		{"zero weight", "a\t1\t0\n", []string{"-budget", "1"}, "line 1: weight"},
		{"five fields", "a\t1\t1\th\tx\n", []string{"-budget", "1"}, "line 1"},
		{"bad weight with host", "a\t1\tx\th\n", []string{"-budget", "1"}, "line 1: weight"},
		{"hosts without host column", "", []string{"-budget", "1", "-hosts", "HOSTS"}, "no hosts"},
		{"negative delay", "", []string{"-budget", "1", "-delay", "-1s"}, "-delay"},
		{"empty", "# nothing\n", []string{"-budget", "1"}, "no pages"},
		{"unknown flag", "", []string{"-budget", "1", "-bogus"}, "bogus"},
	}
	hostsFile := writeFile(t, "hosts.tsv", "h\t1\n")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := good
			if tt.content != "" {
				file = writeFile(t, "rates.tsv", tt.content)
			}
			args := append([]string{"-rates", file}, tt.args...)
			for k := range args {
				if args[k] == "HOSTS" {
					args[k] = hostsFile
				}
			}
			var out, errOut bytes.Buffer
			code := runAllocate(args, &out, &errOut)
			checkUsageError(t, code, errOut.String(), tt.want)
		})
	}
	var out, errOut bytes.Buffer
	if code := runAllocate([]string{"-budget", "1"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "-rates") {
		t.Errorf("no -rates: exit %d, %q", code, errOut.String())
	}
	out.Reset()
	if code := runAllocate([]string{"-h"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "embarrassment") || !strings.Contains(out.String(), "changes_per_day") ||
		!strings.Contains(out.String(), "host <TAB> delay") {
		t.Errorf("-h: exit %d, %q", code, out.String())
	}
}

// hostRates is four pages on two hosts and one on none, with a weight left
// empty before a host.
const hostRates = "a\t1\t\thostA\nb\t2\t2\thostA\nc\t3\t1\thostB\nd\t0.5\ne\t4\t1\thostB\n"

// TestAllocateHosts runs the command with host limits: hostA may be
// fetched every 60 s (1 440 times a day), hostB every 2 minutes (720),
// unlisted hosts every -delay. With a budget the hosts cannot take, each
// host gets exactly its limit (to 1e-6), the page on no host the rest, the
// JSON names each page's host, and the frequencies are schedule.Capped's
// (the capacitated optimum, tested against brute force there). With a
// small budget the limits do not bind and the allocation is
// policy.OptimalFreshness's, as without hosts.
func TestAllocateHosts(t *testing.T) {
	rates := writeFile(t, "rates.tsv", hostRates)
	hosts := writeFile(t, "hosts.tsv", "hostA\t60\n# a comment\nhostB\t2m\n")
	for _, objective := range []string{"freshness", "age", "embarrassment"} {
		t.Run(objective, func(t *testing.T) {
			pages := allocateJSON(t, "-rates", rates, "-hosts", hosts, "-budget", "5000", "-objective", objective)
			sum := map[string]float64{}
			for _, p := range pages {
				sum[p.Host] += p.VisitsPerDay
			}
			if math.Abs(sum["hostA"]-1440) > 1e-6 || math.Abs(sum["hostB"]-720) > 1e-6 || math.Abs(sum[""]-2840) > 1e-6 {
				t.Errorf("visits/day per host %v, want hostA 1440, hostB 720, none 2840", sum)
			}
			if pages[0].Host != "hostA" || pages[3].Host != "" || pages[0].Weight != 1 {
				t.Errorf("pages %+v", pages)
			}
		})
	}
	// The same through the package.
	pages := []policy.Page{{Rate: 1 / secondsPerDay}, {Rate: 2 / secondsPerDay, Weight: 2}, {Rate: 3 / secondsPerDay, Weight: 1},
		{Rate: 0.5 / secondsPerDay}, {Rate: 4 / secondsPerDay, Weight: 1}}
	want := make([]float64, len(pages))
	c := schedule.Capped{Rule: schedule.Freshness, Hosts: schedule.Hosts{Of: []int32{0, 0, 1, schedule.NoHost, 1}, Capacity: []float64{1.0 / 60, 1.0 / 120}}}
	if _, err := c.Solve(pages, 3000/secondsPerDay, want); err != nil {
		t.Fatal(err)
	}
	got := allocateJSON(t, "-rates", rates, "-hosts", hosts, "-budget", "3000")
	for i := range got {
		if math.Abs(got[i].VisitsPerDay-want[i]*secondsPerDay) > 1e-9*3000 {
			t.Errorf("page %s: %g visits/day, schedule.Capped says %g", got[i].ID, got[i].VisitsPerDay, want[i]*secondsPerDay)
		}
	}
	// Small budget: no limit binds.
	free := make([]float64, len(pages))
	if err := (policy.OptimalFreshness{}).Allocate(pages, 5/secondsPerDay, free); err != nil {
		t.Fatal(err)
	}
	for i, p := range allocateJSON(t, "-rates", rates, "-hosts", hosts, "-budget", "5") {
		if math.Abs(p.VisitsPerDay-free[i]*secondsPerDay) > 1e-8 {
			t.Errorf("page %s: %g visits/day, uncapacitated optimum %g", p.ID, p.VisitsPerDay, free[i]*secondsPerDay)
		}
	}
	// Unlisted hosts take -delay; 0 lifts the limit.
	for _, tt := range []struct {
		delay string
		want  float64 // hostB's visits/day
	}{{"10m", 144}, {"0", -1}} {
		pages := allocateJSON(t, "-rates", rates, "-budget", "5000", "-delay", tt.delay)
		var b float64
		for _, p := range pages {
			if p.Host == "hostB" {
				b += p.VisitsPerDay
			}
		}
		if tt.want >= 0 && math.Abs(b-tt.want) > 1e-6 || tt.want < 0 && b <= 720 {
			t.Errorf("-delay %s: hostB gets %g visits/day, want %g", tt.delay, b, tt.want)
		}
	}
}

// TestAllocateOverCapacity asks for more than the hosts allow when every
// page has a host: the command says how much is not spent, on one line of
// stderr, and still succeeds.
func TestAllocateOverCapacity(t *testing.T) {
	rates := writeFile(t, "rates.tsv", "a\t1\t1\th1\nb\t1\t1\th2\n")
	hosts := writeFile(t, "hosts.tsv", "h1\t864\nh2\t432\n") // 100 and 200 a day
	var out, errOut bytes.Buffer
	code := runAllocate([]string{"-rates", rates, "-hosts", hosts, "-budget", "1000"}, &out, &errOut)
	if code != 0 || !strings.Contains(errOut.String(), "the hosts allow 300 fetches/day in all; 700 of the budget is not spent") ||
		strings.Count(errOut.String(), "\n") != 1 || !strings.Contains(out.String(), "2 pages, 300 fetches/day") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out.String(), errOut.String())
	}
}

// TestAllocateHostsErrors checks the hosts file's one-line errors.
func TestAllocateHostsErrors(t *testing.T) {
	rates := writeFile(t, "rates.tsv", hostRates)
	tests := []struct{ name, content, want string }{
		{"one field", "hostA\t1\nhostB\n", "line 2: want host<TAB>delay"},
		{"bad delay", "\nhostA\tsoon\n", "line 2: delay \"soon\""},
		{"negative delay", "hostA\t-1\n", "line 1: delay"},
		{"duplicate", "hostA\t1\nhostA\t2\n", "line 2: host hostA already on line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hosts := writeFile(t, "hosts.tsv", tt.content)
			var out, errOut bytes.Buffer
			code := runAllocate([]string{"-rates", rates, "-hosts", hosts, "-budget", "1"}, &out, &errOut)
			checkUsageError(t, code, errOut.String(), tt.want)
		})
	}
}

// TestAllocateTableAligned checks that every line of the table has the
// header's columns at the same places, whatever the numbers.
func TestAllocateTableAligned(t *testing.T) {
	rates := writeFile(t, "rates.tsv", hostRates+"a-much-longer-id\t1e-9\t1e9\tx\nf\t1e6\t1e-6\n")
	var out, errOut bytes.Buffer
	if code := runAllocate([]string{"-rates", rates, "-budget", "1e7", "-delay", "0"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	width := len([]rune(lines[0]))
	for _, l := range lines[1 : len(lines)-1] {
		if n := len([]rune(l)); n != width {
			t.Errorf("line %q is %d runes wide, the header %d", l, n, width)
		}
	}
}

// BenchmarkAllocate runs the command on 10⁶ pages on 10⁴ hosts (the shape
// of bench/allocate.sh, which runs 10⁷), output discarded: parsing,
// allocation and formatting together.
func BenchmarkAllocate(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	var data bytes.Buffer
	for i := range 1_000_000 {
		u := rng.Float64()
		fmt.Fprintf(&data, "p%d\t%.4g\t%.3g\th%d\n", i, math.Exp(1.5*rng.NormFloat64()), math.Exp(rng.NormFloat64()), int(10_000*u*u))
	}
	rates := filepath.Join(b.TempDir(), "rates.tsv")
	if err := os.WriteFile(rates, data.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, args := range [][]string{{"-delay", "0"}, {"-delay", "5s"}, {"-delay", "5s", "-json"}} {
		b.Run(strings.Join(args, " "), func(b *testing.B) {
			for b.Loop() {
				if code := runAllocate(append([]string{"-rates", rates, "-budget", "1e6"}, args...), io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}

// TestAllocateBaselines: the Poisson-crawl baselines run, and on the
// README's pages freshcrawl's own optima beat them at their own
// objectives under evenly spaced visits; with a finite host limit they
// are refused.
func TestAllocateBaselines(t *testing.T) {
	file := writeFile(t, "rates.tsv", "a\t9\nb\t1\nc\t0.5\t2\n")
	for pol, want := range map[string]string{"lambdacrawl": "harmonic staleness 0.6735", "binary-poisson": "expected freshness 0.6070"} {
		var out, errOut bytes.Buffer
		if code := runAllocate([]string{"-rates", file, "-budget", "3", "-policy", pol}, &out, &errOut); code != 0 {
			t.Fatalf("%s: exit %d: %s", pol, code, errOut.String())
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("%s: want %q:\n%s", pol, want, out.String())
		}
	}
	hosted := writeFile(t, "hosted.tsv", "a\t9\t1\th\nb\t1\t1\th\n")
	var out, errOut bytes.Buffer
	if code := runAllocate([]string{"-rates", hosted, "-budget", "3", "-policy", "lambdacrawl"}, &out, &errOut); code == 0 {
		t.Errorf("lambdacrawl with a host limit: exit 0\n%s", out.String())
	}
}
