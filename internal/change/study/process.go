package study

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/freshcrawl/freshcrawl/internal/change"
)

// Process is a page's change process: a stationary renewal process whose
// times between changes are gamma-distributed with shape Shape and mean
// 1/λ, so that its rate is λ whatever the shape (dissertation §6.8.1).
// Shape 1 is the Poisson process the estimators assume; a shape below 1
// makes changes bunch (short gaps more frequent), above 1 makes them more
// regular.
type Process struct {
	Shape float64 `json:"shape"`
}

// Poisson is the model's change process.
var Poisson = Process{Shape: 1}

// Name returns "poisson" for shape 1, else "gamma-" and the shape.
func (p Process) Name() string {
	if p.Shape == 1 {
		return "poisson"
	}
	return fmt.Sprintf("gamma-%g", p.Shape)
}

// changes generates one page's change times. After advance(t), prev is the
// time of the latest change at or before t (what Last-Modified reports) and
// next the time of the first change after t.
type changes struct {
	rng        *rand.Rand
	shape      float64 // gamma shape α
	scale      float64 // gamma scale θ = 1/(α·λ), so the mean gap is 1/λ
	prev, next float64
}

// start begins the process in its stationary state at time 0. Renewal
// theory: the gap that covers a fixed time is length-biased, which for
// Gamma(α, θ) gaps is Gamma(α+1, θ), and the time falls uniformly inside
// it. Starting there, rather than with a change at 0, keeps the first
// visits from seeing a younger process than the later ones.
func (c *changes) start(rng *rand.Rand, p Process, lambda float64) {
	c.rng, c.shape, c.scale = rng, p.Shape, 1/(p.Shape*lambda)
	covering := gammaVariate(rng, c.shape+1) * c.scale
	u := rng.Float64()
	c.prev, c.next = -(1-u)*covering, u*covering
}

// gap draws the time from one change to the next.
func (c *changes) gap() float64 {
	if c.shape == 1 {
		return c.scale * c.rng.ExpFloat64()
	}
	return c.scale * gammaVariate(c.rng, c.shape)
}

// advance moves the process past time t.
func (c *changes) advance(t float64) {
	for c.next <= t {
		c.prev = c.next
		c.next += c.gap()
	}
}

// setRate makes the process change at rate lambda from time t on. It is
// exact for the Poisson process only, which is memoryless: the time to the
// next change is simply drawn anew.
func (c *changes) setRate(lambda, t float64) {
	c.scale = 1 / (c.shape * lambda)
	c.advance(t)
	c.next = t + c.gap()
}

// gammaVariate draws from Gamma(alpha, 1) by Marsaglia & Tsang's method
// ("A simple method for generating gamma variables", ACM TOMS 2000): for
// α ≥ 1 a squeezed rejection from a cubed normal; for α < 1 their boost
// Gamma(α) = Gamma(α+1)·U^(1/α).
func gammaVariate(rng *rand.Rand, alpha float64) float64 {
	boost := 1.0
	if alpha < 1 {
		boost = math.Pow(rng.Float64(), 1/alpha)
		alpha++
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		x2 := x * x
		if u < 1-0.0331*x2*x2 || math.Log(u) < 0.5*x2+d*(1-v+math.Log(v)) {
			return boost * d * v
		}
	}
}

// Schedule is how a crawler spaces its visits to a page; every schedule has
// mean interval 1/f.
type Schedule int

const (
	// Regular visits every 1/f exactly, the setting of dissertation §6.4.2.
	Regular Schedule = iota
	// Uniform draws each interval independently and uniformly from
	// [0.5, 1.5]/f: a crawler that aims at 1/f and misses by up to half.
	Uniform
	// Exponential draws each interval from the exponential distribution of
	// mean 1/f: visits at random times (a Poisson process of visits), the
	// most irregular schedule with a finite mean and the case eq. 6.3's MLE
	// is consistent for (§6.4.3).
	Exponential
)

// Schedules lists every Schedule.
var Schedules = []Schedule{Regular, Uniform, Exponential}

// String returns "regular", "uniform" or "exponential".
func (s Schedule) String() string {
	switch s {
	case Regular:
		return "regular"
	case Uniform:
		return "uniform"
	case Exponential:
		return "exponential"
	}
	return fmt.Sprintf("Schedule(%d)", int(s))
}

// MarshalText implements encoding.TextMarshaler with String.
func (s Schedule) MarshalText() ([]byte, error) {
	if s < Regular || s > Exponential {
		return nil, fmt.Errorf("unknown schedule %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Schedule) UnmarshalText(b []byte) error {
	for _, x := range Schedules {
		if x.String() == string(b) {
			*s = x
			return nil
		}
	}
	return fmt.Errorf("unknown schedule %q", b)
}

// interval draws one visit interval of mean m.
func (s Schedule) interval(rng *rand.Rand, m float64) float64 {
	switch s {
	case Uniform:
		return m * (0.5 + rng.Float64())
	case Exponential:
		return m * rng.ExpFloat64()
	}
	return m
}

// page is one simulated page and the crawler's visits to it. The first
// visit, at time 0, only sets the baseline (as in the crawler); visit
// returns the observations of the visits after it.
type page struct {
	ch    changes
	sched Schedule
	mean  float64 // mean visit interval 1/f, seconds
	t     float64 // time of the latest visit
}

// newPage starts a page whose changes follow p at rate lambda, visited on
// sched with mean interval mean.
func newPage(rng *rand.Rand, p Process, lambda float64, sched Schedule, mean float64) page {
	pg := page{sched: sched, mean: mean}
	pg.ch.start(rng, p, lambda)
	return pg
}

// visit makes the next visit and returns what it observes, with
// SinceModified set (the study's Last-Modified is exact; estimators that
// must not see it ignore it), and the visit's time.
func (pg *page) visit() (change.Observation, float64) {
	prevVisit := pg.t
	pg.t += pg.sched.interval(pg.ch.rng, pg.mean)
	pg.ch.advance(pg.t)
	return change.Observation{
		Interval:      pg.t - prevVisit,
		Changed:       pg.ch.prev > prevVisit,
		SinceModified: pg.t - pg.ch.prev,
	}, pg.t
}
