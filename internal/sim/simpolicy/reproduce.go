package simpolicy

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// A Claim is one number or statement of a seed paper set against what
// freshcrawl measures, for `freshcrawl reproduce`. It extends policy.Row,
// whose Paper, Computed and Tol carry the numbers. An ordering or a trend
// is a Row with Paper 1 (the paper says it holds), Computed 1 or 0 (it
// holds here or not) and Tol 0, and its texts say what was compared.
type Claim struct {
	policy.Row
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
	c := Claim{Row: policy.Row{Section: section, Quantity: quantity, Paper: 1, Kind: "printed"},
		PaperText: paper, MeasuredText: measured}
	if ok {
		c.Computed = 1
	}
	return c
}

// ReproduceConfig sizes the simulated and computed experiments of
// Reproduce. The zero value is the full run.
type ReproduceConfig struct {
	// Quick runs small versions, for tests and CI: fewer pages and runs,
	// and the rows that need the paper's full size (paper 002's values at
	// 10^6 pages) are left out.
	Quick bool
	// Seed is the first seed; experiments that repeat use Seed, Seed+1, ...
	Seed uint64
	// Parallel is the number of runs at once; zero means GOMAXPROCS.
	Parallel int
}

func (c ReproduceConfig) parallel() int {
	if c.Parallel > 0 {
		return c.Parallel
	}
	return runtime.GOMAXPROCS(0)
}

// Reproduce runs the experiments of the seeds that need the simulator or a
// large computation, and returns their claims in source order:
// dissertation §6.8.3 (Table61Claims), paper 001 §5.3 (VeryStaleClaims),
// paper 002 §5 (Paper002Claims) and paper 004 (Paper004Claims).
func Reproduce(ctx context.Context, c ReproduceConfig) ([]Claim, error) {
	var claims []Claim
	for _, f := range []func(context.Context, ReproduceConfig) ([]Claim, error){Table61Claims, VeryStaleClaims, Paper002Claims, Paper004Claims} {
		cs, err := f(ctx, c)
		if err != nil {
			return nil, err
		}
		claims = append(claims, cs...)
	}
	return claims, nil
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
