package study

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// palette holds one colour per line, dark enough on white and distinct.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0x2c, 0xa0, 0x2c, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x8c, 0x56, 0x4b, 0xff},
	{0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff}, {0x17, 0xbe, 0xcf, 0xff},
	{0xbc, 0xbd, 0x22, 0xff},
}

var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{},
	draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{},
}

// Plot ranges: E[λ̂]/λ on a log axis from 1/8 to 8, median |log(λ̂/λ)|
// from 0 to 1.6 (a factor of 5). Points outside are clipped.
const (
	ratioMin, ratioMax float64 = 0.125, 8
	medLogMax          float64 = 1.6
)

// Plot draws, for Poisson changes at n = TableN visits (or the nearest),
// E[λ̂]/λ (top) and the median |log(λ̂/λ)| (bottom) against r for every
// estimator, one column per visit schedule, and writes the figure to w as
// format "png" or "svg". Two rows are left out: auto without Last-Modified
// is prior-mle-eb, and auto-early, with every page visited at least twice,
// is lm-reduced.
func (res *Result) Plot(w io.Writer, format string) error {
	const width, height = 13 * vg.Inch, 7.5 * vg.Inch
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(120))}
	case "svg":
		c = vgsvg.New(width, height)
	default:
		return fmt.Errorf("plot: unknown format %q (want png or svg)", format)
	}
	if err := res.draw(draw.New(c)); err != nil {
		return err
	}
	_, err := c.WriteTo(w)
	return err
}

// draw lays the figure out on dc.
func (res *Result) draw(dc draw.Canvas) error {
	cfg := res.Config
	n := nearest(cfg.Ns, TableN)
	idx := res.index()
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

	const titleH, legendW = 0.45 * vg.Inch, 2.2 * vg.Inch
	plots := make([][]*plot.Plot, 2)
	var legend []plot.Thumbnailer
	for i := range plots {
		plots[i] = make([]*plot.Plot, len(cfg.Schedules))
		for j, s := range cfg.Schedules {
			p := newPanel(cfg.Rs)
			if i == 0 {
				p.Title.Text = s.String() + " visits"
				p.Y.Label.Text = "E[λ̂]/λ"
				p.Y.Scale = plot.LogScale{}
				p.Y.Tick.Marker = ratioTicks()
				p.Add(refLine(cfg.Rs, 1))
			} else {
				p.Y.Label.Text = "median |log(λ̂/λ)|"
				p.Add(refLine(cfg.Rs, math.Ln2)) // a factor of 2
			}
			lo, hi := ratioMin, ratioMax
			if i == 1 {
				lo, hi = 0, medLogMax
			}
			for k, e := range rows {
				pts := make(plotter.XYs, 0, len(cfg.Rs))
				for _, r := range cfg.Rs {
					c := idx[key{process, s.String(), e.lm, e.name, r, n}]
					if c == nil {
						continue
					}
					y := float64(c.MedLog)
					if i == 0 {
						y = 1 + float64(c.Bias)
					}
					pts = append(pts, plotter.XY{X: r, Y: plottable(y, lo, hi)})
				}
				line, scatter, err := plotter.NewLinePoints(pts)
				if err != nil {
					return fmt.Errorf("plot %s: %w", e.label(), err)
				}
				col := palette[k%len(palette)]
				line.Color = col
				line.Width = vg.Points(1.6)
				if e.lm {
					line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
				}
				scatter.Color = col
				scatter.Shape = glyphs[k%len(glyphs)]
				scatter.Radius = vg.Points(3)
				p.Add(line, scatter)
				if i == 0 && j == 0 {
					legend = append(legend, line, scatter)
				}
			}
			// Add widens the axes to the data; the clipped points lie
			// beyond the range, so the range is set last.
			p.Y.Min, p.Y.Max = lo, hi
			p.X.Min, p.X.Max = cfg.Rs[0]*0.9, cfg.Rs[len(cfg.Rs)-1]*1.1
			plots[i][j] = p
		}
	}

	title := fmt.Sprintf("%s changes, n = %d visits, %d pages a point; * reads Last-Modified", process, n, cfg.Trials)
	sty := text.Style{Font: font.From(plot.DefaultFont, 15), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter}
	dc.FillText(sty, vg.Point{X: (dc.Min.X + dc.Max.X - legendW) / 2, Y: dc.Max.Y - titleH*0.7}, title)

	grid := draw.Crop(dc, 0, -legendW, 0, -titleH)
	tiles := draw.Tiles{Rows: 2, Cols: len(cfg.Schedules), PadX: vg.Points(14), PadY: vg.Points(10),
		PadLeft: vg.Points(6), PadRight: vg.Points(6), PadBottom: vg.Points(6)}
	canvases := plot.Align(plots, tiles, grid)
	for i := range plots {
		for j, p := range plots[i] {
			p.Draw(canvases[i][j])
		}
	}

	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.TextStyle.Font.Size = vg.Points(13)
	leg.ThumbnailWidth = vg.Points(30)
	leg.Padding = vg.Points(6)
	for k, e := range rows {
		leg.Add(e.label(), legend[2*k], legend[2*k+1])
	}
	legCanvas := draw.Crop(dc, dc.Max.X-dc.Min.X-legendW+vg.Points(10), 0, 0, -titleH-vg.Points(10))
	leg.Draw(legCanvas)
	note := "dashed: Last-Modified\ngrey: E = λ (top),\na factor of 2 (bottom)"
	small := text.Style{Font: font.From(plot.DefaultFont, 11), Handler: plot.DefaultTextHandler}
	small.Color = color.Gray{0x50}
	legCanvas.FillText(small, vg.Point{X: legCanvas.Min.X, Y: legCanvas.Min.Y + 1.2*vg.Inch}, note)
	return nil
}

// newPanel returns a panel with r on a log x axis ticked at the grid.
func newPanel(rs []float64) *plot.Plot {
	p := plot.New()
	p.Title.TextStyle.Font.Size = vg.Points(14)
	p.X.Label.Text = "r = λ/f"
	p.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	for _, r := range rs {
		ticks = append(ticks, plot.Tick{Value: r, Label: strconv.FormatFloat(r, 'g', -1, 64)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(12)
		a.Tick.Label.Font.Size = vg.Points(11)
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{0xe0}
	grid.Horizontal.Color = color.Gray{0xe0}
	p.Add(grid)
	return p
}

// ratioTicks marks the powers of two between ratioMin and ratioMax.
func ratioTicks() plot.ConstantTicks {
	var t []plot.Tick
	for v := ratioMin; v <= ratioMax; v *= 2 {
		t = append(t, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
	}
	return t
}

// refLine is a thin grey horizontal line at y across the r grid.
func refLine(rs []float64, y float64) *plotter.Line {
	l, _ := plotter.NewLine(plotter.XYs{{X: rs[0] * 0.9, Y: y}, {X: rs[len(rs)-1] * 1.1, Y: y}})
	l.Color = color.Gray{0x90}
	l.Width = vg.Points(1.2)
	return l
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
