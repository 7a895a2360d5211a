package simweb

import (
	"math/bits"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// TestSitemapFormatDefault checks that with a third of the sitemaps text
// files, a site's format is the one the draw of one of three formats gave
// before the share could be set (splitmix's IntN(3) on the same output),
// so that the default web is the one every earlier figure was measured on.
func TestSitemapFormatDefault(t *testing.T) {
	r := splitmix.NewStream(7)
	for range 100000 {
		x := r.Uint64()
		if got, want := sitemapFormatOf(splitmix.Unit(x), 1.0/3), intN3(x); got != want {
			t.Fatalf("draw %#x: format %d, want %d", x, got, want)
		}
	}
	for _, c := range []struct {
		u, text float64
		want    int
	}{{0.99, 0, sitemapIndex}, {0.2, 0, sitemapXML}, {0.6, 0, sitemapIndex}, {0, 1, sitemapText}, {0.5, 0.5, sitemapText}} {
		if got := sitemapFormatOf(c.u, c.text); got != c.want {
			t.Errorf("sitemapFormatOf(%v, %v) = %d, want %d", c.u, c.text, got, c.want)
		}
	}
}

// intN3 is splitmix's IntN(3) of output x.
func intN3(x uint64) int {
	hi, _ := bits.Mul64(x, 3)
	return int(hi)
}
