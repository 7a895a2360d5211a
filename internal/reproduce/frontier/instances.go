package frontier

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/reproduce/claim"
	"github.com/freshcrawl/freshcrawl/internal/sim/simpolicy"
)

// instancePages is the size of issue 19's instances.
const instancePages = 10000

// instance is one of issue 19's instances: 10^4 pages, ch. 4's rates or
// log-uniform ones over the same span (30 minutes to 3 years), unit or
// Pareto importance, a budget of 0.2 or 1.0 fetches a page a day.
type instance struct {
	name   string
	pages  []policy.Page
	budget float64 // fetches per second
}

func instances(seed uint64) []instance {
	rng := rand.New(rand.NewPCG(seed, 2019))
	ch4 := simpolicy.Ch4Pages(instancePages, simpolicy.Poisson, 0, seed)
	var out []instance
	for _, rates := range []string{"ch. 4 rates", "log-uniform rates"} {
		for _, weights := range []string{"unit", "Pareto"} {
			pages := make([]policy.Page, instancePages)
			for i := range pages {
				pages[i] = policy.Page{Rate: ch4[i].Process.Rate, Weight: 1}
				if rates != "ch. 4 rates" {
					lo, hi := math.Log(1/(3*365*day)), math.Log(1/(1800.0))
					pages[i].Rate = math.Exp(lo + (hi-lo)*rng.Float64())
				}
				if weights == "Pareto" {
					pages[i].Weight = math.Pow(1-rng.Float64(), -1/1.5) // Pareto, shape 1.5, from 1
				}
			}
			for _, perDay := range []float64{0.2, 1} {
				out = append(out, instance{name: fmt.Sprintf("%s, %s importance, %g/page/day", rates, weights, perDay),
					pages: pages, budget: perDay * instancePages / day})
			}
		}
	}
	return out
}

// scored is one allocation of an instance, evaluated for evenly spaced
// visits: weighted freshness and harmonic staleness, and the share of
// pages given no visit.
type scored struct{ freshness, harmonic, givenUp float64 }

func score(pages []policy.Page, f []float64) scored {
	var s scored
	var sw float64
	for i, p := range pages {
		s.harmonic += p.Weight * policy.HarmonicStaleness(p.Rate, f[i])
		sw += p.Weight
		if f[i] == 0 && p.Rate > 0 {
			s.givenUp++
		}
	}
	s.freshness, _ = policy.Collection(pages, f)
	s.harmonic /= sw
	s.givenUp /= float64(len(pages))
	return s
}

// instanceClaims runs every allocator on every instance and checks the
// orderings issue 19 found against the authors' code.
func instanceClaims(seed uint64) []claim.Claim {
	names := []string{"freshness", "binary-poisson", "lambdacrawl", "harmonic", "age", "uniform"}
	allocs := []policy.Allocator{policy.OptimalFreshness{}, policy.BinaryPoisson{}, policy.LambdaCrawl{},
		policy.OptimalHarmonic{}, policy.OptimalAge{}, policy.Uniform{}}
	best, harmBest := true, true
	margin, harmMargin := math.Inf(1), math.Inf(1)
	upLo, upHi := math.Inf(1), 0.0
	ageLo, ageHi := math.Inf(1), math.Inf(-1)
	var failed []string
	for _, in := range instances(seed) {
		res := make([]scored, len(allocs))
		for k, a := range allocs {
			f := make([]float64, len(in.pages))
			if err := a.Allocate(in.pages, in.budget, f); err != nil {
				failed = append(failed, names[k]+" on "+in.name)
				continue
			}
			res[k] = score(in.pages, f)
		}
		for k := 1; k < len(res); k++ {
			margin = min(margin, res[0].freshness/res[k].freshness-1)
			best = best && res[0].freshness >= res[k].freshness
			if k != 3 {
				harmMargin = min(harmMargin, res[k].harmonic/res[3].harmonic-1)
				harmBest = harmBest && res[3].harmonic <= res[k].harmonic
			}
		}
		upLo, upHi = min(upLo, res[0].givenUp), max(upHi, res[0].givenUp)
		d := res[4].harmonic/res[2].harmonic - 1
		ageLo, ageHi = min(ageLo, d), max(ageHi, d)
	}
	setup := fmt.Sprintf("8 instances of %d pages (ch. 4 or log-uniform rates, unit or Pareto importance, 0.2 or 1.0 fetches/page/day), visits evenly spaced", instancePages)
	if len(failed) > 0 {
		return []claim.Claim{claim.Holds(secSIGIR, "every allocator solves issue 19's instances", "all solve", "failed: "+strings.Join(failed, "; "), false)}
	}
	out := []claim.Claim{
		claim.Holds(secAzar, "for binary freshness, the freshness optimum beats binary-Poisson, LambdaCrawl, the harmonic and age optima and uniform on every instance ("+setup+")",
			"best on every instance (issue 19, against the authors' code)", fmt.Sprintf("best on every one; closest rival %.2f %% below", 100*margin), best),
		claim.Holds(secSIGIR, "the harmonic optimum for evenly spaced visits has lower harmonic staleness than LambdaCrawl's and every other allocation on every instance",
			"LambdaCrawl optimises it for Poisson crawls", fmt.Sprintf("lower on every one; closest rival %.2f %% above", 100*harmMargin), harmBest),
		claim.Holds(secSIGIR, "the freshness optimum gives pages up (f = 0), so its harmonic staleness is infinite",
			"gives up 4–29 % of pages (issue 19)", fmt.Sprintf("gives up %.1f–%.1f %% of pages", 100*upLo, 100*upHi), upLo > 0),
	}
	// The age optimum visits fast pages more often than LambdaCrawl, slow
	// ones less: it comes close to LambdaCrawl's harmonic staleness, from
	// above, without being built for it.
	age := claim.Holds(secNeurIPS, "the age optimum, not built for it, has a harmonic staleness a few percent above LambdaCrawl's",
		"0.4–5.9 % above (issue 19, the authors' evaluation on their instances)",
		fmt.Sprintf("%+.1f to %+.1f %% (both visited evenly, which LambdaCrawl's rates were not solved for; under 15 %% holds)", 100*ageLo, 100*ageHi),
		ageLo > 0 && ageHi < 0.15)
	return append(out, age)
}

// learntClaims runs issue 19's learnt-rate comparison in the simulator:
// 10^4 pages of ch. 4's rates, two seeds, rates learnt from the visits over
// 21 days and measured over the next 21, at 0.2 and 1.0 fetches a page a
// day: the
// default against LambdaCrawl on the same learnt rates, under freshness
// (freshcrawl's default objective) and under harmonic staleness
// (-objective harmonic).
func learntClaims(ctx context.Context, seed uint64) ([]claim.Claim, error) {
	printed := map[float64]string{0.2: "default 0.662, LambdaLearnAndCrawl 0.636", 1: "default 0.752, LambdaLearnAndCrawl 0.728"}
	var out []claim.Claim
	for _, perDay := range []float64{0.2, 1} {
		for _, obj := range []policy.Allocator{policy.OptimalFreshness{}, policy.OptimalHarmonic{}} {
			c := simpolicy.Comparison{
				Setup:    simpolicy.Setup{Pages: instancePages, Budget: perDay * instancePages / day, Allocator: obj},
				Policies: []string{"default", "lambdacrawl"}, Model: simpolicy.Poisson, LastModified: 0.6,
				Days: 42, WarmUp: 21, Seeds: []uint64{seed, seed + 1},
			}
			rep, err := simpolicy.Compare(ctx, c)
			if err != nil {
				return nil, err
			}
			def, lc := rep.Rows[0], rep.Rows[1]
			if _, ok := obj.(policy.OptimalFreshness); ok {
				out = append(out, claim.Holds(secNeurIPS, fmt.Sprintf("rates learnt over 21 days, %g fetches/page/day: the default keeps pages fresher than LambdaCrawl on the same estimates", perDay),
					printed[perDay], fmt.Sprintf("default %.3f, lambdacrawl %.3f (simulator, 10^4 pages, 2 seeds)", def.Freshness.Mean, lc.Freshness.Mean),
					def.Freshness.Mean > lc.Freshness.Mean))
				continue
			}
			out = append(out, claim.Holds(secNeurIPS, fmt.Sprintf("rates learnt over 21 days, %g fetches/page/day: -objective harmonic has lower time-averaged harmonic staleness than LambdaCrawl", perDay),
				"the default beats LambdaLearnAndCrawl on it (issue 19)", fmt.Sprintf("default %.4f, lambdacrawl %.4f (simulator, 10^4 pages, 2 seeds)", def.Harmonic.Mean, lc.Harmonic.Mean),
				def.Harmonic.Mean <= lc.Harmonic.Mean))
		}
	}
	return out, nil
}
