package rank

import (
	"image/color"
	"io"

	"github.com/freshcrawl/freshcrawl/internal/figure"
)

// Curve is one line of a ch. 2 figure: a share against the fraction of the
// pages crawled.
type Curve struct {
	Name   string
	Values []float64 // after 1, 2, ... visits
	Dashed bool
}

var curveColours = []color.Color{figure.Blue, figure.Red, figure.Green, figure.Purple, figure.Grey, figure.Black}

// PlotCurves draws curves against the fraction crawled, as dissertation
// Figs. 2.3–2.7 do, and writes the figure to w as "png" or "svg".
func PlotCurves(w io.Writer, format, title, ylabel string, curves []Curve) error {
	p := figure.Panel{Title: title, X: figure.Axis{Label: "fraction of pages crawled", Min: 0, Max: 1},
		Y: figure.Axis{Label: ylabel, Min: 0, Max: 1}}
	for k, cv := range curves {
		n := len(cv.Values)
		// At most 500 points a line: the figure cannot show more.
		step := max(1, n/500)
		pts := []figure.Point{{X: 0, Y: 0}}
		for i := step - 1; i < n; i += step {
			pts = append(pts, figure.Point{X: float64(i+1) / float64(n), Y: cv.Values[i]})
		}
		if len(pts) == 1 || pts[len(pts)-1].X != 1 {
			pts = append(pts, figure.Point{X: 1, Y: cv.Values[n-1]})
		}
		line := figure.Line{Name: cv.Name, Points: pts, Color: curveColours[k%len(curveColours)], Width: 1.4}
		if cv.Dashed {
			line.Dashes = []float64{5, 3}
		}
		p.Lines = append(p.Lines, line)
	}
	return p.Write(w, format, figure.Size{Width: 7, Height: 5, DPI: 110})
}
