package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/freshcrawl/freshcrawl/internal/reproduce"
)

// reproduceOptions are the reproduce command's flags.
type reproduceOptions struct {
	quick, asJSON bool
	seed          uint64
	plots         string
}

func reproduceFlags(o *reproduceOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("reproduce", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.BoolVar(&o.quick, "quick", false, "run smaller experiments (seconds, for tests and CI)")
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object per row")
	fs.Uint64Var(&o.seed, "seed", 1, "first `seed` of the simulations")
	fs.StringVar(&o.plots, "plots", "", "draw the ch. 2 figures as PNG files into `directory`")
	return fs
}

func runReproduce(args []string, stdout, stderr io.Writer) int {
	var o reproduceOptions
	fs := reproduceFlags(&o)
	if code, ok := parseArgs("reproduce", fs, args, stdout, stderr); !ok {
		return code
	}
	start := time.Now()
	rep, err := reproduce.Run(context.Background(), reproduce.Config{Quick: o.quick, Seed: o.seed, Figures: o.plots != ""})
	if err == nil && o.plots != "" {
		err = writeFigures(o.plots, rep.Figures)
	}
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl reproduce: %v\n", err)
		return 1
	}
	w := bufio.NewWriterSize(stdout, 1<<16)
	if o.asJSON {
		err = writeClaimsJSON(w, rep.Claims)
	} else {
		writeClaims(w, rep.Claims, time.Since(start))
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl reproduce: %v\n", err)
		return 1
	}
	var bad []string
	for _, c := range rep.Claims {
		if c.Verdict() == reproduce.Differs {
			bad = append(bad, fmt.Sprintf("%s: %s", c.Section, c.Quantity))
		}
	}
	if len(bad) > 0 {
		fmt.Fprintf(stderr, "freshcrawl reproduce: %d unflagged rows differ: %s\n", len(bad), strings.Join(bad, "; "))
		return 1
	}
	return 0
}

// writeFigures writes each figure into dir as a PNG file.
func writeFigures(dir string, figs []reproduce.Figure) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range figs {
		draw := func(w io.Writer) error { return f.Write(w, "png") }
		if err := writeFileWith(filepath.Join(dir, f.Name+".png"), buffered(draw)); err != nil {
			return err
		}
	}
	return nil
}

// paperText and measuredText are a claim's values as printed.
func paperText(c reproduce.Claim) string {
	if c.PaperText != "" {
		return c.PaperText
	}
	return strconv.FormatFloat(c.Paper, 'g', -1, 64)
}

func measuredText(c reproduce.Claim) string {
	switch {
	case c.Pending != "":
		return "—"
	case c.MeasuredText != "":
		return c.MeasuredText
	}
	return strconv.FormatFloat(c.Computed, 'g', 5, 64)
}

func writeClaims(w io.Writer, claims []reproduce.Claim, wall time.Duration) {
	counts := map[string]int{}
	// The claims come grouped by source.
	for len(claims) > 0 {
		n := 1
		for n < len(claims) && claims[n].Source() == claims[0].Source() {
			n++
		}
		writeGroup(w, claims[:n], counts)
		claims = claims[n:]
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	fmt.Fprintf(w, "%d rows: %d agree, %d differ with the paper's error flagged, %d differ, %d not yet measurable (%s)\n",
		total, counts[reproduce.Agrees], counts[reproduce.DiffersFlagged], counts[reproduce.Differs],
		counts[reproduce.NotMeasurable], wall.Round(100*time.Millisecond))
}

// writeGroup writes one source's claims as a table and counts their
// verdicts.
func writeGroup(w io.Writer, group []reproduce.Claim, counts map[string]int) {
	fmt.Fprintf(w, "== %s\n", group[0].Source())
	cells := [][4]string{{"section", "quantity", "paper", "measured"}}
	for _, c := range group {
		section := c.Section
		if c.Kind != "printed" {
			section += " [" + c.Kind + "]"
		}
		cells = append(cells, [4]string{section, c.Quantity, paperText(c), measuredText(c)})
	}
	// Columns are padded by hand, not by tabwriter, so that the flag
	// lines under the rows do not widen them.
	var width [4]int
	for _, r := range cells {
		for j, x := range r {
			width[j] = max(width[j], utf8.RuneCountInString(x))
		}
	}
	line := func(r [4]string, verdict string) {
		for j, x := range r {
			fmt.Fprintf(w, "%s%s  ", x, strings.Repeat(" ", width[j]-utf8.RuneCountInString(x)))
		}
		fmt.Fprintln(w, verdict)
	}
	line(cells[0], "verdict")
	for i, c := range group {
		v := c.Verdict()
		counts[v]++
		line(cells[i+1], v)
		switch {
		case c.Pending != "":
			fmt.Fprintf(w, "    why: %s\n", c.Pending)
		case c.Flag != "":
			fmt.Fprintf(w, "    flag: %s\n", c.Flag)
		}
	}
	fmt.Fprintln(w)
}

// jsonClaim is one row of -json output. Values a row does not have (an
// ordering's numbers, a pending row's measurement) are null.
type jsonClaim struct {
	Source       string   `json:"source"`
	Section      string   `json:"section"`
	Quantity     string   `json:"quantity"`
	Kind         string   `json:"kind"`
	Paper        *float64 `json:"paper"`
	PaperText    string   `json:"paper_text"`
	Measured     *float64 `json:"measured"`
	MeasuredText string   `json:"measured_text"`
	Tolerance    *float64 `json:"tolerance"`
	Verdict      string   `json:"verdict"`
	Flag         string   `json:"flag,omitempty"`
	Pending      string   `json:"pending,omitempty"`
}

func writeClaimsJSON(w io.Writer, claims []reproduce.Claim) error {
	enc := json.NewEncoder(w)
	for _, c := range claims {
		j := jsonClaim{Source: c.Source(), Section: c.Section, Quantity: c.Quantity, Kind: c.Kind,
			PaperText: paperText(c), MeasuredText: measuredText(c), Verdict: c.Verdict(), Flag: c.Flag, Pending: c.Pending}
		if c.PaperText == "" {
			j.Paper, j.Tolerance = finite(c.Paper), finite(c.Tol)
		}
		if c.MeasuredText == "" && c.Pending == "" {
			j.Measured = finite(c.Computed)
		}
		if err := enc.Encode(j); err != nil {
			return err
		}
	}
	return nil
}

// finite is v for JSON, or nil (null) where it is infinite or NaN.
func finite(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return &v
}
