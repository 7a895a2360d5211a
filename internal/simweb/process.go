package simweb

import (
	"math"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change/process"
	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// maxInterval caps a single inter-change time so that sums of intervals
// never overflow int64 nanoseconds (heavy-tailed draws can be enormous).
const maxInterval = int64(200 * 365 * day)

// changeModel is one page incarnation's update process, drawn by package
// process's formulas. Times are integer nanoseconds of simulated time, so
// sums are exact and the walk over events can go backwards as well as
// forwards without rounding drift.
type changeModel struct {
	kind    process.Kind
	lambda  float64 // mean changes per second (1 / mean interval)
	alpha   float64 // Pareto shape (> 1)
	period  int64   // quasi-deterministic slot period, ns
	k       float64 // quasi-deterministic probability per slot
	logMiss float64 // process.LogMiss(k)
	phase   int64   // quasi-deterministic slot phase, ns in [0, period)
}

func newChangeModel(kind process.Kind, mean time.Duration, alpha float64, phase int64) changeModel {
	m := changeModel{kind: kind, lambda: 1 / mean.Seconds(), alpha: alpha}
	if kind == process.QuasiDeterministic {
		p, k := process.Calendar(mean, time.Second)
		m.period, m.k, m.logMiss = int64(p), k, process.LogMiss(k)
		m.phase = phase % m.period
	}
	return m
}

// interval draws an ordinary inter-change time from a uniform u in (0, 1].
func (m *changeModel) interval(u float64) int64 {
	switch m.kind {
	case process.Pareto:
		return clampNs(process.Lomax(u, m.alpha, process.LomaxScale(m.lambda, m.alpha)) * 1e9)
	case process.QuasiDeterministic:
		return m.period * m.geometric(u)
	default:
		return clampNs(process.Exponential(u, m.lambda) * 1e9)
	}
}

// residual draws the time from an arbitrary instant to the next change of a
// stationary process: the equilibrium (forward-recurrence) distribution
// with density Ḡ(t)/mean. It starts the process of pages that already
// exist when the simulation begins. For Pareto it is Lomax with shape α−1.
// Quasi-deterministic pages start on their slot grid instead
// (incarnation.delta).
func (m *changeModel) residual(u float64) int64 {
	if m.kind == process.Pareto {
		return clampNs(process.Lomax(u, m.alpha-1, process.LomaxScale(m.lambda, m.alpha)) * 1e9)
	}
	return m.interval(u)
}

// geometric returns the number of potential slots up to and including the
// next one that happens (process.SlotsToChange), capped so that the time
// it spans stays under maxInterval.
func (m *changeModel) geometric(u float64) int64 {
	g := process.SlotsToChange(u, m.logMiss)
	if g*float64(m.period) > float64(maxInterval) {
		return maxInterval / m.period
	}
	return int64(g)
}

// nextSlot returns the first quasi-deterministic slot strictly after t.
func (m *changeModel) nextSlot(t int64) int64 {
	return process.SlotAtOrBeforeNs(t, m.period, m.phase) + m.period
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
		if in.model.kind == process.QuasiDeterministic {
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
