package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/sim/simpolicy"
)

// TestSimulateHelp checks -h names every flag and output column.
func TestSimulateHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runSimulate([]string{"-h"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, s := range []string{"-pages", "-days", "-warmup", "-budget", "-policy", "-objective", "-model",
		"-known-rates", "-seeds", "-csv", "-plot", "-json", "-lastmod", "-max-interval", "-replan",
		"-prior-weight", "freshness", "% of oracle", "age", "harmonic", "fetches", "budget used", "changes", "delay", "wall",
		"default", "oracle", "uniform", "proportional", "nutch", "stormcrawler"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("help lacks %q", s)
		}
	}
}

// TestSimulateBadInput checks that bad flags exit 2 with one line.
func TestSimulateBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"pages", []string{"-pages", "0"}, "-pages"},
		{"days", []string{"-days", "-1"}, "-days"},
		{"warmup", []string{"-days", "10", "-warmup", "10"}, "-warmup"},
		{"budget", []string{"-budget", "-3"}, "-budget"},
		{"policy", []string{"-policy", "lru"}, "-policy"},
		{"objective", []string{"-objective", "cost"}, "-objective"},
		{"prior weight", []string{"-prior-weight", "0"}, "-prior-weight"},
		{"model", []string{"-model", "weibull"}, "-model"},
		{"seeds", []string{"-seeds", "0"}, "-seeds"},
		{"lastmod", []string{"-lastmod", "2"}, "-lastmod"},
		{"plot", []string{"-plot", "out.gif"}, ".png or .svg"},
		{"flag", []string{"-nope"}, "-nope"},
		{"argument", []string{"extra"}, "unexpected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runSimulate(tt.args, &out, &errOut)
			checkUsageError(t, code, errOut.String(), tt.want)
		})
	}
}

// TestSimulateRun runs a small comparison through the command with every
// output: JSON, CSV and an SVG plot, and the text table.
func TestSimulateRun(t *testing.T) {
	dir := t.TempDir()
	csvFile, plotFile := filepath.Join(dir, "f.csv"), filepath.Join(dir, "f.svg")
	var out, errOut bytes.Buffer
	args := []string{"-pages", "300", "-days", "12", "-warmup", "4", "-seeds", "2", "-json", "-csv", csvFile, "-plot", plotFile}
	if code := runSimulate(args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	type stat struct{ Mean, SD float64 }
	var js struct {
		Pages        int     `json:"pages"`
		BudgetPerDay float64 `json:"budget_per_day"`
		Policies     []struct {
			Policy    string            `json:"policy"`
			Freshness stat              `json:"freshness"`
			OfOracle  stat              `json:"of_oracle"`
			Fetches   stat              `json:"fetches"`
			Used      stat              `json:"budget_used"`
			Harmonic  stat              `json:"harmonic"`
			Seeds     []json.RawMessage `json:"seeds"`
		} `json:"policies"`
	}
	if err := json.Unmarshal(out.Bytes(), &js); err != nil {
		t.Fatal(err)
	}
	if js.Pages != 300 || js.BudgetPerDay != 100 || len(js.Policies) != len(simpolicy.Policies) {
		t.Fatalf("pages %d, budget %g, %d policies; want 300, 100 (a third), %d", js.Pages, js.BudgetPerDay, len(js.Policies), len(simpolicy.Policies))
	}
	for _, p := range js.Policies {
		if len(p.Seeds) != 2 || !(p.Freshness.Mean > 0 && p.Freshness.Mean <= 1) {
			t.Errorf("%s: %d seeds, freshness %g", p.Policy, len(p.Seeds), p.Freshness.Mean)
		}
		// Fetches in the 8-day window cannot exceed the budget's 800.
		if p.Fetches.Mean > 801 {
			t.Errorf("%s: %g fetches, budget allows 800", p.Policy, p.Fetches.Mean)
		}
		if math.Abs(p.Used.Mean-p.Fetches.Mean/800) > 1e-9 {
			t.Errorf("%s: budget used %g, fetches %g of 800", p.Policy, p.Used.Mean, p.Fetches.Mean)
		}
		// A stale copy costs at least 1, a fresh one 0.
		if !(p.Harmonic.Mean >= 1-p.Freshness.Mean) {
			t.Errorf("%s: harmonic staleness %g below the stale share %g", p.Policy, p.Harmonic.Mean, 1-p.Freshness.Mean)
		}
		if p.Policy == "oracle" && p.OfOracle.Mean != 1 {
			t.Errorf("oracle is %g of itself", p.OfOracle.Mean)
		}
	}
	csv, err := os.ReadFile(csvFile)
	if err != nil {
		t.Fatal(err)
	}
	if lines, n := strings.Count(string(csv), "\n"), len(simpolicy.Policies); lines != 1+n*12 {
		t.Errorf("csv has %d lines, want a header and %d policies × 12 days", lines, n)
	}
	svg, err := os.ReadFile(plotFile)
	if err != nil || !bytes.Contains(svg, []byte("<svg")) {
		t.Errorf("plot: %v", err)
	}
	out.Reset()
	if code := runSimulate([]string{"-pages", "200", "-days", "5", "-warmup", "1", "-policy", "nutch,lambdacrawl"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, s := range []string{"200 pages", "nutch", "lambdacrawl", "oracle", "100.00", "harmonic", "budget used"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, out.String())
		}
	}
}
