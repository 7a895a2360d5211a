package report

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"image"
	"image/png"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/datadir"
	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/figure"
	"github.com/freshcrawl/freshcrawl/internal/memnet"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

// webSpeed is the pace of the crawled simweb: an hour a second, so that
// pages change while they are revisited.
const webSpeed = 3600

// crawlData crawls a simweb of 4 hosts × 30 pages for 40 s with revisits
// every 2 s and returns the data directory. The crawl runs in a synctest
// bubble over memnet, so its 40 s are virtual and its outcome does not
// depend on the machine's speed. Pebble pools channels of the bubble's
// (see the crawler's tests, bubble), so two collections empty the pools
// before the directory is read outside.
func crawlData(t *testing.T) string {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		sc := simweb.DefaultConfig()
		sc.Hosts, sc.PagesPerHost, sc.Robots = 4, 30, simweb.RobotsMix{}
		web, err := simweb.New(sc, simweb.NewWallClock(webSpeed))
		if err != nil {
			t.Fatal(err)
		}
		l, stop, err := memnet.Serve("127.0.0.1:80", web)
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		rule, err := fetch.ParseResolve("*." + simweb.Zone + "=" + l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		cfg := crawler.Config{DataDir: dir, Scope: crawler.ScopeAny, Delay: 5 * time.Millisecond,
			Revisit: 2 * time.Second, TimeScale: webSpeed, NoSync: true,
			Fetch:  fetch.Config{AllowPrivate: true, Resolve: []fetch.ResolveRule{rule}, Dial: l.Dial},
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
		for _, h := range web.Hosts() {
			cfg.Seeds = append(cfg.Seeds, "http://"+h.Name+"/")
		}
		c, err := crawler.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
		defer cancel()
		if err := c.Run(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	})
	runtime.GC()
	runtime.GC()
	return dir
}

// TestReport reports on a real crawl. Each plot's data is checked against
// the crawl's status, read apart (datadir.ReadStatus), so that a plot
// that came out empty or lost visits fails; then the files: every PNG
// decodes and is mostly drawn, every SVG is XML, index.html shows and
// links every plot, and a file already in -out is overwritten.
func TestReport(t *testing.T) {
	dir := crawlData(t)
	st, err := datadir.ReadStatus(dir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("status: %d held, %d rows, %d fetches, %d changes, %d URLs seen", st.Held, st.Rows, st.Fetches, st.Changes, st.Seen)
	a, err := datadir.ReadActivity(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := New(a)
	plots := map[string]Plot{}
	for _, p := range r.Plots {
		plots[p.Name] = p
		t.Logf("%s: %d values; %s", p.Name, p.Data, p.Caption)
	}
	checkSummary(t, r.Summary, st)
	checkPlots(t, plots, st)

	out := filepath.Join(t.TempDir(), "report")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "rates.png"), []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := r.WriteDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2*len(r.Plots) + 1; len(files) != want {
		t.Errorf("%d files written, want %d: %q", len(files), want, files)
	}
	checkFiles(t, out, files)
}

func checkSummary(t *testing.T, s Summary, st datadir.Status) {
	t.Helper()
	if int64(s.Held) != st.Held || s.Seen != st.Seen || uint64(s.Fetches) != st.Fetches || uint64(s.Changes) != st.Changes ||
		s.Hosts != 4 || !s.Last.Equal(st.LastFetch) || s.Span() < 30*time.Second {
		t.Errorf("summary %+v (span %v), status %+v", s, s.Span(), st)
	}
}

// checkPlots checks each plot's numbers against the status: they are
// counted from the same rows and visits by other code.
func checkPlots(t *testing.T, plots map[string]Plot, st datadir.Status) {
	t.Helper()
	rated := st.Rates.ByClass.Hourly + st.Rates.ByClass.Daily + st.Rates.ByClass.Weekly + st.Rates.ByClass.Monthly + st.Rates.ByClass.Rarer
	if got := barSum(plots["rates"].Panel); rated == 0 || got != float64(rated) {
		t.Errorf("rates: %g pages in the bins, status counts %d with a rate", got, rated)
	}
	iv := plots["intervals"].Panel
	if n := len(iv.Lines[0].Points); n < int(st.Held)/2 || len(iv.Lines[1].Points) < 2 {
		t.Errorf("intervals: %d pages drawn of %d held, %d bin medians", n, st.Held, len(iv.Lines[1].Points))
	}
	rv := plots["revisits"].Panel
	fetches, changes := lineSum(rv.Lines[0]), lineSum(rv.Lines[1])
	if fetches != float64(st.Fetches) || changes != float64(st.Changes) || changes == 0 || len(rv.Lines[0].Points) < 10 {
		t.Errorf("revisits: %g fetches, %g changes in %d buckets; status %d, %d", fetches, changes, len(rv.Lines[0].Points), st.Fetches, st.Changes)
	}
	// 4 hosts, all shown: their shares add up to all the fetches.
	if got := barSum(plots["hosts"].Panel); len(plots["hosts"].Panel.Bars[0].Bars) != 4 || math.Abs(got-100) > 1e-9 {
		t.Errorf("hosts: %d bars adding up to %g%%, want 4 adding up to 100%%", len(plots["hosts"].Panel.Bars[0].Bars), got)
	}
	d := plots["discovery"].Panel
	fetched, held := last(d.Lines[0]), last(d.Lines[1])
	if fetched != float64(st.Rows) || held < float64(st.Held) || held > fetched {
		t.Errorf("discovery: %g URLs first fetched, %g first held; status %d page rows, %d held", fetched, held, st.Rows, st.Held)
	}
	for name, p := range plots {
		if p.Data == 0 || strings.Contains(p.Panel.Title, "no data") {
			t.Errorf("%s: empty", name)
		}
	}
}

func barSum(p figure.Panel) float64 {
	s := 0.0
	for _, b := range p.Bars[0].Bars {
		s += b.Value
	}
	return s
}

func lineSum(l figure.Line) float64 {
	s := 0.0
	for _, pt := range l.Points {
		s += pt.Y
	}
	return s
}

func last(l figure.Line) float64 {
	if len(l.Points) == 0 {
		return 0
	}
	return l.Points[len(l.Points)-1].Y
}

// checkFiles checks the files a report wrote into out.
func checkFiles(t *testing.T, out string, files []string) {
	t.Helper()
	index, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		switch filepath.Ext(name) {
		case ".png":
			checkPNG(t, name, b)
		case ".svg":
			checkSVG(t, name, b)
		case ".html":
			continue
		}
		if !bytes.Contains(index, []byte(`href="`+name+`"`)) {
			t.Errorf("index.html does not link %s", name)
		}
		if strings.HasSuffix(name, ".png") && !bytes.Contains(index, []byte(`<img src="`+name+`"`)) {
			t.Errorf("index.html does not show %s", name)
		}
	}
}

// checkPNG decodes a plot and counts its pixels in colour: the frame,
// grid and text are black, white and grey, and every plot draws its data
// in colour, so an empty plot has none.
func checkPNG(t *testing.T, name string, b []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	bounds := img.Bounds()
	if bounds.Dx() != 800 || bounds.Dy() != 450 {
		t.Errorf("%s: %v pixels, want 800 × 450", name, bounds)
	}
	if n := coloured(img); n < minColoured {
		t.Errorf("%s: %d pixels in colour (%d bytes), want a plot's data", name, n, len(b))
	}
}

// minColoured is the least number of pixels in colour of a plot with
// data: a line 1.5 points wide across the plot is about 1,000.
const minColoured = 500

// coloured counts the pixels of img that are not grey.
func coloured(img image.Image) int {
	n := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			if r, g, b, _ := img.At(x, y).RGBA(); r != g || g != b {
				n++
			}
		}
	}
	return n
}

// checkSVG parses a plot as XML.
func checkSVG(t *testing.T, name string, b []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	elements := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		if _, ok := tok.(xml.StartElement); ok {
			elements++
		}
	}
	if elements < 20 {
		t.Errorf("%s: %d elements, want a drawn plot's", name, elements)
	}
}

// TestEmptyCrawl reports on an activity with nothing in it: every plot
// is drawn, empty and saying so, rather than failing on a log axis
// without data; and none has the pixels in colour that checkPNG looks
// for in a plot with data.
func TestEmptyCrawl(t *testing.T) {
	r := New(&datadir.Activity{HostFetches: map[string]int64{}})
	for _, p := range r.Plots {
		if p.Data != 0 || !strings.HasSuffix(p.Panel.Title, "(no data)") {
			t.Errorf("%s: %d values, title %q", p.Name, p.Data, p.Panel.Title)
		}
		var buf bytes.Buffer
		if err := p.Panel.Write(&buf, "png", Size); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if n := coloured(img); n >= minColoured {
			t.Errorf("%s: %d pixels in colour without data", p.Name, n)
		}
	}
	if _, err := r.WriteDir(t.TempDir()); err != nil {
		t.Fatal(err)
	}
}
