package report

// The five plots of a report, each from one part of the crawl's activity.

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/datadir"
	"github.com/freshcrawl/freshcrawl/internal/figure"
)

const secondsPerDay = 86400

// rateLabel is the label of an axis of change rates. The crawler's clock
// is named because a crawl of a simulated web estimates rates in its
// own time, not the web's.
const rateLabel = "estimated change rate (changes per day, crawler's clock)"

// rateHistogram is the held pages by estimated change rate, in
// log-spaced bins.
func rateHistogram(held []datadir.HeldPage) Plot {
	var perDay []float64
	for _, h := range held {
		if h.Rate > 0 && !math.IsInf(h.Rate, 1) {
			perDay = append(perDay, h.Rate*secondsPerDay)
		}
	}
	edges := logBins(perDay)
	bars := make([]figure.Bar, max(len(edges)-1, 0))
	for i := range bars {
		bars[i] = figure.Bar{From: edges[i], To: edges[i+1]}
	}
	for _, v := range perDay {
		bars[binOf(edges, v)].Value++
	}
	highest := 0.0
	for _, b := range bars {
		highest = max(highest, b.Value)
	}
	p := Plot{Name: "rates", Title: "Change rates of the pages held", Data: len(perDay),
		Panel: figure.Panel{Title: "Estimated change rate of the pages held", X: figure.Axis{Label: rateLabel, Log: true},
			Y: headroom("pages held", highest), Bars: []figure.Bars{{Color: figure.Blue, Bars: bars}}}}
	p.Caption = fmt.Sprintf("How many of the %d pages held have each estimated change rate, in bins of a quarter "+
		"of a factor of ten: %d have an estimate, %d none yet.", len(held), len(perDay), len(held)-len(perDay))
	if len(perDay) > 0 {
		p.Caption += fmt.Sprintf(" The median is %s.", datadir.PerDay(median(perDay)))
	}
	return p
}

// maxScatter bounds the pages drawn one mark each, which keeps the SVG
// small; the medians are over all of them.
const maxScatter = 2000

// intervals is each held page's planned revisit interval against its
// estimated rate, with the median interval of each rate bin and the line
// of one revisit per expected change.
func intervals(held []datadir.HeldPage) Plot {
	var rates, ivs []float64
	for _, h := range held {
		if h.Rate > 0 && h.Interval > 0 && !math.IsInf(h.Rate, 1) && !math.IsInf(h.Interval, 1) {
			rates, ivs = append(rates, h.Rate*secondsPerDay), append(ivs, h.Interval)
		}
	}
	unit := unitFor(time.Duration(median(slices.Clone(ivs)) * float64(time.Second)))
	y := func(seconds float64) float64 { return seconds / unit.d.Seconds() }
	dots := figure.Line{Name: "a page", Color: color.Gray{Y: 0xa0}, Scatter: true}
	step := max(1, len(rates)/maxScatter)
	for i := 0; i < len(rates); i += step {
		dots.Points = append(dots.Points, figure.Point{X: rates[i], Y: y(ivs[i])})
	}
	edges := logBins(rates)
	byBin := make([][]float64, max(len(edges)-1, 0))
	for i, r := range rates {
		b := binOf(edges, r)
		byBin[b] = append(byBin[b], ivs[i])
	}
	medians := figure.Line{Name: "median of the rate bin", Color: figure.Red, Width: 2, Mark: figure.Circle}
	for b, in := range byBin {
		if len(in) > 0 {
			medians.Points = append(medians.Points, figure.Point{X: math.Sqrt(edges[b] * edges[b+1]), Y: y(median(in))})
		}
	}
	p := Plot{Name: "intervals", Title: "Revisit interval against change rate", Data: len(rates),
		Panel: figure.Panel{Title: "Planned revisit interval against estimated change rate",
			X: figure.Axis{Label: rateLabel, Log: true}, Y: figure.Axis{Label: "revisit interval (" + unit.name + ")", Log: true},
			Lines: []figure.Line{dots, medians}, Legend: figure.BottomLeft}}
	if len(edges) > 0 {
		// The line of interval = 1/rate, within the pages' range of
		// intervals (a factor of 2 beyond) so as not to stretch the axis.
		lo := max(edges[0], secondsPerDay/(2*slices.Max(ivs)))
		hi := min(edges[len(edges)-1], secondsPerDay/(slices.Min(ivs)/2))
		p.Panel.Lines = append(p.Panel.Lines, figure.Line{Name: "one revisit per change", Color: figure.Black,
			Dashes: []float64{4, 3}, Points: []figure.Point{{X: lo, Y: y(secondsPerDay / lo)}, {X: hi, Y: y(secondsPerDay / hi)}}})
	}
	p.Caption = fmt.Sprintf("The revisit interval the refresh policy planned for each of the %d pages held that have "+
		"one and an estimated rate (grey, at most %d drawn), the median interval of each rate bin (red), and the "+
		"interval of one revisit per expected change (dashed).", len(rates), maxScatter)
	if len(rates) == 0 {
		p.Caption = "No page held has both an estimated rate and a planned interval yet."
	}
	return p
}

// revisits is the fetches and the changes they found in each bucket of
// time.
func revisits(a *datadir.Activity, tl timeline) Plot {
	w := bucketWidth(tl.last.Sub(tl.first))
	n := int(tl.last.Sub(tl.first)/w) + 1
	per := durationName(w)
	p := Plot{Name: "revisits", Title: "Fetches and changes over time", Data: len(a.Fetches),
		Panel: figure.Panel{Title: "Fetches and changes found per " + per, X: tl.axis(), Legend: figure.TopRight}}
	fetches := count(a.Fetches, tl.first, w, n)
	for _, s := range []struct {
		name   string
		counts []float64
		c      color.Color
	}{{"fetches", fetches, figure.Blue}, {"changes found", count(a.Changes, tl.first, w, n), figure.Red}} {
		line := figure.Line{Name: s.name, Color: s.c, Width: 1.5}
		for i, v := range s.counts {
			line.Points = append(line.Points, figure.Point{X: tl.at(tl.first.Add(time.Duration(i)*w + w/2)), Y: v})
		}
		p.Panel.Lines = append(p.Panel.Lines, line)
	}
	// Room at the top for the legend.
	p.Panel.Y = headroom("visits per "+per, 1.2*slices.Max(fetches))
	p.Caption = fmt.Sprintf("The %d fetches the crawl recorded (sitemaps included) and the %d that found the content "+
		"changed, per %s from the first fetch to the last.", len(a.Fetches), len(a.Changes), per)
	return p
}

// topHosts is how many hosts the budget plot names.
const topHosts = 20

// hostBudget is the share of the fetches that went to each of the
// busiest hosts, busiest on top.
func hostBudget(fetches map[string]int64) Plot {
	type host struct {
		name string
		n    int64
	}
	var hosts []host
	var total int64
	for name, n := range fetches {
		if n > 0 {
			hosts, total = append(hosts, host{name, n}), total+n
		}
	}
	slices.SortFunc(hosts, func(a, b host) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.name, b.name)) })
	shown := hosts[:min(len(hosts), topHosts)]
	bars := figure.Bars{Color: figure.Blue, Horizontal: true}
	y := figure.Axis{}
	var top, top0 int64
	if len(shown) > 0 {
		top0 = shown[0].n
	}
	for i, h := range shown {
		pos := float64(len(shown) - 1 - i)
		bars.Bars = append(bars.Bars, figure.Bar{From: pos - 0.4, To: pos + 0.4, Value: 100 * float64(h.n) / float64(total)})
		y.Ticks, y.TickLabels = append(y.Ticks, pos), append(y.TickLabels, h.name)
		top += h.n
	}
	y.Min, y.Max = -0.7, float64(len(shown))-0.3 // a gap above and below
	p := Plot{Name: "hosts", Title: "Fetches per host", Data: len(hosts),
		Panel: figure.Panel{Title: "Share of the fetches per host", X: headroom("share of all fetches (%)", percent(top0, total)),
			Y: y, Bars: []figure.Bars{bars}}}
	p.Caption = fmt.Sprintf("The share of the %d fetches that went to each of the %d busiest of the %d hosts "+
		"fetched from (%.1f%% of the fetches), busiest on top.", total, len(shown), len(hosts), percent(top, total))
	return p
}

// headroom is a linear axis from 0 to a little over highest, so that
// the highest bar or point clears the title.
func headroom(label string, highest float64) figure.Axis {
	return figure.Axis{Label: label, Min: 0, Max: 1.08 * max(highest, 1)}
}

func percent(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// maxSteps bounds the points of a cumulative line.
const maxSteps = 500

// discovery is how many URLs had been fetched, and answered with content,
// by each time, with the URLs seen by the end for scale.
func discovery(a *datadir.Activity, tl timeline) Plot {
	p := Plot{Name: "discovery", Title: "Discovery over time", Data: len(a.FirstFetched),
		Panel: figure.Panel{Title: "URLs fetched and held over time", X: tl.axis(),
			Y: headroom("URLs", float64(max(a.Seen, uint64(len(a.FirstFetched)))))}}
	// The lines coincide where every URL fetched is held: the first
	// fetches are drawn wide under the other.
	fetched, held := cumulative("first fetched", figure.Blue, a.FirstFetched, tl), cumulative("first held (2xx)", figure.Green, a.FirstHeld, tl)
	fetched.Width = 4
	p.Panel.Lines = append(p.Panel.Lines, fetched, held)
	if len(a.FirstFetched) > 0 {
		p.Panel.Lines = append(p.Panel.Lines, figure.Line{Name: "URLs seen by the end", Color: figure.Grey,
			Dashes: []float64{4, 3}, Points: []figure.Point{{X: 0, Y: float64(a.Seen)}, {X: tl.at(tl.last), Y: float64(a.Seen)}}})
	}
	p.Caption = fmt.Sprintf("How many URLs the crawl had fetched for the first time (%d in all), and how many of "+
		"them it had first held with a 2xx answer (%d), by each time; %d URLs were seen, fetched or not.",
		len(a.FirstFetched), len(a.FirstHeld), a.Seen)
	return p
}

// cumulative is the line of how many of ts are at or before each time,
// at most maxSteps points.
func cumulative(name string, c color.Color, ts []time.Time, tl timeline) figure.Line {
	sorted := slices.SortedFunc(slices.Values(ts), time.Time.Compare)
	line := figure.Line{Name: name, Color: c, Width: 1.5}
	step := max(1, len(sorted)/maxSteps)
	for i := 0; i < len(sorted); i += step {
		line.Points = append(line.Points, figure.Point{X: tl.at(sorted[i]), Y: float64(i + 1)})
	}
	if n := len(sorted); n > 0 && (n-1)%step != 0 {
		line.Points = append(line.Points, figure.Point{X: tl.at(sorted[n-1]), Y: float64(n)})
	}
	return line
}
