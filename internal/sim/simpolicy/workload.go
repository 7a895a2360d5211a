package simpolicy

import (
	"fmt"

	"github.com/freshcrawl/freshcrawl/internal/change/evolution"
	"github.com/freshcrawl/freshcrawl/internal/sim"
	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// Model is the kind of change process the workload's pages follow.
type Model uint8

// Change models. Mix is 10 % Pareto and 5 % quasi-deterministic pages, the
// rest Poisson, the blend sim's scale test uses.
const (
	Poisson Model = iota
	Pareto
	QuasiDeterministic
	Mix
)

var modelNames = [...]string{"poisson", "pareto", "qd", "mix"}

// String returns the model's flag name.
func (m Model) String() string {
	if int(m) < len(modelNames) {
		return modelNames[m]
	}
	return fmt.Sprintf("model(%d)", m)
}

// ParseModel returns the model of a flag name.
func ParseModel(s string) (Model, error) {
	for i, n := range modelNames {
		if n == s {
			return Model(i), nil
		}
	}
	return 0, fmt.Errorf("unknown model %q (want poisson, pareto, qd or mix)", s)
}

// ParetoAlpha is the Pareto shape of simweb's default configuration.
const ParetoAlpha = 1.5

// Ch4Pages returns n pages whose mean change intervals follow the ch. 4
// rate mix exactly as simweb draws it: a Fig. 4.2 bar by
// evolution.PrintedShares (23/15/16/16/30 %), then log-uniform inside the
// bar's evolution.Bins range (30 min–2 h, 1 d–1 wk, 1 wk–30 d, 30–120 d,
// 120 d–3 y). The all-domain shares are used directly: simweb's per-domain
// rows reproduce them to within 0.01 (evolution's test). A share
// lastMod of the pages send an honest Last-Modified. Every page has weight
// 1 and its own host. The same seed gives the same pages.
func Ch4Pages(n int, m Model, lastMod float64, seed uint64) []sim.Page {
	ps := make([]sim.Page, n)
	for i := range ps {
		u := func(k uint64) float64 { return splitmix.Unit(hash(hash(seed, uint64(i)), k)) }
		b := evolution.Bar(evolution.PrintedShares, u(0))
		mean := evolution.LogUniform(evolution.Bins[b].Lo.Seconds(), evolution.Bins[b].Hi.Seconds(), u(1))
		kind := m
		if m == Mix {
			switch x := u(2); {
			case x < 0.10:
				kind = Pareto
			case x < 0.15:
				kind = QuasiDeterministic
			default:
				kind = Poisson
			}
		}
		var p sim.Process
		switch kind {
		case Pareto:
			p = sim.ParetoProcess(1/mean, ParetoAlpha)
		case QuasiDeterministic:
			p = sim.QDProcessMean(mean, u(3)*365*86400)
		default:
			p = sim.PoissonProcess(1 / mean)
		}
		ps[i] = sim.Page{Process: p, Weight: 1, Host: int32(i), LastModified: u(4) < lastMod}
	}
	return ps
}

// hash combines a key and a coordinate with splitmix64's finaliser (an
// older combination than splitmix.Hash2, kept so that the workloads, and
// the figures measured on them, stay as they were).
func hash(a, b uint64) uint64 { return splitmix.Mix(a + splitmix.Gamma ^ b*0xbf58476d1ce4e5b9) }
