package figure

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// diagonal is a panel of one red line across the unit square.
func diagonal() Panel {
	return Panel{Title: "t", X: Axis{Label: "x", Min: 0, Max: 1}, Y: Axis{Label: "y", Min: 0, Max: 1},
		Lines: []Line{{Name: "d", Points: []Point{{0, 0}, {1, 1}}, Color: Red, Width: 3}}}
}

// small draws p as a PNG of 200 × 150 pixels and decodes it.
func small(t *testing.T, p Panel) image.Image {
	t.Helper()
	var buf bytes.Buffer
	if err := p.Write(&buf, "png", Size{Width: 4, Height: 3, DPI: 50}); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestPanelPNG checks a PNG's size in pixels (inches × DPI) and that the
// line is drawn in its colour.
func TestPanelPNG(t *testing.T) {
	img := small(t, diagonal())
	if b := img.Bounds(); b.Dx() != 200 || b.Dy() != 150 {
		t.Errorf("%v pixels, want 200 × 150", b)
	}
	if n := count(img, Red); n < 50 {
		t.Errorf("%d pixels of the line's colour, want a line's worth", n)
	}
}

func count(img image.Image, c color.Color) int {
	n := 0
	r0, g0, b0, _ := c.RGBA()
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, g, b, _ := img.At(x, y).RGBA(); r == r0 && g == g0 && b == b0 {
				n++
			}
		}
	}
	return n
}

// TestWriteFormats checks SVG output names the size in points (72 an
// inch) and carries the texts, and that another format is refused.
func TestWriteFormats(t *testing.T) {
	var buf bytes.Buffer
	if err := diagonal().Write(&buf, "svg", Size{Width: 4, Height: 3}); err != nil {
		t.Fatal(err)
	}
	svg := buf.String()
	for _, want := range []string{"<svg", `width="288pt"`, `height="216pt"`, ">t<", ">d<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if err := diagonal().Write(&buf, "gif", Size{Width: 4, Height: 3}); err == nil {
		t.Error("gif accepted")
	}
}

// TestGrid draws two rows of two panels with marked, dashed and unnamed
// lines: the legend holds the named ones, the note and title are drawn.
func TestGrid(t *testing.T) {
	p := Panel{Title: "t", X: Axis{Label: "r", Log: true, Min: 0.5, Max: 1, Ticks: []float64{0.5, 1}}, Y: Axis{Label: "y"}}
	p.Lines = append(p.Lines,
		Line{Name: "d", Points: []Point{{0.5, 0}, {1, 1}}, Color: Red},
		Line{Name: "marked", Points: []Point{{0.6, 0.2}, {0.9, 0.4}}, Color: Blue, Mark: Marks()[2], Dashes: []float64{6, 3}},
		Line{Points: []Point{{0.5, 0.5}, {1, 0.5}}, Color: color.Gray{0x90}})
	g := Grid{Title: "grid title", Panels: [][]Panel{{p, p}, {p, p}}, Note: "the note"}
	var buf bytes.Buffer
	if err := g.Write(&buf, "svg", Size{Width: 10, Height: 6}); err != nil {
		t.Fatal(err)
	}
	svg := buf.String()
	for _, want := range []string{">grid title<", ">marked<", ">the note<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if n := strings.Count(svg, ">d<"); n != 1 {
		t.Errorf("legend entry d drawn %d times, want once", n)
	}
}

// TestBars draws a histogram on a log axis and horizontal bars labelled
// by name. A bar of the histogram covers a known share of the plot's
// width, so its colour must fill at least that many pixels; the names
// and the legend entry are in the SVG.
func TestBars(t *testing.T) {
	hist := Panel{Title: "h", X: Axis{Label: "x", Log: true}, Y: Axis{Label: "n"},
		Bars: []Bars{{Name: "bins", Color: Green, Bars: []Bar{{From: 0.1, To: 1, Value: 3}, {From: 1, To: 10, Value: 1}}}}}
	img := small(t, hist)
	// The two bars fill the data area (about 150 × 100 pixels of the
	// 200 × 150) to their heights, 3 and 1 of 3: two thirds of it, more
	// than 5,000 pixels less the legend's.
	if n := count(img, Green); n < 5000 {
		t.Errorf("%d pixels of the bars' colour, want over 5,000", n)
	}
	hosts := Panel{Title: "hosts", X: Axis{Label: "share"},
		Y:    Axis{Label: "host", Ticks: []float64{0, 1}, TickLabels: []string{"a.test", "b.test"}},
		Bars: []Bars{{Horizontal: true, Bars: []Bar{{From: -0.4, To: 0.4, Value: 0.7}, {From: 0.6, To: 1.4, Value: 0.3}}}}}
	var buf bytes.Buffer
	if err := hosts.Write(&buf, "svg", Size{Width: 4, Height: 3}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">a.test<", ">b.test<"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	buf.Reset()
	if err := hist.Write(&buf, "svg", Size{Width: 4, Height: 3}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), ">bins<") {
		t.Error("SVG lacks the legend entry bins")
	}
}

// TestScatter draws marks without a line: the marks' colour covers a
// few mark-sized blobs, far fewer pixels than a line across the panel.
func TestScatter(t *testing.T) {
	p := diagonal()
	p.Lines[0].Scatter = true
	p.Lines[0].Points = []Point{{0.2, 0.2}, {0.5, 0.5}, {0.8, 0.8}}
	img := small(t, p)
	// A mark of radius 3 pt is about 4 pixels across at 50 dpi: three of
	// them and the legend's are under 100 pixels, a line over 150.
	if n := count(img, Red); n == 0 || n > 100 {
		t.Errorf("%d pixels of the marks' colour, want a few marks' worth", n)
	}
}

// TestTicks checks the labelled ticks of axes without Ticks: round values
// at a step of 1, 2 or 5 times a power of ten, five to ten of them, on a
// linear axis; on a log axis the powers of ten, and their multiples by
// 2 and 5 or by every digit where it spans few.
func TestTicks(t *testing.T) {
	tests := []struct {
		name   string
		ticker interface {
			Ticks(lo, hi float64) []plot.Tick
		}
		lo, hi float64
		want   string
	}{
		{"linear 0–37", linearTicks{}, 0, 37, "0 5 10 15 20 25 30 35"},
		{"linear 0–1", linearTicks{}, 0, 1, "0.0 0.2 0.4 0.6 0.8 1.0"},
		{"linear −3–12", linearTicks{}, -3, 12, "-2 0 2 4 6 8 10 12"},
		{"linear 10–119", linearTicks{}, 10, 119, "20 40 60 80 100"},
		{"linear 1,000–9,000", linearTicks{}, 1000, 9000, "1000 2000 3000 4000 5000 6000 7000 8000 9000"},
		{"log 10–10^6", logTicks{}, 1, 6, "10 100 1000 10000 100000 1000000"},
		{"log 0.5–0.9", logTicks{}, math.Log10(0.5), math.Log10(0.9), "0.5 0.6 0.7 0.8 0.9"},
		{"log 10^-8–10^-6", logTicks{}, -8, -6, "1e-08 2e-08 5e-08 1e-07 2e-07 5e-07 1e-06"},
		{"log 0.3–200", logTicks{}, math.Log10(0.3), math.Log10(200), "0.5 1 2 5 10 20 50 100 200"},
		{"log 10^-9–10^-5", logTicks{}, -9, -5, "1e-09 1e-08 1e-07 1e-06 1e-05"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var labels []string
			for _, tick := range tt.ticker.Ticks(tt.lo, tt.hi) {
				if tick.Label != "" {
					labels = append(labels, tick.Label)
				}
			}
			if got := strings.Join(labels, " "); got != tt.want {
				t.Errorf("labels %q, want %q", got, tt.want)
			}
		})
	}
}
