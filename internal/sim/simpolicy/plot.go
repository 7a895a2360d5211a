package simpolicy

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

// palette holds one colour per policy, dark enough on white and distinct.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0x00, 0x00, 0x00, 0xff}, {0x2c, 0xa0, 0x2c, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0xff, 0x7f, 0x0e, 0xff},
	{0x8c, 0x56, 0x4b, 0xff}, {0x7f, 0x7f, 0x7f, 0xff},
}

// Plot draws each policy's freshness over time (daily averages over the
// seeds) with the warm-up's end marked, and writes it to w as format "png"
// or "svg".
func (r *Report) Plot(w io.Writer, format string, warmUpDays float64) error {
	const width, height = 9 * vg.Inch, 5 * vg.Inch
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(120))}
	case "svg":
		c = vgsvg.New(width, height)
	default:
		return fmt.Errorf("plot: unknown format %q (want png or svg)", format)
	}
	p := plot.New()
	p.Title.Text = "Freshness over time"
	p.X.Label.Text = "day"
	p.Y.Label.Text = "freshness (share of pages fresh)"
	p.Legend.Top = false
	p.Legend.Left = false
	p.Add(plotter.NewGrid())
	lo, hi := 1.0, 0.0
	for k, row := range r.Rows {
		pts := make(plotter.XYs, len(row.Series))
		for j, pt := range row.Series {
			pts[j] = plotter.XY{X: pt.End / day, Y: pt.Freshness}
			lo, hi = min(lo, pt.Freshness), max(hi, pt.Freshness)
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return fmt.Errorf("plot %s: %w", row.Policy, err)
		}
		line.Color = palette[k%len(palette)]
		line.Width = vg.Points(1.5)
		if row.Policy == "oracle" {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(line)
		p.Legend.Add(row.Policy, line)
	}
	if warmUpDays > 0 && hi >= lo {
		m, err := plotter.NewLine(plotter.XYs{{X: warmUpDays, Y: lo}, {X: warmUpDays, Y: hi}})
		if err != nil {
			return err
		}
		m.Color = color.Gray{Y: 0x99}
		m.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(m)
		p.Legend.Add("end of warm-up", m)
	}
	p.Draw(draw.New(c))
	_, err := c.WriteTo(w)
	return err
}
