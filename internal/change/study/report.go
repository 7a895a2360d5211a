package study

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The table's two sweeps: by r at TableN visits, by n at TableR. Where
// the grid lacks them the nearest value is used.
const (
	TableN = 20
	TableR = 1.5
)

// key finds a Cell.
type key struct {
	process, schedule string
	lm                bool
	estimator         string
	r                 float64
	n                 int
}

func (res *Result) index() map[key]*Cell {
	m := make(map[key]*Cell, len(res.Cells))
	for i := range res.Cells {
		c := &res.Cells[i]
		m[key{c.Process, c.Schedule, c.LastModified, c.Estimator, c.R, c.N}] = c
	}
	return m
}

// row is an estimator as the table lists it.
type row struct {
	name string
	lm   bool
}

// rows returns the estimators in the order of res.Cells.
func (res *Result) rows() []row {
	var rows []row
	seen := map[row]bool{}
	for _, c := range res.Cells {
		r := row{c.Estimator, c.LastModified}
		if !seen[r] {
			seen[r] = true
			rows = append(rows, r)
		}
	}
	return rows
}

// label is an estimator's name in the table: a star marks those that read
// Last-Modified.
func (r row) label() string {
	if r.lm {
		return r.name + "*"
	}
	return r.name
}

// nearest returns the element of xs closest to x.
func nearest[T int | float64](xs []T, x T) T {
	best := xs[0]
	for _, v := range xs[1:] {
		if math.Abs(float64(v-x)) < math.Abs(float64(best-x)) {
			best = v
		}
	}
	return best
}

// WriteTable writes the study as compact text tables: for each process and
// schedule, the relative bias by r at n = TableN and the relative RMSE by
// n at r = TableR for every estimator, then the rate-switch experiment.
func (res *Result) WriteTable(w io.Writer) error {
	bw := bufio.NewWriter(w)
	cfg := res.Config
	idx := res.index()
	rows := res.rows()
	n := nearest(cfg.Ns, TableN)
	r := nearest(cfg.Rs, TableR)

	fmt.Fprintf(bw, "Change-rate estimator accuracy: %d pages per cell, seed %d.\n", cfg.Trials, cfg.Seed)
	fmt.Fprintf(bw, "Visits every %s on average (f); a page changes at λ = r·f; each estimate uses the first n visits compared.\n", days(res.Interval))
	fmt.Fprintf(bw, "Left: relative bias E[λ̂]/λ − 1 in %% at n = %d, by r. Right: relative RMSE in %% at r = %g, by n.\n", n, r)
	fmt.Fprintf(bw, "* reads Last-Modified (exact here). prior-mle: paper 001's prior, 57.5 h; -eb: at the population's\n")
	fmt.Fprintf(bw, "geometric-mean rate, r = %.2f; -10x: at 10·λ. auto (the crawler's): lm-reduced once Last-Modified has\n", res.PopulationR)
	fmt.Fprintf(bw, "shown 2 changes, prior-mle-eb before and without. auto-early: lm-reduced from 2 Last-Modified visits.\n")
	for _, p := range cfg.Processes {
		for _, s := range cfg.Schedules {
			fmt.Fprintf(bw, "\n%s changes, %s visits\n", p.Name(), s)
			left := fmt.Sprintf("bias %% at n = %d, by r", n)
			width := max(6*len(cfg.Rs), utf8.RuneCountInString(left))
			fmt.Fprintf(bw, "%-15s%-*s │ RMSE %% at r = %g, by n\n", "", width, left, r)
			var head strings.Builder
			for _, x := range cfg.Rs {
				fmt.Fprintf(&head, "%6s", strconv.FormatFloat(x, 'g', -1, 64))
			}
			fmt.Fprintf(bw, "%-15s%*s │", "estimator", width, head.String())
			for _, x := range cfg.Ns {
				fmt.Fprintf(bw, "%6d", x)
			}
			fmt.Fprintln(bw)
			for _, e := range rows {
				var bias strings.Builder
				for _, x := range cfg.Rs {
					c := idx[key{p.Name(), s.String(), e.lm, e.name, x, n}]
					fmt.Fprintf(&bias, "%6s", cellPercent(c, func(m Metrics) Number { return m.Bias }, true))
				}
				fmt.Fprintf(bw, "%-15s%*s │", e.label(), width, bias.String())
				for _, x := range cfg.Ns {
					c := idx[key{p.Name(), s.String(), e.lm, e.name, r, x}]
					fmt.Fprintf(bw, "%6s", cellPercent(c, func(m Metrics) Number { return m.RMSE }, false))
				}
				fmt.Fprintln(bw)
			}
		}
	}
	res.writeDynamic(bw)
	return bw.Flush()
}

// cellPercent formats one metric of c with percent, "-" for a missing
// cell; a trailing "!" flags a cell where some trials gave no estimate.
func cellPercent(c *Cell, metric func(Metrics) Number, signed bool) string {
	if c == nil {
		return "-"
	}
	s := percent(metric(c.Metrics), signed)
	if c.NotOK > 0 {
		s += "!"
	}
	return s
}

// percent formats x in whole percent, "n/a" if it is NaN (no trial gave
// an estimate).
func percent(x Number, signed bool) string {
	v := 100 * float64(x)
	switch {
	case math.IsNaN(v):
		return "n/a"
	case math.Abs(v) >= 9999.5:
		return ">1e4"
	case signed:
		return fmt.Sprintf("%+.0f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// days formats seconds as days.
func days(sec float64) string {
	d := sec / 86400
	if d == 1 {
		return "day"
	}
	return strconv.FormatFloat(d, 'g', 4, 64) + " days"
}

// writeDynamic writes the rate-switch table.
func (res *Result) writeDynamic(w io.Writer) {
	d := res.Config.Dynamic
	if len(res.Dynamic) == 0 {
		return
	}
	fmt.Fprintf(w, "\nRate switch (§6.7): Poisson changes at r = %g for %d regular visits, then at r = %g (up) or %g (down)\n", d.R, d.Before, d.R*d.Factor, d.R/d.Factor)
	fmt.Fprintf(w, "for %d more; the Stats forget with time constant τ visit intervals; %d pages per τ.\n", d.After, d.Trials)
	fmt.Fprintf(w, "before: bias and RMSE %% at visit %d, the noise of the memory (for τ ≥ %d, of the %d visits). lag: visits\n", d.Before, d.Before/2, d.Before)
	fmt.Fprintf(w, "after the switch from which the median estimate stays within %g %% of the new rate (never: not by visit %d).\n", 100*d.Tolerance, d.Before+d.After)
	fmt.Fprintf(w, "Then bias and RMSE %% at visit %d against the new rate.\n", d.Before+d.After)
	fmt.Fprintf(w, "%-32s │ %-11s │ %-17s │ %-17s\n", "", "before", fmt.Sprintf("up to r = %g", d.R*d.Factor), fmt.Sprintf("down to r = %g", d.R/d.Factor))
	fmt.Fprintf(w, "%-26s %5s │ %5s %5s │ %5s %5s %5s │ %5s %5s %5s\n", "estimator", "τ", "bias", "RMSE", "lag", "bias", "RMSE", "lag", "bias", "RMSE")
	for _, row := range res.Dynamic {
		name := "auto = prior-mle-eb"
		if row.LastModified {
			name = "auto = lm-reduced*"
		}
		tau := "none"
		if row.Tau > 0 {
			tau = strconv.FormatFloat(row.Tau, 'g', -1, 64)
		}
		fmt.Fprintf(w, "%-26s %5s │ %5s %5s │ %5s %5s %5s │ %5s %5s %5s\n", name, tau,
			percent(row.Before.Bias, true), percent(row.Before.RMSE, false),
			lagText(row.Up.Lag), percent(row.Up.End.Bias, true), percent(row.Up.End.RMSE, false),
			lagText(row.Down.Lag), percent(row.Down.End.Bias, true), percent(row.Down.End.RMSE, false))
	}
}

func lagText(l int) string {
	if l < 0 {
		return "never"
	}
	return strconv.Itoa(l)
}

// CSVHeader is the first record WriteCSV writes.
var CSVHeader = []string{"process", "schedule", "last_modified", "estimator", "r", "n",
	"trials", "not_ok", "zero", "bias", "bias_se", "rmse", "median_abs_log", "within2"}

// WriteCSV writes every cell with every metric, one record a cell under
// CSVHeader. The rate-switch experiment is in the table and the JSON.
func (res *Result) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	g := func(x Number) string { return strconv.FormatFloat(float64(x), 'g', 6, 64) }
	for _, c := range res.Cells {
		err := cw.Write([]string{c.Process, c.Schedule, strconv.FormatBool(c.LastModified), c.Estimator,
			strconv.FormatFloat(c.R, 'g', -1, 64), strconv.Itoa(c.N),
			strconv.Itoa(c.Trials), strconv.Itoa(c.NotOK), strconv.Itoa(c.Zero),
			g(c.Bias), g(c.BiasSE), g(c.RMSE), g(c.MedLog), g(c.Within2)})
		if err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
