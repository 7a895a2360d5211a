// Package reproduce runs the experiments of the papers freshcrawl is built
// on and sets every number or claim they print against what freshcrawl
// measures, for `freshcrawl reproduce`: one file per chapter of the
// dissertation or per paper (ch2*.go, ch5.go, ch6.go, paper001.go,
// paper002.go, paper004*.go), ch. 3's parallel crawls in package ch3,
// the published baselines of issue 19 (Kolobov et al., Azar et al.) in
// package frontier.
// The experiments call the production code (rank, policy, change, sim,
// simweb, cluster) as the crawler does; the virtual
// crawls of ch. 2 and the simulator policies that only the papers use live
// here, so that no production package carries them.
package reproduce

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/freshcrawl/freshcrawl/internal/figure"
	"github.com/freshcrawl/freshcrawl/internal/reproduce/ch3"
	"github.com/freshcrawl/freshcrawl/internal/reproduce/claim"
	"github.com/freshcrawl/freshcrawl/internal/reproduce/frontier"
)

// Units: rates are per second, so a day and its parts are in seconds.
const (
	hour = 3600.0
	day  = 24 * hour
	week = 7 * day
)

// Row, Claim and their verdicts are package claim's, which ch. 3's
// experiments (package ch3) build their claims with too.
type (
	Row   = claim.Row
	Claim = claim.Claim
)

// Verdicts of a Claim.
const (
	Agrees         = claim.Agrees
	DiffersFlagged = claim.DiffersFlagged
	Differs        = claim.Differs
	NotMeasurable  = claim.NotMeasurable
)

// Holds returns an ordering or trend claim (claim.Holds).
func Holds(section, quantity, paper, measured string, ok bool) Claim {
	return claim.Holds(section, quantity, paper, measured, ok)
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
// (dissertation §6.8.3, paper 001 §5.3, paper 002 §5, paper 004), the
// virtual crawls of ch. 2, the parallel ones of ch. 3 (package ch3) and
// the published baselines' rows (package frontier).
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
	// Ch. 3's web is the same size in Quick: its calibration needs it.
	ch3, err := ch3.Claims(c.Seed)
	if err != nil {
		return nil, err
	}
	rep.Claims = append(rep.Claims, ch3...)
	fr, err := frontier.Claims(ctx, c.Seed)
	if err != nil {
		return nil, err
	}
	rep.Claims = append(rep.Claims, fr...)
	slices.SortStableFunc(rep.Claims, func(a, b Claim) int { return cmp.Compare(claim.SourceOf(a.Section), claim.SourceOf(b.Section)) })
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
