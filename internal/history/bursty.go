package history

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// BurstyConfig describes a synthetic history whose pages change as real
// sites' do: in sweeps that touch a share of a site at once, at rates that
// drift over months, with new pages born in batches. The defaults
// (DefaultBursty) are set from the two real histories in the repository's
// data directory (its README's summary tables: peps.tsv, 26 years of the
// Python PEPs, and golang-website.tsv, 5.5 years of go.dev).
type BurstyConfig struct {
	Seed  uint64    // the same seed gives the same history, event for event
	Sites int       // sites; each site's keys are /sNN/pNNNNN.html
	Pages int       // pages per site at Start
	Start time.Time // the initial pages are created at Start
	Years float64   // length of the history; End = Start + Years

	// Rate is the median of the pages' own modification rates, per year,
	// outside sweeps, and Spread the standard deviation of their logarithm.
	Rate, Spread float64
	// Drift is the standard deviation of a log-rate's excursion from its
	// median (per page and per site alike), and Memory the time constant,
	// in months, over which an excursion fades: an Ornstein–Uhlenbeck walk
	// in monthly steps.
	Drift, Memory float64
	// Sweeps is the mass edits per site per year; each modifies every page
	// of the site live then with a probability drawn uniformly from
	// [SweepMin, SweepMax], all in the same second (one commit).
	Sweeps, SweepMin, SweepMax float64
	// Batches is the birth batches per site per year, and Growth the new
	// pages per year as a share of Pages; a batch's pages are created
	// within a day of each other.
	Batches, Growth float64
	// Deaths is the deletions per page-year; a deleted page does not return.
	Deaths float64
}

// DefaultBursty returns the default bursty world, each number justified by
// the real histories' summaries.
func DefaultBursty() BurstyConfig {
	return BurstyConfig{
		Seed: 1, Sites: 4, Pages: 200,
		Start: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), Years: 3,
		// PEPs: 1.5 modifications per page-year pooled, 29 % of them in
		// commits touching ≥ 10 pages, so about 1.07 outside sweeps. go.dev:
		// 0.84 pooled, 52 % in sweeps. A median of 0.6 becomes a mean of
		// 0.6·e^{(Spread²+2·Drift²)/2} ≈ 1.15 with the spread and drift
		// below; with the sweeps' 0.65, about 1.8 pooled.
		Rate: 0.6,
		// PEPs' per-page rates: p90 / median = 4.42 / 1.39 = 3.2; for a
		// log-normal that is σ = ln 3.2 / 1.28 ≈ 0.9.
		Spread: 0.9,
		// The pooled rate per calendar year moves several-fold from one year
		// to the next (PEPs 2017: 2.18, 2018: 0.67; go.dev 2021: 3.26, 2022:
		// 0.70): the logarithm of the yearly rates has a spread of about
		// 0.4 to 0.6 around its trend, with little memory beyond a year.
		Drift: 0.5, Memory: 6,
		// 29–52 % of modifications come in sweeps; with shares uniform in
		// 5–60 % (mean 0.325), two sweeps a year add 0.65 modifications per
		// page-year, 40 % of the total.
		Sweeps: 2, SweepMin: 0.05, SweepMax: 0.6,
		// go.dev took 300 pages in two batches and grew 277 → 540 live
		// pages in 2021–22; the PEPs grow 4–5 % a year, a few at a time.
		// 20 % a year in 4 batches puts new pages into any run.
		Batches: 4, Growth: 0.2,
		// go.dev: 176 deletions in 2,559 page-years (0.07); PEPs: 9 in
		// 9,359 (0.001).
		Deaths: 0.02,
	}
}

const (
	year  = 365.25 * 86400 // seconds
	month = year / 12
)

// check reports the first field out of range.
func (c *BurstyConfig) check() error {
	switch {
	case c.Sites < 1 || c.Pages < 1 || c.Sites*c.Pages > 1e6:
		return fmt.Errorf("bursty: sites and pages must be at least 1, with at most a million pages")
	case !(c.Years > 0 && c.Years <= 100):
		return fmt.Errorf("bursty: years %g must be in (0, 100]", c.Years)
	case c.Rate < 0 || c.Spread < 0 || c.Drift < 0 || c.Memory <= 0:
		return fmt.Errorf("bursty: rate, spread and drift must not be negative, memory must be positive")
	case c.Sweeps < 0 || c.SweepMin < 0 || c.SweepMax > 1 || c.SweepMin > c.SweepMax:
		return fmt.Errorf("bursty: sweeps must not be negative, with 0 ≤ sweep-min ≤ sweep-max ≤ 1")
	case c.Batches < 0 || c.Growth < 0 || c.Deaths < 0:
		return fmt.Errorf("bursty: batches, growth and deaths must not be negative")
	}
	return nil
}

// Bursty generates the history cfg describes.
func Bursty(cfg BurstyConfig) (*History, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	start := cfg.Start.Unix()
	end := start + int64(cfg.Years*year)
	var pages []Page
	for s := 0; s < cfg.Sites; s++ {
		pages = append(pages, cfg.site(s, start, end)...)
	}
	headers := []Header{
		{"source", "freshcrawl history.Bursty, seed " + strconv.FormatUint(cfg.Seed, 10)},
		{"site", fmt.Sprintf("%d synthetic sites of %d pages at the start", cfg.Sites, cfg.Pages)},
		{"end", strconv.FormatInt(end, 10)},
	}
	return New(headers, end, pages)
}

// walk is an Ornstein–Uhlenbeck log-rate excursion in monthly steps,
// started in its stationary law.
func (c *BurstyConfig) walk(r *splitmix.Stream, months int) []float64 {
	keep := math.Exp(-1 / c.Memory)
	step := c.Drift * math.Sqrt(1-keep*keep)
	x := make([]float64, months)
	v := c.Drift * gauss(r)
	for m := range x {
		x[m] = v
		v = v*keep + step*gauss(r)
	}
	return x
}

// site generates the pages of site s, sorted by key.
func (c *BurstyConfig) site(s int, start, end int64) []Page {
	r := splitmix.NewStream(splitmix.Hash2(c.Seed, uint64(s)))
	months := int(float64(end-start)/month) + 1
	siteDrift := c.walk(&r, months)
	type sweep struct {
		t     int64
		share float64
	}
	var sweeps []sweep
	for t := start + expDraw(&r, c.Sweeps/year); t < end; t += expDraw(&r, c.Sweeps/year) {
		sweeps = append(sweeps, sweep{t, c.SweepMin + (c.SweepMax-c.SweepMin)*r.Float64()})
	}
	births := make([]int64, c.Pages)
	for i := range births {
		births[i] = start
	}
	batch := c.Growth * float64(c.Pages) / max(c.Batches, 1e-9)
	for t := start + expDraw(&r, c.Batches/year); t < end && batch > 0; t += expDraw(&r, c.Batches/year) {
		for k := max(1, poisson(&r, batch)); k > 0; k-- {
			births = append(births, min(end-1, t+int64(r.Float64()*86400)))
		}
	}
	pages := make([]Page, len(births))
	for i, born := range births {
		pr := splitmix.NewStream(splitmix.Hash3(c.Seed, uint64(s), uint64(i)+1))
		times := c.pageChanges(&pr, born, start, end, siteDrift)
		died := born + expDraw(&pr, c.Deaths/year)
		for _, sw := range sweeps {
			if sw.t > born && sw.t < died && pr.Float64() < sw.share {
				times = append(times, sw.t)
			}
		}
		slices.Sort(times)
		times = slices.Compact(times)
		ev := []Event{{Time: born}}
		for _, t := range times {
			if t > born && t < died && t < end {
				ev = append(ev, Event{Time: t})
			}
		}
		if died < end {
			ev = append(ev, Event{Time: died, Deleted: true})
		}
		pages[i] = Page{Key: fmt.Sprintf("/s%02d/p%05d.html", s, i), Events: ev}
	}
	return pages
}

// pageChanges draws a page's own modification times in (born, end): a
// Poisson process whose rate is constant within a month, the page's median
// times its and its site's drift. Memorylessness makes restarting the draw
// at each month's boundary exact.
func (c *BurstyConfig) pageChanges(r *splitmix.Stream, born, start, end int64, siteDrift []float64) []int64 {
	median := math.Log(c.Rate/year) + c.Spread*gauss(r)
	drift := c.walk(r, len(siteDrift))
	var out []int64
	t := float64(born)
	for t < float64(end) {
		m := min(len(drift)-1, max(0, int((t-float64(start))/month)))
		rate := math.Exp(median + drift[m] + siteDrift[m])
		boundary := float64(start) + float64(m+1)*month
		next := t + -math.Log(splitmix.Open(r.Uint64()))/rate
		if next >= boundary && m < len(drift)-1 {
			t = boundary
			continue
		}
		t = next
		if t < float64(end) {
			out = append(out, int64(t))
		}
	}
	return out
}

// expDraw draws an exponential gap, in whole seconds, of a process of rate
// per second (math.MaxInt64/2 if the rate is 0).
func expDraw(r *splitmix.Stream, rate float64) int64 {
	if rate <= 0 {
		return math.MaxInt64 / 2
	}
	return 1 + int64(min(-math.Log(splitmix.Open(r.Uint64()))/rate, math.MaxInt64/4))
}

// poisson draws a Poisson variate of mean mu (Knuth's method; the means
// here are small).
func poisson(r *splitmix.Stream, mu float64) int {
	if mu > 500 {
		return int(math.Round(mu + math.Sqrt(mu)*gauss(r)))
	}
	l, k, p := math.Exp(-mu), 0, 1.0
	for {
		p *= r.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// gauss draws a standard normal variate (Box–Muller).
func gauss(r *splitmix.Stream) float64 {
	u1, u2 := splitmix.Open(r.Uint64()), r.Float64()
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// burstyKeys name the fields of a BurstyConfig that ParseBursty sets.
var burstyKeys = map[string]func(*BurstyConfig) *float64{
	"years": func(c *BurstyConfig) *float64 { return &c.Years }, "rate": func(c *BurstyConfig) *float64 { return &c.Rate },
	"spread": func(c *BurstyConfig) *float64 { return &c.Spread }, "drift": func(c *BurstyConfig) *float64 { return &c.Drift },
	"memory": func(c *BurstyConfig) *float64 { return &c.Memory }, "sweeps": func(c *BurstyConfig) *float64 { return &c.Sweeps },
	"sweep-min": func(c *BurstyConfig) *float64 { return &c.SweepMin }, "sweep-max": func(c *BurstyConfig) *float64 { return &c.SweepMax },
	"batches": func(c *BurstyConfig) *float64 { return &c.Batches }, "growth": func(c *BurstyConfig) *float64 { return &c.Growth },
	"deaths": func(c *BurstyConfig) *float64 { return &c.Deaths },
}

// ParseBursty sets the fields of base that spec names, as comma-separated
// name=value items (sites, pages, and the lower-case field names, with
// sweep-min and sweep-max), and checks the result.
func ParseBursty(spec string, base BurstyConfig) (BurstyConfig, error) {
	c := base
	for _, item := range strings.Split(spec, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		k, v, _ := strings.Cut(item, "=")
		x, err := strconv.ParseFloat(v, 64)
		switch field, ok := burstyKeys[k]; {
		case err != nil:
			return base, fmt.Errorf("bursty %q: want name=number", item)
		case k == "sites" || k == "pages":
			n := int(x)
			if float64(n) != x {
				return base, fmt.Errorf("bursty %q: want a whole number", item)
			}
			if k == "sites" {
				c.Sites = n
			} else {
				c.Pages = n
			}
		case !ok:
			return base, fmt.Errorf("bursty %q: unknown name (known: sites, pages, years, rate, spread, drift, memory, sweeps, sweep-min, sweep-max, batches, growth, deaths)", item)
		default:
			*field(&c) = x
		}
	}
	return c, c.check()
}
