package reproduce

// Paper 001 (Ford, Grimes & Tassone): the optimal refresh ratio in closed
// form, and the very-stale share with an estimated change period, simulated.

import (
	"context"
	"fmt"
	"math"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/sim"
)

// EstimatedDelta is paper 001's policy with an unknown change period Δ
// (§5, spec §A.9): after every fetch the page's rate is re-estimated by the
// prior-seeded MLE (paper 001's pseudo-data, 1 h changed and 57 h
// unchanged, plus the eq. 2 MLE of the page's own intervals) and the next
// fetch is r·Δ̂ later, Δ̂ = 1/λ̂. The first fetch is r times the prior's
// Δ̂ of 57.5 h after the fresh copy of time 0.
type EstimatedDelta struct {
	// R is the fraction r of Δ̂ between fetches.
	R     float64
	est   change.PriorMLE
	stats []change.Stats
}

// NewEstimatedDelta returns the policy for fraction r.
func NewEstimatedDelta(r float64) *EstimatedDelta {
	return &EstimatedDelta{R: r, est: change.PriorMLE{Prior: change.Paper001Prior()}}
}

// Init schedules every page's first fetch from the prior alone.
func (p *EstimatedDelta) Init(s *sim.Schedule) {
	p.stats = make([]change.Stats, s.Len())
	first := p.R / p.est.Prior.Rate()
	for i := range p.stats {
		s.SetDue(i, first)
	}
}

// Fetched re-estimates the page's rate and returns t + r/λ̂.
func (p *EstimatedDelta) Fetched(f *sim.Fetch) float64 {
	st := &p.stats[f.Page]
	st.Add(f.Obs, f.Time)
	return f.Time + p.R/p.est.Estimate(st).Rate
}

// VeryStaleResult is what paper 001's §5.3 experiment measures, pooled
// over all runs' crawl intervals.
type VeryStaleResult struct {
	// VeryStale is the share of crawl intervals whose staleness reached
	// C = r·Δ (8 h at Δ = 24 h, r = 1/3); Changed the share that saw a
	// change.
	VeryStale, Changed float64
	// CostPerHour is C_s·P(stale) + C_c·(crawls per hour) at C_s = C_c = 1.
	CostPerHour float64
}

// VeryStale runs paper 001's §5.3 setup: runs independent pages (one page
// a run) changing as Poisson processes of period delta seconds, each
// fetched by EstimatedDelta at fraction r for the given seconds, and pools
// their crawl intervals.
func VeryStale(ctx context.Context, runs int, seconds, delta, r float64, seed uint64) (VeryStaleResult, error) {
	pages := make([]sim.Page, runs)
	for i := range pages {
		pages[i] = sim.Page{Process: sim.PoissonProcess(1 / delta), Weight: 1, Host: int32(i)}
	}
	cfg := sim.Config{Pages: pages, Seed: seed, Duration: seconds, VeryStale: r, StaleCost: 1, CrawlCost: 1}
	res, err := sim.Run(ctx, cfg, NewEstimatedDelta(r))
	if err != nil {
		return VeryStaleResult{}, err
	}
	return VeryStaleResult{VeryStale: res.VeryStaleShare, Changed: res.ChangeRatio, CostPerHour: res.CostPerPageHour}, nil
}

// VeryStaleClaims reproduces paper 001 §5.3's "very stale" share with an
// estimated Δ (Δ = 24 h, r = 1/3, C = 8 h), over 1,000 runs of 1,000 h and
// 200 runs of 12,000 h as in the paper (a fifth of each with Quick). The
// printed 9.1 % and 3.8 % rest on Grimes & Ford's estimator, whose details
// the paper does not give: they are flagged, and the spec's
// reconstruction of the same setup (5.7 %, 1.5 %) is the number checked,
// together with the printed trend.
func VeryStaleClaims(ctx context.Context, rc Config) ([]Claim, error) {
	const delta, r = 24 * hour, 1.0 / 3
	horizons := []struct {
		hours, runs        float64
		printed, recon     float64 // very stale, %
		changedP, changedR float64 // intervals with a change, %
		costR              float64
	}{
		{1000, 1000, 9.1, 5.7, 27.1, 31.1, 0.293},
		{12000, 200, 3.8, 1.5, 28.2, 28.65, 0.2765},
	}
	res := make([]VeryStaleResult, len(horizons))
	var jobs []func(context.Context) error
	for k, h := range horizons {
		runs := int(h.runs) // the paper's sizes take a fraction of a second
		jobs = append(jobs, func(ctx context.Context) error {
			v, err := VeryStale(ctx, runs, h.hours*hour, delta, r, rc.Seed+uint64(k))
			if err != nil {
				return fmt.Errorf("paper 001 very stale, %g h: %w", h.hours, err)
			}
			res[k] = v
			return nil
		})
	}
	if err := runAll(ctx, rc.parallel(), jobs); err != nil {
		return nil, err
	}
	const s = "paper 001 §5.3 Fig. 8"
	const unknown = "Grimes & Ford's estimator details (pseudo-point weights, when to re-estimate) are not given; " +
		"the spec's reconstruction with prior-seeded MLE re-solved after each fetch gives 5.7% / 1.5%; \"same order, same trend\""
	var claims []Claim
	for k, h := range horizons {
		v := res[k]
		q := fmt.Sprintf("very stale (≥ 8 h) crawl intervals, unknown Δ, %g h runs (%%)", h.hours)
		claims = append(claims,
			Claim{Row: Row{Section: s, Quantity: q, Paper: h.printed, Computed: 100 * v.VeryStale, Tol: 0.05,
				Kind: "printed", Flag: unknown}},
			// The tolerance covers the Monte-Carlo spread of a fifth of the
			// runs (quick) and the reconstruction's own rounding.
			Claim{Row: Row{Section: "paper 001 §5.3 (spec A.9)", Quantity: q, Paper: h.recon, Computed: 100 * v.VeryStale,
				Tol: 0.6, Kind: "recon"}},
		)
		q = fmt.Sprintf("crawl intervals with a change, unknown Δ, %g h runs (%%)", h.hours)
		claims = append(claims,
			Claim{Row: Row{Section: s, Quantity: q, Paper: h.changedP, Computed: 100 * v.Changed, Tol: 0.05, Kind: "printed",
				Flag: "printed as the share \"with no change\" (it is the share with one; spec A.8); " + unknown}},
			Claim{Row: Row{Section: "paper 001 §5.3 (spec A.9)", Quantity: q, Paper: h.changedR, Computed: 100 * v.Changed,
				Tol: 0.6, Kind: "recon"}},
			Claim{Row: Row{Section: "paper 001 §5.1 (spec A.9)", Kind: "recon",
				Quantity: fmt.Sprintf("cost per hour, C_s = C_c = 1, unknown Δ, %g h runs", h.hours),
				Paper:    h.costR, Computed: v.CostPerHour, Tol: 0.005}},
		)
	}
	claims = append(claims, Holds(s, "very stale share falls with the horizon, unknown Δ", "9.1% → 3.8%",
		fmt.Sprintf("%.1f%% → %.1f%%", 100*res[0].VeryStale, 100*res[1].VeryStale), res[1].VeryStale < res[0].VeryStale))
	return claims, nil
}

// Paper001Rows reproduce paper 001's optimal refresh ratio (Figs. 1–3,
// §3.4) and its share of crawl intervals with a change (§5.3), whose label
// is flagged.
func Paper001Rows() []Row {
	const h = 3600.0
	ratio := func(cc, cs, delta float64) float64 {
		r, _ := policy.StalenessCost{Crawl: cc, Stale: cs / h}.OptimalRatio(delta * h)
		return r
	}
	eq := policy.StalenessCost{Crawl: 1, Stale: 1 / h}
	r := ratio(1, 1, 24)
	rows := []Row{
		printed("paper 001 Fig. 1", "optimal r, C_c = C_s = 1, Δ = 24 h", 0.3, r, 0.05),
		derived("paper 001 §3 (spec A.3)", "optimal r, C_c = C_s = 1, Δ = 24 h", 0.3208, r, 5e-5),
		derived("paper 001 §3 (spec A.3)", "cost per hour at optimal r, C_c = C_s = 1, Δ = 24 h", 0.2744, eq.Rate(24*h, r)*h, 5e-5),
		printed("paper 001 Fig. 2", "optimal r, C_s = 4·C_c, Δ = 24 h", 0.15, ratio(1, 4, 24), 0.005),
		flagged(printed("paper 001 Fig. 2", "optimal r, C_c = 4·C_s, Δ = 24 h", 0.8, ratio(4, 1, 24), 0.05),
			"printed r ≈ 0.8 at C_c ≈ 4·C_s; at exactly 4 it is 0.731, and 0.8 needs C_c/C_s = 4.59"),
	}
	for _, d := range []float64{200, 1000} {
		t, _ := eq.Interval(d * h)
		rows = append(rows, printed("paper 001 §3.4", fmt.Sprintf("optimal interval / √(2ΔC_c/C_s) at Δ = %g h (asymptote 1)", d),
			1, t/h/math.Sqrt(2*d), 0.05))
	}
	rows = append(rows,
		flagged(printed("paper 001 §5.3", "crawl intervals with no change at r = 1/3, known Δ (%)", 28.3, 100*(1-policy.ChangedShare(1.0/3)), 0.05),
			"printed 28.3% \"with no change\"; that is 1 − e^{−1/3}, the share with a change; with no change it is 71.7%"),
		printed("paper 001 §5.3", "crawl intervals with a change at r = 1/3, known Δ (%)", 28.3, 100*policy.ChangedShare(1.0/3), 0.05))
	return rows
}
