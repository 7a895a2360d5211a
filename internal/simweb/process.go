package simweb

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// Process is the kind of update process of a site's pages.
type Process uint8

// Update processes. Poisson is the dissertation's model (§4.6); Pareto and
// QuasiDeterministic are the non-Poisson processes of paper 002 §2.3.
const (
	Poisson Process = iota
	Pareto
	QuasiDeterministic
)

var processNames = [...]string{"poisson", "pareto", "quasi-deterministic"}

func (p Process) String() string { return processNames[p] }

// ParseProcess reads a process name as printed by String.
func ParseProcess(s string) (Process, error) {
	for i, n := range processNames {
		if strings.EqualFold(s, n) {
			return Process(i), nil
		}
	}
	return 0, fmt.Errorf("unknown update process %q (want poisson, pareto or quasi-deterministic)", s)
}

// maxInterval caps a single inter-change time so that sums of intervals
// never overflow int64 nanoseconds (heavy-tailed draws can be enormous).
const maxInterval = int64(200 * 365 * day)

// qdPeriods are the calendar periods on which quasi-deterministic pages may
// be updated: a page publishes at fixed times of the hour, day, week, month
// or year, each potential update happening with probability k.
var qdPeriods = [...]time.Duration{time.Hour, day, 7 * day, 30 * day, 365 * day}

// changeModel is one page incarnation's update process. Times are integer
// nanoseconds of simulated time, so sums are exact and the walk over events
// can go backwards as well as forwards without rounding drift.
type changeModel struct {
	kind   Process
	lambda float64 // mean changes per second (1 / mean interval)
	alpha  float64 // Pareto shape (> 1)
	period int64   // quasi-deterministic slot period, ns
	k      float64 // quasi-deterministic probability per slot
	phase  int64   // quasi-deterministic slot phase, ns in [0, period)
}

func newChangeModel(kind Process, mean time.Duration, alpha float64, phase int64) changeModel {
	m := changeModel{kind: kind, lambda: 1 / mean.Seconds(), alpha: alpha}
	if kind == QuasiDeterministic {
		p := time.Duration(0)
		for _, c := range qdPeriods {
			if c <= mean {
				p = c
			}
		}
		if p == 0 { // faster than hourly: one potential update per mean interval
			p = mean
		}
		m.period = int64(p)
		m.k = math.Min(1, float64(p)/float64(mean))
		m.phase = phase % m.period
	}
	return m
}

// interval draws an ordinary inter-change time from a uniform u in (0, 1].
func (m *changeModel) interval(u float64) int64 {
	switch m.kind {
	case Pareto:
		// Lomax tail (β/(β+t))^α with mean β/(α−1) = 1/λ (paper 002 §2.3).
		beta := (m.alpha - 1) / m.lambda
		return clampNs(beta * (math.Pow(u, -1/m.alpha) - 1) * 1e9)
	case QuasiDeterministic:
		return m.period * m.geometric(u)
	default:
		return clampNs(-math.Log(u) / m.lambda * 1e9)
	}
}

// residual draws the time from an arbitrary instant to the next change of a
// stationary process: the equilibrium (forward-recurrence) distribution
// with density Ḡ(t)/mean. It starts the process of pages that already
// exist when the simulation begins. For Pareto it is Lomax with shape α−1.
// Quasi-deterministic pages are handled by firstAfter instead.
func (m *changeModel) residual(u float64) int64 {
	if m.kind == Pareto {
		beta := (m.alpha - 1) / m.lambda
		return clampNs(beta * (math.Pow(u, -1/(m.alpha-1)) - 1) * 1e9)
	}
	return m.interval(u)
}

// geometric returns the number of potential slots up to and including the
// next one that happens: Geometric(k) on {1, 2, ...}.
func (m *changeModel) geometric(u float64) int64 {
	if m.k >= 1 {
		return 1
	}
	g := math.Ceil(math.Log(u) / math.Log1p(-m.k))
	if g < 1 {
		g = 1
	}
	if g*float64(m.period) > float64(maxInterval) {
		return maxInterval / m.period
	}
	return int64(g)
}

// nextSlot returns the first quasi-deterministic slot strictly after t.
func (m *changeModel) nextSlot(t int64) int64 {
	r := (t - m.phase) % m.period
	if r < 0 {
		r += m.period
	}
	return t - r + m.period
}

func clampNs(x float64) int64 {
	if x < 1 {
		return 1
	}
	if x > float64(maxInterval) || math.IsNaN(x) {
		return maxInterval
	}
	return int64(x)
}

// incarnation is one life of a URL slot: a page that is born, changes by its
// process, and dies. Event i ≥ 1 happens at t_i = t_{i−1} + Δ_i; t_0 is the
// process origin (the birth, or 0 for pages alive when the simulation
// starts). Version v is the page after its v-th change.
type incarnation struct {
	site, slot, gen int32
	key             uint64
	born, died      int64 // simulated ns; died may be math.MaxInt64
	origin          int64 // t_0
	lastMod0        int64 // time of the last change before the origin: version 0's Last-Modified
	model           changeModel
}

// delta returns Δ_i, the i-th inter-change time (i ≥ 1).
func (in *incarnation) delta(i uint32) int64 {
	u := splitmix.Open(splitmix.Hash2(in.key^tagInterval, uint64(i)))
	if i == 1 {
		if in.model.kind == QuasiDeterministic {
			first := in.model.nextSlot(in.origin) - in.origin
			return first + in.model.period*(in.model.geometric(u)-1)
		}
		if in.origin > in.born { // alive at the origin: stationary start
			return in.model.residual(u)
		}
	}
	return in.model.interval(u)
}

// cursor is a position in an incarnation's event sequence: event idx
// happened at time t. It is cached per slot so that moving to a nearby time
// costs only the events in between.
type cursor struct {
	gen int32
	idx uint32
	t   int64
}

// seek moves c (which must belong to in) to the last event at or before t
// and returns it. t must not be before the origin.
func (in *incarnation) seek(c cursor, t int64) cursor {
	if c.gen != in.gen || c.t < in.origin {
		c = cursor{gen: in.gen, idx: 0, t: in.origin}
	}
	for c.t > t && c.idx > 0 { // backwards: t_{i−1} = t_i − Δ_i, exact in integers
		c.t -= in.delta(c.idx)
		c.idx--
	}
	for {
		d := in.delta(c.idx + 1)
		if c.t > math.MaxInt64-d || c.t+d > t {
			return c
		}
		c.t += d
		c.idx++
	}
}

// lastModified is the time the page took the content of version idx at
// cursor c: its change time, or the last change before the origin.
func (in *incarnation) lastModified(c cursor) int64 {
	if c.idx == 0 {
		return in.lastMod0
	}
	return c.t
}
