package study

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"

	"github.com/freshcrawl/freshcrawl/internal/figure"
)

// palette holds one colour per estimator.
var palette = []color.Color{figure.Blue, figure.Red, figure.Green, figure.Purple, figure.Orange, figure.Brown,
	figure.Pink, figure.Grey, figure.Cyan, figure.Olive}

// Plot ranges: E[λ̂]/λ on a log axis from 1/8 to 8, median |log(λ̂/λ)|
// from 0 to 1.6 (a factor of 5). Points outside are clipped.
const (
	ratioMin, ratioMax float64 = 0.125, 8
	medLogMax          float64 = 1.6
)

// figureSize is the figure's size: wide enough for three schedules.
var figureSize = figure.Size{Width: 13, Height: 7.5, DPI: 120}

// Plot draws, for Poisson changes at n = TableN visits (or the nearest),
// E[λ̂]/λ (top) and the median |log(λ̂/λ)| (bottom) against r for every
// estimator, one column per visit schedule, and writes the figure to w as
// format "png" or "svg". Two rows are left out: auto without Last-Modified
// is prior-mle-eb, and auto-early, with every page visited at least twice,
// is lm-reduced.
func (res *Result) Plot(w io.Writer, format string) error {
	return res.figure().Write(w, format, figureSize)
}

// figure lays the plot out: a row of bias panels over a row of spread
// panels, one column per visit schedule.
func (res *Result) figure() figure.Grid {
	cfg := res.Config
	n := nearest(cfg.Ns, TableN)
	var rows []row
	for _, r := range res.rows() {
		if r.name != AutoEarly && (r.name != Auto || r.lm) {
			rows = append(rows, r)
		}
	}
	process := Poisson.Name()
	if !slices.Contains(cfg.Processes, Poisson) && len(cfg.Processes) > 0 {
		process = cfg.Processes[0].Name()
	}
	g := figure.Grid{
		Title:  fmt.Sprintf("%s changes, n = %d visits, %d pages a point; * reads Last-Modified", process, n, cfg.Trials),
		Panels: [][]figure.Panel{nil, nil},
		Note:   "dashed: Last-Modified\ngrey: E = λ (top),\na factor of 2 (bottom)",
	}
	at := plotted{process: process, n: n, rows: rows, cells: res.index()}
	for _, s := range cfg.Schedules {
		g.Panels[0] = append(g.Panels[0], res.panel(at, s, true))
		g.Panels[1] = append(g.Panels[1], res.panel(at, s, false))
	}
	return g
}

// plotted is what the panels show: the estimator rows' cells of one
// process at n visits.
type plotted struct {
	process string
	n       int
	rows    []row
	cells   map[key]*Cell
}

// panel is one schedule's panel: E[λ̂]/λ on a log axis (bias) or the
// median |log(λ̂/λ)|, against r, one line per estimator row over a grey
// reference line (no bias, or a factor of 2).
func (res *Result) panel(at plotted, s Schedule, bias bool) figure.Panel {
	rs := res.Config.Rs
	p := figure.Panel{
		X: figure.Axis{Label: "r = λ/f", Log: true, Ticks: rs, Min: rs[0] * 0.9, Max: rs[len(rs)-1] * 1.1},
		Y: figure.Axis{Label: "median |log(λ̂/λ)|", Min: 0, Max: medLogMax},
	}
	ref := math.Ln2 // a factor of 2
	if bias {
		p.Title = s.String() + " visits"
		p.Y = figure.Axis{Label: "E[λ̂]/λ", Log: true, Ticks: ratioTicks(), Min: ratioMin, Max: ratioMax}
		ref = 1
	}
	p.Lines = append(p.Lines, figure.Line{Points: []figure.Point{{X: p.X.Min, Y: ref}, {X: p.X.Max, Y: ref}},
		Color: color.Gray{0x90}, Width: 1.2})
	marks := figure.Marks()
	for k, e := range at.rows {
		line := figure.Line{Name: e.label(), Color: palette[k%len(palette)], Width: 1.6, Mark: marks[k%len(marks)]}
		if e.lm {
			line.Dashes = []float64{6, 3}
		}
		for _, r := range rs {
			c := at.cells[key{at.process, s.String(), e.lm, e.name, r, at.n}]
			if c == nil {
				continue
			}
			y := float64(c.MedLog)
			if bias {
				y = 1 + float64(c.Bias)
			}
			line.Points = append(line.Points, figure.Point{X: r, Y: plottable(y, p.Y.Min, p.Y.Max)})
		}
		p.Lines = append(p.Lines, line)
	}
	return p
}

// ratioTicks marks the powers of two between ratioMin and ratioMax.
func ratioTicks() []float64 {
	var t []float64
	for v := ratioMin; v <= ratioMax; v *= 2 {
		t = append(t, v)
	}
	return t
}

// plottable returns y, or a value just beyond the range [lo, hi] when y is
// outside it or not finite, so that the line leaves the panel at the edge
// instead of stretching the axis.
func plottable(y, lo, hi float64) float64 {
	switch {
	case math.IsNaN(y) || y > hi:
		return hi * 1.5
	case y < lo:
		if lo > 0 {
			return lo / 1.5
		}
		return lo - 1
	}
	return y
}
