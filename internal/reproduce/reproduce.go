// Package reproduce runs the experiments of the papers freshcrawl is built
// on and sets every number or claim they print against what freshcrawl
// measures, for `freshcrawl reproduce`: one file per chapter of the
// dissertation or per paper (ch2*.go, ch5.go, ch6.go, paper001.go,
// paper002.go, paper004*.go). The experiments call the production code
// (rank, policy, change, sim, simweb) as the crawler does; the virtual
// crawls of ch. 2 and the simulator policies that only the papers use live
// here, so that no production package carries them.
package reproduce

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/freshcrawl/freshcrawl/internal/figure"
)

// Units: rates are per second, so a day and its parts are in seconds.
const (
	hour = 3600.0
	day  = 24 * hour
	week = 7 * day
)

// A Row sets one number a paper prints (or that the requirements spec
// derives from a paper's formulas) against the number freshcrawl
// computes.
type Row struct {
	// Section is where the number is printed, e.g. "diss. §5.5.4 Table 5.5".
	Section string
	// Quantity says what the number is, with its unit.
	Quantity string
	// Paper is the printed (or derived) value, Computed ours.
	Paper, Computed float64
	// Tol is how far apart the two may be and still agree: half a unit of
	// the last printed digit for printed values, the spec's rounding for
	// derived ones.
	Tol float64
	// Kind is "printed", "derived" for values the spec computed from the
	// paper's formulas, or "recon" for the spec's reconstruction of an
	// experiment the paper describes without numbers.
	Kind string
	// Flag, when set, says why the paper's number is wrong or rests on an
	// assumption; such a row is reported, not "fixed".
	Flag string
}

// Agrees reports whether the computed value is within Tol of the paper's.
func (r Row) Agrees() bool { return math.Abs(r.Paper-r.Computed) <= r.Tol }

// A Claim is one number or statement of a seed paper set against what
// freshcrawl measures. It extends Row, whose Paper, Computed and Tol carry
// the numbers. An ordering or a trend is a Row with Paper 1 (the paper
// says it holds), Computed 1 or 0 (it holds here or not) and Tol 0, and
// its texts say what was compared.
type Claim struct {
	Row
	// PaperText and MeasuredText, when set, are reported instead of the
	// numbers Paper and Computed.
	PaperText, MeasuredText string
	// Pending, when set, says why the claim cannot be measured yet; the
	// claim then has no measured value and no verdict but "not yet
	// measurable".
	Pending string
}

// Verdicts of a Claim.
const (
	Agrees         = "agrees"
	DiffersFlagged = "differs: paper error flagged"
	Differs        = "differs"
	NotMeasurable  = "not yet measurable"
)

// Verdict says how the measured value compares with the paper's: Agrees
// within Tol; DiffersFlagged when it does not and the claim carries a Flag
// (a known error or an unstated assumption of the source, reported rather
// than reproduced); Differs otherwise; NotMeasurable when Pending.
func (c Claim) Verdict() string {
	switch {
	case c.Pending != "":
		return NotMeasurable
	case c.Agrees():
		return Agrees
	case c.Flag != "":
		return DiffersFlagged
	}
	return Differs
}

// Holds returns an ordering or trend claim: the paper says it holds, ok
// says whether it does here.
func Holds(section, quantity, paper, measured string, ok bool) Claim {
	c := Claim{Row: Row{Section: section, Quantity: quantity, Paper: 1, Kind: "printed"},
		PaperText: paper, MeasuredText: measured}
	if ok {
		c.Computed = 1
	}
	return c
}

// withFlag returns c flagged: the paper's value rests on what the flag
// says, and a disagreement is reported, not reproduced.
func (c Claim) withFlag(flag string) Claim { c.Flag = flag; return c }

// sources are the papers and chapters the claims come from, in report
// order, each by the prefix of its claims' sections.
var sources = []struct{ prefix, name string }{
	{"diss. §2", "dissertation ch. 2 (Cho: crawl ordering)"},
	{"diss. §5", "dissertation ch. 5 (Cho: refresh policies)"},
	{"diss. §6", "dissertation ch. 6 (Cho: change estimation)"},
	{"paper 001", "paper 001 (Ford, Grimes & Tassone: staleness cost)"},
	{"paper 002", "paper 002 (Wolf et al.: optimal crawl frequencies)"},
	{"paper 004", "paper 004 (Cho & Ntoulas: change detection by sampling)"},
}

// sourceOf is the index in sources of a section's paper, or len(sources).
func sourceOf(section string) int {
	for k, s := range sources {
		if strings.HasPrefix(section, s.prefix) {
			return k
		}
	}
	return len(sources)
}

// Source names the paper or chapter the claim comes from, or "other".
func (c Claim) Source() string {
	if k := sourceOf(c.Section); k < len(sources) {
		return sources[k].name
	}
	return "other"
}

// Config sizes the experiments. The zero value is the full run.
type Config struct {
	// Quick runs small versions, for tests and CI: fewer pages and runs,
	// and the rows that need the paper's full size (paper 002's values at
	// 10^6 pages) are left out.
	Quick bool
	// Seed is the first seed; experiments that repeat use Seed, Seed+1, ...
	Seed uint64
	// Parallel is the number of runs at once; zero means GOMAXPROCS.
	Parallel int
	// Figures asks for the figures of ch. 2 too.
	Figures bool
}

func (c Config) parallel() int {
	if c.Parallel > 0 {
		return c.Parallel
	}
	return runtime.GOMAXPROCS(0)
}

// Report is what Run measured.
type Report struct {
	// Claims are every claim, grouped by Source in report order.
	Claims []Claim
	// Figures are the figures redrawn from the measurements, when asked.
	Figures []Figure
}

// Figure is a paper's figure redrawn from freshcrawl's measurements.
type Figure struct {
	// Name is a file name for it, without an extension.
	Name  string
	Panel figure.Panel
}

// Write draws the figure as format "png" or "svg".
func (f Figure) Write(w io.Writer, format string) error {
	return f.Panel.Write(w, format, figure.Size{Width: 7, Height: 5, DPI: 110})
}

// Run runs every experiment: the closed forms of ch. 5 and paper 001
// (AllRows), those that need the simulator or a large computation
// (dissertation §6.8.3, paper 001 §5.3, paper 002 §5, paper 004), and the
// virtual crawls of ch. 2.
func Run(ctx context.Context, c Config) (*Report, error) {
	var rep Report
	for _, r := range AllRows() {
		rep.Claims = append(rep.Claims, Claim{Row: r})
	}
	for _, f := range []func(context.Context, Config) ([]Claim, error){Table61Claims, VeryStaleClaims, Paper002Claims, Paper004Claims} {
		cs, err := f(ctx, c)
		if err != nil {
			return nil, err
		}
		rep.Claims = append(rep.Claims, cs...)
	}
	ch2, figs, err := ch2Claims(c)
	if err != nil {
		return nil, fmt.Errorf("ch. 2: %w", err)
	}
	rep.Claims, rep.Figures = append(rep.Claims, ch2...), figs
	slices.SortStableFunc(rep.Claims, func(a, b Claim) int { return cmp.Compare(sourceOf(a.Section), sourceOf(b.Section)) })
	return &rep, nil
}

// AllRows is every closed-form row: dissertation ch. 5's and paper 001's.
func AllRows() []Row {
	var rows []Row
	for _, f := range []func() []Row{OrderRows, GammaRows, TwoElementRows, Example54Rows, Example55Rows, CurveRows, Table57Rows, Paper001Rows} {
		rows = append(rows, f()...)
	}
	return rows
}

// runAll runs the jobs, at most par at once, and returns the first error.
func runAll(ctx context.Context, par int, jobs []func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	next := make(chan func(context.Context) error)
	for range min(par, len(jobs)) {
		wg.Go(func() {
			for j := range next {
				if err := j(ctx); err != nil {
					mu.Lock()
					if first == nil {
						first = err
						cancel()
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	if first != nil {
		return fmt.Errorf("reproduce: %w", first)
	}
	return nil
}
