// Package figure draws the charts of freshcrawl's reports and
// reproductions on gonum/plot, as PNG or SVG: lines, scattered marks and
// bars (histograms, categories), on linear or log axes, in one Panel
// alone (a chart with its legend inside), or a Grid of panels sharing one
// legend. Callers
// describe what to draw with this package's types and never touch
// gonum/plot, so the plotting scaffolding (canvases, formats, styles)
// lives here once.
package figure

import (
	"cmp"
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

// Colours of lines, dark enough on white and distinct from one another:
// the Tableau 10 palette, and black.
var (
	Blue   = color.RGBA{0x1f, 0x77, 0xb4, 0xff}
	Red    = color.RGBA{0xd6, 0x27, 0x28, 0xff}
	Green  = color.RGBA{0x2c, 0xa0, 0x2c, 0xff}
	Purple = color.RGBA{0x94, 0x67, 0xbd, 0xff}
	Orange = color.RGBA{0xff, 0x7f, 0x0e, 0xff}
	Brown  = color.RGBA{0x8c, 0x56, 0x4b, 0xff}
	Pink   = color.RGBA{0xe3, 0x77, 0xc2, 0xff}
	Grey   = color.RGBA{0x7f, 0x7f, 0x7f, 0xff}
	Cyan   = color.RGBA{0x17, 0xbe, 0xcf, 0xff}
	Olive  = color.RGBA{0xbc, 0xbd, 0x22, 0xff}
	Black  = color.RGBA{0x00, 0x00, 0x00, 0xff}
)

// Mark is the shape drawn at each point of a line.
type Mark uint8

// The marks; NoMark draws the line alone.
const (
	NoMark Mark = iota
	Circle
	Square
	Triangle
	Cross
	Plus
	Ring
	Box
	Pyramid
)

// Marks lists the marks in the order a figure of many lines cycles
// through them.
func Marks() []Mark { return []Mark{Circle, Square, Triangle, Cross, Plus, Ring, Box, Pyramid} }

func (m Mark) glyph() draw.GlyphDrawer {
	return [...]draw.GlyphDrawer{nil, draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{},
		draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}[m]
}

// markRadius is the size of every mark.
const markRadius = 3

// Point is one point of a line.
type Point struct{ X, Y float64 }

// Line is one curve of a panel.
type Line struct {
	// Name is the line's legend entry; a line without one has none.
	Name   string
	Points []Point
	// Color is the line's colour; nil is black.
	Color color.Color
	// Width is the line's width in points; zero is 1.
	Width float64
	// Dashes are the lengths, in points, of the dashes and the gaps
	// between them; nil draws a solid line.
	Dashes []float64
	// Mark is drawn at each point, in the line's colour.
	Mark Mark
	// Scatter draws the marks alone, without the line joining them; a
	// scatter without a Mark has Circles.
	Scatter bool
}

// Axis is one axis of a panel.
type Axis struct {
	Label string
	// Min and Max fix the axis's range; when both are zero the range fits
	// the data. Points outside a fixed range are drawn beyond the axis.
	Min, Max float64
	// Log draws the axis on a logarithmic scale.
	Log bool
	// Ticks, when given, are the only values marked, each labelled with
	// its shortest decimal form, or with its TickLabels entry when there
	// are as many of those. Without Ticks a log axis labels its powers
	// of ten, a linear one five to ten round values.
	Ticks      []float64
	TickLabels []string
}

// Panel is one chart: a title, two axes, the bars and then the lines,
// drawn in order over a background grid.
type Panel struct {
	Title string
	X, Y  Axis
	Bars  []Bars
	Lines []Line
	// Legend is the corner the legend of a panel drawn alone sits in.
	Legend Corner
}

// Corner is a corner of a panel's plotting area.
type Corner uint8

// The corners; the zero Corner is BottomRight.
const (
	BottomRight Corner = iota
	TopRight
	TopLeft
	BottomLeft
)

// Size is a figure's size and, for PNG, its resolution.
type Size struct {
	Width, Height float64 // inches
	DPI           int     // dots per inch of a PNG; SVG is resolution-free
}

// Write draws the panel alone, its legend in the bottom right corner, and
// writes it to w as format "png" or "svg".
func (p Panel) Write(w io.Writer, format string, size Size) error {
	return write(w, format, size, func(dc draw.Canvas) error {
		pl, _, err := p.plot(false)
		if err != nil {
			return err
		}
		pl.Draw(dc)
		return nil
	})
}

// write draws with drawFn on a canvas of size in format and writes the
// canvas to w.
func write(w io.Writer, format string, size Size, drawFn func(draw.Canvas) error) error {
	width, height := vg.Length(size.Width)*vg.Inch, vg.Length(size.Height)*vg.Inch
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(size.DPI))}
	case "svg":
		c = vgsvg.New(width, height)
	default:
		return fmt.Errorf("plot: unknown format %q (want png or svg)", format)
	}
	if err := drawFn(draw.New(c)); err != nil {
		return err
	}
	_, err := c.WriteTo(w)
	return err
}

// plot builds the panel's gonum plot and returns with it the legend
// thumbnails of its named bars and lines, in order. A panel of a grid
// (inGrid) has larger text and lighter grid lines, and no legend of its
// own: the grid's legend is drawn beside it.
func (p Panel) plot(inGrid bool) (*plot.Plot, [][]plot.Thumbnailer, error) {
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.X.Label.Text, pl.Y.Label.Text = p.X.Label, p.Y.Label
	pl.Legend.Top, pl.Legend.Left = p.Legend == TopRight || p.Legend == TopLeft, p.Legend == TopLeft || p.Legend == BottomLeft
	for _, a := range []struct {
		ax   *plot.Axis
		spec Axis
	}{{&pl.X, p.X}, {&pl.Y, p.Y}} {
		a.ax.Tick.Marker = linearTicks{}
		if a.spec.Log {
			a.ax.Tick.Marker = logTicks{}
		}
		if a.spec.Ticks != nil {
			a.ax.Tick.Marker = a.spec.ticks()
		}
	}
	grid := plotter.NewGrid()
	if inGrid {
		pl.Title.TextStyle.Font.Size = vg.Points(14)
		for _, a := range []*plot.Axis{&pl.X, &pl.Y} {
			a.Label.TextStyle.Font.Size = vg.Points(12)
			a.Tick.Label.Font.Size = vg.Points(11)
		}
		grid.Vertical.Color = color.Gray{0xe0}
		grid.Horizontal.Color = color.Gray{0xe0}
	}
	pl.Add(grid)
	thumbs, err := p.add(pl, !inGrid)
	if err != nil {
		return nil, nil, err
	}
	// Add widens the axes to the data, so a fixed range is set last.
	if p.X.Min != 0 || p.X.Max != 0 {
		pl.X.Min, pl.X.Max = p.X.at(p.X.Min), p.X.at(p.X.Max)
	}
	if p.Y.Min != 0 || p.Y.Max != 0 {
		pl.Y.Min, pl.Y.Max = p.Y.at(p.Y.Min), p.Y.at(p.Y.Max)
	}
	return pl, thumbs, nil
}

// add adds the panel's bars, then its lines, to pl, each at its place on
// the panel's axes, and returns the legend thumbnails of the named ones;
// with legend, they are entered in pl's legend too.
func (p Panel) add(pl *plot.Plot, legend bool) ([][]plot.Thumbnailer, error) {
	var thumbs [][]plot.Thumbnailer
	for _, b := range p.Bars {
		bp := barPlotter(b.on(p.X, p.Y))
		pl.Add(&bp)
		if b.Name != "" {
			if legend {
				pl.Legend.Add(b.Name, &bp)
			}
			thumbs = append(thumbs, []plot.Thumbnailer{&bp})
		}
	}
	for _, l := range p.Lines {
		th, err := l.on(p.X, p.Y).add(pl)
		if err != nil {
			return nil, err
		}
		if l.Name == "" {
			continue
		}
		if legend {
			pl.Legend.Add(l.Name, th...)
		}
		thumbs = append(thumbs, th)
	}
	return thumbs, nil
}

// add adds the line, and its marks if it has any, to pl and returns what
// its legend entry shows.
func (l Line) add(pl *plot.Plot) ([]plot.Thumbnailer, error) {
	xys := make(plotter.XYs, len(l.Points))
	for i, pt := range l.Points {
		xys[i] = plotter.XY{X: pt.X, Y: pt.Y}
	}
	if l.Scatter {
		return l.addScatter(pl, xys)
	}
	var line *plotter.Line
	var marks *plotter.Scatter
	var err error
	if l.Mark == NoMark {
		line, err = plotter.NewLine(xys)
	} else {
		line, marks, err = plotter.NewLinePoints(xys)
	}
	if err != nil {
		return nil, fmt.Errorf("plot %s: %w", l.Name, err)
	}
	if l.Color != nil {
		line.Color = l.Color
	}
	if l.Width != 0 {
		line.Width = vg.Points(l.Width)
	}
	if l.Dashes != nil {
		line.Dashes = make([]vg.Length, len(l.Dashes))
		for i, d := range l.Dashes {
			line.Dashes[i] = vg.Points(d)
		}
	}
	if marks == nil {
		pl.Add(line)
		return []plot.Thumbnailer{line}, nil
	}
	marks.Color = line.Color
	marks.Shape = l.Mark.glyph()
	marks.Radius = vg.Points(markRadius)
	pl.Add(line, marks)
	return []plot.Thumbnailer{line, marks}, nil
}

// addScatter adds the line's marks alone to pl and returns what its
// legend entry shows.
func (l Line) addScatter(pl *plot.Plot, xys plotter.XYs) ([]plot.Thumbnailer, error) {
	marks, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, fmt.Errorf("plot %s: %w", l.Name, err)
	}
	marks.Color = l.Color
	if marks.Color == nil {
		marks.Color = Black
	}
	marks.Shape = cmp.Or(l.Mark, Circle).glyph()
	marks.Radius = vg.Points(markRadius)
	pl.Add(marks)
	return []plot.Thumbnailer{marks}, nil
}
