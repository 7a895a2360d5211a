package simpolicy

import (
	"image/color"

	"github.com/freshcrawl/freshcrawl/internal/figure"
)

// PlotSize is the size of FreshnessChart's figure.
var PlotSize = figure.Size{Width: 9, Height: 5, DPI: 120}

// policyColours holds one colour per policy in report order; the oracle,
// second by default, is black.
var policyColours = []color.Color{figure.Blue, figure.Black, figure.Green, figure.Purple, figure.Red, figure.Orange,
	figure.Brown, figure.Grey}

// FreshnessChart is the figure of a comparison (freshcrawl simulate
// -plot): each policy's freshness over time (daily averages over the
// seeds), the oracle dashed, with the end of the warm-up marked.
func FreshnessChart(rep *Report, warmUpDays float64) figure.Panel {
	p := figure.Panel{Title: "Freshness over time", X: figure.Axis{Label: "day"},
		Y: figure.Axis{Label: "freshness (share of pages fresh)"}}
	lo, hi := 1.0, 0.0
	for k, row := range rep.Rows {
		line := figure.Line{Name: row.Policy, Color: policyColours[k%len(policyColours)], Width: 1.5,
			Points: make([]figure.Point, len(row.Series))}
		for j, pt := range row.Series {
			line.Points[j] = figure.Point{X: pt.End / 86400, Y: pt.Freshness}
			lo, hi = min(lo, pt.Freshness), max(hi, pt.Freshness)
		}
		if row.Policy == "oracle" {
			line.Dashes = []float64{5, 3}
		}
		p.Lines = append(p.Lines, line)
	}
	if warmUpDays > 0 && hi >= lo {
		p.Lines = append(p.Lines, figure.Line{Name: "end of warm-up", Color: color.Gray{Y: 0x99}, Dashes: []float64{2, 2},
			Points: []figure.Point{{X: warmUpDays, Y: lo}, {X: warmUpDays, Y: hi}}})
	}
	return p
}
