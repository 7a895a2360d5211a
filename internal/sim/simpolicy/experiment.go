package simpolicy

import (
	"context"
	"fmt"

	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/sim"
)

// Policies are the policy names New accepts, in report order.
var Policies = []string{"default", "oracle", "uniform", "proportional", "nutch", "stormcrawler", "lambdacrawl", "binary-poisson"}

// Setup is what every policy of one comparison shares.
type Setup struct {
	// Pages is the number of pages; Budget the fetches per second.
	Pages  int
	Budget float64
	// Allocator is the objective's optimal allocator (OptimalFreshness or
	// OptimalAge), used by default and oracle.
	Allocator policy.Allocator
	// KnownRates gives the rate-based policies (default, proportional) the
	// true rates instead of learning them: default then is the oracle.
	KnownRates bool
	// MaxInterval is policy.OnlineConfig.MaxInterval for the learning
	// policies; zero means policy.DefaultMaxInterval.
	MaxInterval float64
	// Decay is the learning policies' forgetting time constant; zero: none.
	Decay float64
	// PriorWeight is policy.OnlineConfig.PriorWeight, the weight of the
	// learning policies' empirical-Bayes prior; zero means 1.
	PriorWeight float64
}

// New returns the named policy for s. The budget-blind baselines (nutch,
// stormcrawler) start every page at the uniform interval Pages/Budget, the
// interval the budget allows, instead of their own defaults (30 days and
// one day), so that they start where uniform does and the comparison is of
// the adaptation alone; their other parameters are the crawlers' defaults.
func New(name string, s Setup) (sim.Policy, error) {
	uniformI := float64(s.Pages) / s.Budget
	learn := func(a policy.Allocator) (sim.Policy, error) {
		cfg := policy.OnlineConfig{Budget: s.Budget, Allocator: a, MaxInterval: s.MaxInterval, Decay: s.Decay, PriorWeight: s.PriorWeight}
		if s.KnownRates {
			return &Oracle{Config: cfg}, nil
		}
		p, err := policy.NewOnline(s.Pages, cfg)
		if err != nil {
			return nil, err
		}
		return &Online{P: p}, nil
	}
	switch name {
	case "default":
		return learn(s.Allocator)
	case "oracle":
		return &Oracle{Config: policy.OnlineConfig{Budget: s.Budget, Allocator: s.Allocator}}, nil
	case "uniform":
		return sim.Uniform(s.Pages, s.Budget), nil
	case "proportional":
		return learn(policy.Proportional{})
	case "nutch":
		return NewAdaptive(policy.NewNutchSchedule(s.Pages, policy.NutchAdaptive{Default: uniformI}), uniformI), nil
	case "stormcrawler":
		return NewAdaptive(policy.NewStormSchedule(s.Pages, policy.StormCrawler{Default: uniformI}), uniformI), nil
	case "lambdacrawl":
		return learn(policy.LambdaCrawl{})
	case "binary-poisson":
		return learn(policy.BinaryPoisson{})
	}
	return nil, fmt.Errorf("unknown policy %q (want one of %v)", name, Policies)
}

// Run simulates cfg under the named policy and reports a policy's own error
// (a failed re-plan or oracle) as Run's.
func Run(ctx context.Context, cfg sim.Config, name string, s Setup) (*sim.Result, error) {
	p, err := New(name, s)
	if err != nil {
		return nil, err
	}
	r, err := sim.Run(ctx, cfg, p)
	if err != nil {
		return nil, err
	}
	switch p := p.(type) {
	case *Online:
		err = p.Err
	case *Oracle:
		err = p.Err
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return r, nil
}
