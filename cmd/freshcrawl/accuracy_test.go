package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/change/study"
)

// accuracy -quick prints one block per process and schedule with a row per
// estimator and a column per r and n, the rate-switch table, and writes
// the CSV and the plot.
func TestAccuracyQuick(t *testing.T) {
	dir := t.TempDir()
	csvPath, pngPath := filepath.Join(dir, "cells.csv"), filepath.Join(dir, "plot.png")
	var stdout, stderr bytes.Buffer
	if code := runAccuracy([]string{"-quick", "-trials", "100", "-csv", csvPath, "-plot", pngPath}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	cfg := study.QuickConfig()
	out := stdout.String()

	// Blocks: a title line, two header lines, then one line per estimator
	// with len(Rs) + len(Ns) numbers around a "│".
	const estimators = 12 // 8 without Last-Modified, 4 with
	blocks := strings.Split(out, "\n\n")
	wantBlocks := len(cfg.Processes) * len(cfg.Schedules)
	if len(blocks) != 1+wantBlocks+1 {
		t.Fatalf("%d blocks, want a header, %d tables and the rate-switch table:\n%s", len(blocks), wantBlocks, out)
	}
	for _, b := range blocks[1 : 1+wantBlocks] {
		lines := strings.Split(strings.TrimSuffix(b, "\n"), "\n")
		if len(lines) != 3+estimators {
			t.Errorf("block has %d lines, want %d:\n%s", len(lines), 3+estimators, b)
			continue
		}
		if !strings.Contains(lines[0], " changes, ") || !strings.HasPrefix(lines[2], "estimator") {
			t.Errorf("block header:\n%s", b)
		}
		for _, l := range lines[2:] {
			left, right, ok := strings.Cut(l, "│")
			if !ok || len(strings.Fields(left)) != 1+len(cfg.Rs) || len(strings.Fields(right)) != len(cfg.Ns) {
				t.Errorf("row %q: want a name, %d values, │, %d values", l, len(cfg.Rs), len(cfg.Ns))
			}
		}
	}
	dyn := strings.Split(strings.TrimSuffix(blocks[len(blocks)-1], "\n"), "\n")
	rows := 0
	for _, l := range dyn {
		if strings.HasPrefix(l, "auto = ") {
			rows++
		}
	}
	if rows != 2*len(cfg.Dynamic.Taus) {
		t.Errorf("rate-switch table has %d rows, want %d:\n%s", rows, 2*len(cfg.Dynamic.Taus), blocks[len(blocks)-1])
	}

	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	wantRecords := 1 + wantBlocks*len(cfg.Rs)*len(cfg.Ns)*estimators
	if len(records) != wantRecords || strings.Join(records[0], ",") != strings.Join(study.CSVHeader, ",") {
		t.Errorf("CSV has %d records (want %d), header %v", len(records), wantRecords, records[0])
	}

	png, err := os.ReadFile(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 10000 {
		t.Errorf("plot is not a PNG or nearly empty (%d bytes)", len(png))
	}
}

// -json prints the whole result, and -plot writes SVG too.
func TestAccuracyJSON(t *testing.T) {
	svgPath := filepath.Join(t.TempDir(), "plot.svg")
	var stdout, stderr bytes.Buffer
	if code := runAccuracy([]string{"-quick", "-trials", "30", "-seed", "9", "-json", "-plot", svgPath}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var res study.Result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("%v:\n%.500s", err, stdout.String())
	}
	if res.Config.Seed != 9 || res.Config.Trials != 30 || len(res.Cells) == 0 || len(res.Dynamic) == 0 {
		t.Errorf("JSON: seed %d, trials %d, %d cells, %d rate-switch rows", res.Config.Seed, res.Config.Trials, len(res.Cells), len(res.Dynamic))
	}
	svg, err := os.ReadFile(svgPath)
	if err != nil || !bytes.Contains(svg, []byte("<svg")) {
		t.Errorf("plot is not SVG (%v)", err)
	}
}

func TestAccuracyErrors(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{"bad flag", []string{"-trials", "many"}, 2, "invalid value"},
		{"zero trials", []string{"-trials", "0"}, 2, "-trials 0 is not positive"},
		{"plot format", []string{"-plot", "x.gif"}, 2, "want a .png or .svg file"},
		{"stray argument", []string{"now"}, 2, "unexpected arguments"},
		{"unwritable csv", []string{"-quick", "-trials", "5", "-csv", filepath.Join(t.TempDir(), "no", "such.csv")}, 1, "no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runAccuracy(tt.args, &stdout, &stderr)
			lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			if code != tt.code || len(lines) != 1 || !strings.Contains(lines[0], tt.contains) || stdout.Len() > 0 {
				t.Errorf("exit %d, want %d and one line containing %q; stderr:\n%s\nstdout:\n%s", code, tt.code, tt.contains, stderr.String(), stdout.String())
			}
		})
	}
}

// -h explains every column and estimator of the table.
func TestAccuracyHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := runAccuracy([]string{"-h"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"relative bias", "relative RMSE", "naive", "improved", "mle", "bayes", "prior-mle-eb",
		"prior-mle-10x", "auto", "lm-reduced*", "auto-early*", "lag", "before", "-seed", "-trials", "-quick", "-csv", "-plot", "-json"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("help does not mention %q", want)
		}
	}
}
