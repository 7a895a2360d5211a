package rank

import (
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Curve is one line of a ch. 2 figure: a share against the fraction of the
// pages crawled.
type Curve struct {
	Name   string
	Values []float64 // after 1, 2, ... visits
	Dashed bool
}

var curveColours = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0x2c, 0xa0, 0x2c, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x7f, 0x7f, 0x7f, 0xff}, {0x00, 0x00, 0x00, 0xff},
}

// PlotCurves draws curves against the fraction crawled, as dissertation
// Figs. 2.3–2.7 do, and writes the figure to w as "png" or "svg".
func PlotCurves(w io.Writer, format, title, ylabel string, curves []Curve) error {
	const width, height = 7 * vg.Inch, 5 * vg.Inch
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(110))}
	case "svg":
		c = vgsvg.New(width, height)
	default:
		return fmt.Errorf("plot: unknown format %q (want png or svg)", format)
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "fraction of pages crawled"
	p.Y.Label.Text = ylabel
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.Legend.Top = false
	p.Legend.Left = false
	p.Add(plotter.NewGrid())
	for k, cv := range curves {
		n := len(cv.Values)
		// At most 500 points a line: the figure cannot show more.
		step := max(1, n/500)
		var pts plotter.XYs
		for i := step - 1; i < n; i += step {
			pts = append(pts, plotter.XY{X: float64(i+1) / float64(n), Y: cv.Values[i]})
		}
		if len(pts) == 0 || pts[len(pts)-1].X != 1 {
			pts = append(pts, plotter.XY{X: 1, Y: cv.Values[n-1]})
		}
		line, err := plotter.NewLine(append(plotter.XYs{{X: 0, Y: 0}}, pts...))
		if err != nil {
			return fmt.Errorf("plot %s: %w", cv.Name, err)
		}
		line.Color = curveColours[k%len(curveColours)]
		line.Width = vg.Points(1.4)
		if cv.Dashed {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(line)
		p.Legend.Add(cv.Name, line)
	}
	p.Draw(draw.New(c))
	_, err := c.WriteTo(w)
	return err
}
