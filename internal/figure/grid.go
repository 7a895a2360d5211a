package figure

import (
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Grid is a figure of panels in rows and columns under one title, with one
// legend on the right for all of them: the named bars and lines of the
// first panel, which the other panels are expected to repeat in the same
// styles.
type Grid struct {
	Title string
	// Panels are the rows of panels, each row as long as the first.
	Panels [][]Panel
	// Note is a few lines of small grey text under the legend.
	Note string
}

// The grid's layout: a band for the title above the panels and a column
// for the legend to their right.
const (
	titleHeight = 0.45 * vg.Inch
	legendWidth = 2.2 * vg.Inch
)

// Write draws the grid and writes it to w as format "png" or "svg".
func (g Grid) Write(w io.Writer, format string, size Size) error {
	return write(w, format, size, g.draw)
}

// draw lays the grid out on dc: the title, the panels aligned in their
// tiles, then the legend and the note.
func (g Grid) draw(dc draw.Canvas) error {
	plots := make([][]*plot.Plot, len(g.Panels))
	var legend [][]plot.Thumbnailer
	for i, row := range g.Panels {
		plots[i] = make([]*plot.Plot, len(row))
		for j, p := range row {
			pl, thumbs, err := p.plot(true)
			if err != nil {
				return err
			}
			if i == 0 && j == 0 {
				legend = thumbs
			}
			plots[i][j] = pl
		}
	}
	sty := text.Style{Font: font.From(plot.DefaultFont, 15), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter}
	dc.FillText(sty, vg.Point{X: (dc.Min.X + dc.Max.X - legendWidth) / 2, Y: dc.Max.Y - titleHeight*0.7}, g.Title)

	area := draw.Crop(dc, 0, -legendWidth, 0, -titleHeight)
	tiles := draw.Tiles{Rows: len(plots), Cols: len(plots[0]), PadX: vg.Points(14), PadY: vg.Points(10),
		PadLeft: vg.Points(6), PadRight: vg.Points(6), PadBottom: vg.Points(6)}
	canvases := plot.Align(plots, tiles, area)
	for i := range plots {
		for j, p := range plots[i] {
			p.Draw(canvases[i][j])
		}
	}
	g.drawLegend(dc, legend)
	return nil
}

// drawLegend draws the legend of the first panel's named bars and lines,
// and the note under it, in the column right of the panels.
func (g Grid) drawLegend(dc draw.Canvas, thumbs [][]plot.Thumbnailer) {
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.TextStyle.Font.Size = vg.Points(13)
	leg.ThumbnailWidth = vg.Points(30)
	leg.Padding = vg.Points(6)
	var names []string
	for _, b := range g.Panels[0][0].Bars {
		names = append(names, b.Name)
	}
	for _, l := range g.Panels[0][0].Lines {
		names = append(names, l.Name)
	}
	k := 0
	for _, name := range names {
		if name != "" {
			leg.Add(name, thumbs[k]...)
			k++
		}
	}
	c := draw.Crop(dc, dc.Max.X-dc.Min.X-legendWidth+vg.Points(10), 0, 0, -titleHeight-vg.Points(10))
	leg.Draw(c)
	small := text.Style{Font: font.From(plot.DefaultFont, 11), Handler: plot.DefaultTextHandler}
	small.Color = color.Gray{0x50}
	c.FillText(small, vg.Point{X: c.Min.X, Y: c.Min.Y + 1.2*vg.Inch}, g.Note)
}
