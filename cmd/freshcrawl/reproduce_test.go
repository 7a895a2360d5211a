package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/reproduce"
)

// TestReproduceQuick runs -quick -json and checks every row: the unflagged
// measurable ones agree (the exit status says so too), every flagged row
// carries its flag text, the policy package's rows are all there, and the
// simulated claims the issue names are present.
func TestReproduceQuick(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runReproduce([]string{"-quick", "-json"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var rows []jsonClaim
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var j jsonClaim
		if err := json.Unmarshal(sc.Bytes(), &j); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		rows = append(rows, j)
	}
	if want := len(reproduce.AllRows()); len(rows) < want+8 {
		t.Fatalf("%d rows, want the %d of reproduce.AllRows and the simulated ones", len(rows), want)
	}
	flagged, pending := 0, 0
	for _, r := range rows {
		switch {
		case r.Pending != "":
			pending++
			if r.Verdict != reproduce.NotMeasurable || r.Measured != nil {
				t.Errorf("%s %s: pending row has verdict %q, measured %v", r.Section, r.Quantity, r.Verdict, r.Measured)
			}
		case r.Flag != "":
			flagged++
			if r.Verdict != reproduce.Agrees && r.Verdict != reproduce.DiffersFlagged {
				t.Errorf("%s %s: flagged row has verdict %q", r.Section, r.Quantity, r.Verdict)
			}
		case r.Verdict != reproduce.Agrees:
			t.Errorf("%s %s: paper %v (%s), measured %v (%s): %s", r.Section, r.Quantity, r.Paper, r.PaperText,
				r.Measured, r.MeasuredText, r.Verdict)
		}
	}
	if flagged == 0 || pending != 0 {
		t.Errorf("%d flagged and %d pending rows, want some and none", flagged, pending)
	}
	for _, want := range []string{
		"changes detected: ours > naive > uniform",
		"very stale share falls with the horizon",
		"optimal < uniform < proportional",
		"optimal r, C_c = C_s = 1, Δ = 24 h",
		"ChangeRatio of greedy over the frequency-based policy",
		"greedy's best sample size lies in 10–50",
		"hot share, IB ≥ 100 (calibration)",
		"I = IR, G = 13: IR' best",
		"O = IB': the larger G, the higher",
		"overlap (N − I)/I in firewall and exchange mode, every n: exactly 0",
		"exchange, site-hash, immediate: URLs exchanged per page, n = 64",
		"firewall quality falls with n = 2, 8, 64",
		"the default keeps pages fresher than LambdaCrawl",
		"harmonic staleness ln(1 + Δ/ρ) of a Poisson crawl",
	} {
		found := false
		for _, r := range rows {
			if strings.Contains(r.Quantity, want) {
				found = true
				if r.Verdict != reproduce.Agrees {
					t.Errorf("%s: %s", want, r.Verdict)
				}
			}
		}
		if !found {
			t.Errorf("no row %q", want)
		}
	}
}

// TestReproduceText checks the text report's groups, a flag line and the
// summary, and that -plots draws the four figures of §2.5.2 as PNG files.
func TestReproduceText(t *testing.T) {
	var out, errOut bytes.Buffer
	dir := filepath.Join(t.TempDir(), "plots")
	if code := runReproduce([]string{"-quick", "-seed", "2", "-plots", dir}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, name := range []string{"fig2.3-backlink-G", "fig2.4-orderings-IB-G100", "fig2.6-crawl-and-stop-IB", "fig2.7-orderings-IR-G13"} {
		f, err := os.Open(filepath.Join(dir, name+".png"))
		if err != nil {
			t.Error(err)
			continue
		}
		if img, err := png.Decode(f); err != nil || img.Bounds().Dx() != 770 {
			t.Errorf("%s: not a PNG 7 inches wide at 110 dpi (%v)", name, err)
		}
		f.Close()
	}
	s := out.String()
	for _, want := range []string{"== dissertation ch. 3", "== dissertation ch. 5", "== dissertation ch. 6", "== paper 001", "== paper 002",
		"== paper 004", "flag: printed 30% higher", "flag: from 0.75 to 1 is an improvement of 33%", "0 not yet measurable",
		"differs: paper error flagged", "0 differ,"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestReproduceBadInput checks that bad flags exit 2 with one line.
func TestReproduceBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"flag", []string{"-nope"}, "-nope"},
		{"seed", []string{"-seed", "x"}, "-seed"},
		{"argument", []string{"extra"}, "unexpected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runReproduce(tt.args, &out, &errOut)
			msg := errOut.String()
			if code != 2 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, tt.want) {
				t.Errorf("exit %d, stderr %q: want 2 and one line with %q", code, msg, tt.want)
			}
		})
	}
}

// TestReproduceHelp checks -h names the flags and the verdicts.
func TestReproduceHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runReproduce([]string{"-h"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, s := range []string{"-quick", "-json", "-seed", reproduce.Agrees, reproduce.DiffersFlagged,
		reproduce.Differs, reproduce.NotMeasurable} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("help lacks %q", s)
		}
	}
}
