package figure

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bars is a series of bars of a panel: a histogram's bins, or one bar
// per category. A panel draws its bars under its lines.
type Bars struct {
	// Name is the series' legend entry; a series without one has none.
	Name string
	// Color fills the bars; nil is Blue.
	Color color.Color
	// Horizontal bars stand on the Y axis and grow along X; others stand
	// on the X axis and grow up.
	Horizontal bool
	Bars       []Bar
}

// Bar is one bar. It spans From to To along the axis it stands on and
// grows from that axis to Value. The axis it grows along must be linear:
// its range, when fitted to the data, includes 0.
type Bar struct{ From, To, Value float64 }

// barPlotter draws a Bars series on a gonum plot.
type barPlotter Bars

// Plot draws the bars, each filled and outlined in white so that
// neighbours stay apart.
func (b *barPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	fill := b.fill()
	edge := draw.LineStyle{Color: color.White, Width: vg.Points(0.5)}
	for _, bar := range b.Bars {
		var x0, x1, y0, y1 vg.Length
		if b.Horizontal {
			x0, x1, y0, y1 = c.Min.X, trX(bar.Value), trY(bar.From), trY(bar.To)
		} else {
			x0, x1, y0, y1 = trX(bar.From), trX(bar.To), c.Min.Y, trY(bar.Value)
		}
		pts := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}, {X: x0, Y: y0}}
		c.FillPolygon(fill, c.ClipPolygonXY(pts[:4]))
		c.StrokeLines(edge, c.ClipLinesXY(pts)...)
	}
}

// DataRange spans the bars, with 0 on the axis they grow along.
func (b *barPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	lo, hi, vlo, vhi := math.Inf(1), math.Inf(-1), 0.0, 0.0
	for _, bar := range b.Bars {
		lo, hi = min(lo, bar.From, bar.To), max(hi, bar.From, bar.To)
		vlo, vhi = min(vlo, bar.Value), max(vhi, bar.Value)
	}
	if b.Horizontal {
		return vlo, vhi, lo, hi
	}
	return lo, hi, vlo, vhi
}

// Thumbnail draws a filled square for the legend.
func (b *barPlotter) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(b.fill(), []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}})
}

func (b *barPlotter) fill() color.Color {
	if b.Color == nil {
		return Blue
	}
	return b.Color
}
