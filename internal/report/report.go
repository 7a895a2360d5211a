// Package report assembles freshcrawl report: plots of what a stopped
// crawl has done, from the activity datadir.ReadActivity reads out of its
// data directory, drawn by internal/figure as PNG and SVG files, and an
// index.html that shows them with a caption each (html.go). Which plots,
// and the numbers behind them, are in plots.go; the binning in bins.go.
package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/datadir"
	"github.com/freshcrawl/freshcrawl/internal/figure"
)

// Report is the plots of one crawl and the numbers that sum it up.
type Report struct {
	Summary Summary
	Plots   []Plot
}

// Summary is the crawl in a few numbers: the pages held, the URLs seen,
// the fetches recorded and those that found a change, the hosts fetched
// from, and the times of the first and last fetch (zero if none).
type Summary struct {
	Held             int
	Seen             uint64
	Fetches, Changes int
	Hosts            int
	First, Last      time.Time
}

// Span is the time from the first fetch to the last, to the second.
func (s Summary) Span() time.Duration { return s.Last.Sub(s.First).Round(time.Second) }

// Plot is one figure of a report.
type Plot struct {
	// Name is the base name of its files, Name.png and Name.svg.
	Name string
	// Title heads it in index.html; Caption says in one line what it
	// shows on this crawl.
	Title, Caption string
	Panel          figure.Panel
	// Data is how many values it is drawn from (pages, visits, hosts,
	// URLs); 0 is an empty plot.
	Data int
}

// Size is the size of every plot: 800 × 450 pixels as PNG.
var Size = figure.Size{Width: 8, Height: 4.5, DPI: 100}

// New builds the report of the crawl whose activity is a.
func New(a *datadir.Activity) *Report {
	tl := newTimeline(a.Fetches)
	r := &Report{Summary: Summary{Held: len(a.Held), Seen: a.Seen, Fetches: len(a.Fetches),
		Changes: len(a.Changes), First: tl.first, Last: tl.last}}
	for _, n := range a.HostFetches {
		if n > 0 {
			r.Summary.Hosts++
		}
	}
	r.Plots = []Plot{rateHistogram(a.Held), intervals(a.Held), revisits(a, tl), hostBudget(a.HostFetches),
		discovery(a, tl)}
	for i := range r.Plots {
		if r.Plots[i].Data == 0 {
			r.Plots[i].Panel = placeholder(r.Plots[i].Panel)
		}
	}
	return r
}

// timeline is the span of a crawl's fetches and the unit that shows it.
type timeline struct {
	first, last time.Time
	unit        timeUnit
}

func newTimeline(ts []time.Time) timeline {
	if len(ts) == 0 {
		return timeline{unit: unitFor(0)}
	}
	first, last := slices.MinFunc(ts, time.Time.Compare), slices.MaxFunc(ts, time.Time.Compare)
	return timeline{first: first, last: last, unit: unitFor(last.Sub(first))}
}

// at is t on the plots' time axis: the time since the first fetch.
func (tl timeline) at(t time.Time) float64 { return tl.unit.in(t.Sub(tl.first)) }

// axis is the plots' time axis.
func (tl timeline) axis() figure.Axis {
	return figure.Axis{Label: fmt.Sprintf("time since the first fetch (%s)", tl.unit.name)}
}

// placeholder is p with nothing to draw: fixed axes (a log axis cannot
// fit no data) and a title that says so.
func placeholder(p figure.Panel) figure.Panel {
	p.Title += " (no data)"
	p.Bars, p.Lines = nil, nil
	for _, a := range []*figure.Axis{&p.X, &p.Y} {
		a.Min, a.Max, a.Ticks, a.TickLabels = 0, 1, nil, nil
		if a.Log {
			a.Min, a.Max = 1, 10
		}
	}
	return p
}

// WriteDir writes every plot as PNG and SVG, and index.html, into dir,
// creating it if need be and overwriting the files already there. It
// returns the paths of the files written, in order.
func (r *Report) WriteDir(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var written []string
	for _, p := range r.Plots {
		for _, format := range []string{"png", "svg"} {
			var buf bytes.Buffer
			if err := p.Panel.Write(&buf, format, Size); err != nil {
				return written, fmt.Errorf("report: %s: %w", p.Name, err)
			}
			name := filepath.Join(dir, p.Name+"."+format)
			if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
				return written, fmt.Errorf("report: %w", err)
			}
			written = append(written, name)
		}
	}
	var buf bytes.Buffer
	if err := r.writeHTML(&buf); err != nil {
		return written, fmt.Errorf("report: index.html: %w", err)
	}
	name := filepath.Join(dir, "index.html")
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		return written, fmt.Errorf("report: %w", err)
	}
	return append(written, name), nil
}
