package figure

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
)

// diagonal is a panel of one red line across the unit square.
func diagonal() Panel {
	return Panel{Title: "t", X: Axis{Label: "x", Min: 0, Max: 1}, Y: Axis{Label: "y", Min: 0, Max: 1},
		Lines: []Line{{Name: "d", Points: []Point{{0, 0}, {1, 1}}, Color: Red, Width: 3}}}
}

// TestPanelPNG checks a PNG's size in pixels (inches × DPI) and that the
// line is drawn in its colour.
func TestPanelPNG(t *testing.T) {
	var buf bytes.Buffer
	if err := diagonal().Write(&buf, "png", Size{Width: 4, Height: 3, DPI: 50}); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
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
