package sim

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

var posInf = math.Inf(1)

// Page is one simulated page.
type Page struct {
	// Process is how the live page changes.
	Process Process
	// Weight is the page's importance w_i, used by the weighted metrics
	// and the embarrassment objective; the unweighted ones ignore it. Zero
	// counts the page for nothing in them.
	Weight float64
	// Host groups pages for politeness (Config.HostDelay); hosts are
	// numbered from 0.
	Host int32
	// LastModified says the page's host sends an honest Last-Modified, so
	// each Fetch reports the time since the last change.
	LastModified bool
}

// Config describes a run. Zero values are documented per field.
type Config struct {
	// Pages are the simulated pages; at least one.
	Pages []Page
	// Seed selects the random streams: the same Config and seed give the
	// same Result.
	Seed uint64
	// Duration is the simulated length of the run in seconds (> 0).
	Duration float64
	// WarmUp is the initial period, in seconds, excluded from every average
	// and count (the Series still covers it). Zero measures from time 0.
	WarmUp float64
	// Budget is the global fetch rate in fetches per second: consecutive
	// fetches are at least 1/Budget apart. Zero means unlimited.
	Budget float64
	// HostDelay is the minimum time in seconds between two fetches of one
	// host. Zero disables politeness.
	HostDelay float64
	// ReplanEvery is the period in seconds of Replanner.Replan calls, the
	// first at ReplanEvery. Zero means one day; it is ignored for policies
	// that are not Replanners.
	ReplanEvery float64
	// SeriesStep is the resolution in seconds of Result.Series. Zero means
	// no series.
	SeriesStep float64
	// StaleCost is paper 001's C_s, the cost of one page being stale for one
	// hour, and CrawlCost its C_c, the cost of one fetch (spec §A.2). Zero
	// values cost nothing.
	StaleCost, CrawlCost float64
	// VeryStale is the factor r of paper 001's "very stale" intervals
	// (spec §A.7): a revisit interval is very stale when its staleness
	// reaches r/λ_i, r times the page's mean change interval. Zero
	// disables the count.
	VeryStale float64
	// PerPage asks for Result.PerPage.
	PerPage bool
}

// ErrConfig is wrapped by every error Run returns for an invalid Config.
var ErrConfig = errors.New("sim: invalid config")

func (c *Config) validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	check(len(c.Pages) > 0 && len(c.Pages) < math.MaxInt32, "need between 1 and 2^31−2 pages, got %d", len(c.Pages))
	check(c.Duration > 0 && finite(c.Duration), "duration must be positive and finite, got %g", c.Duration)
	check(c.WarmUp >= 0 && c.WarmUp < c.Duration, "warm-up must be in [0, duration), got %g", c.WarmUp)
	check(c.Budget >= 0 && finite(c.Budget), "budget must be finite and ≥ 0, got %g", c.Budget)
	check(c.HostDelay >= 0 && finite(c.HostDelay), "host delay must be finite and ≥ 0, got %g", c.HostDelay)
	check(c.ReplanEvery >= 0 && finite(c.ReplanEvery), "replan period must be finite and ≥ 0, got %g", c.ReplanEvery)
	check(c.SeriesStep >= 0 && finite(c.SeriesStep), "series step must be finite and ≥ 0, got %g", c.SeriesStep)
	check(c.SeriesStep == 0 || c.Duration/c.SeriesStep <= 1e7, "series step %g gives more than 10^7 points", c.SeriesStep)
	check(finite(c.StaleCost) && finite(c.CrawlCost), "costs must be finite")
	check(c.VeryStale >= 0 && finite(c.VeryStale), "very-stale factor must be finite and ≥ 0, got %g", c.VeryStale)
	for i := range c.Pages {
		p := &c.Pages[i]
		if err := p.Process.validate(); err != nil {
			errs = append(errs, fmt.Errorf("page %d: %w", i, err))
		}
		if !(p.Weight >= 0 && finite(p.Weight)) {
			errs = append(errs, fmt.Errorf("page %d: weight must be finite and ≥ 0, got %g", i, p.Weight))
		}
		if p.Host < 0 {
			errs = append(errs, fmt.Errorf("page %d: host must be ≥ 0, got %d", i, p.Host))
		}
		if len(errs) > 10 {
			break
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrConfig, errors.Join(errs...))
	}
	return nil
}

// pageState is a page's mutable state.
type pageState struct {
	next    float64 // first change after the last fetch (the copy is stale from then)
	last    float64 // time of the last fetch (0: the initial copy)
	lastMod float64 // last change at or before the last fetch
	stale   float64 // stale time in the window
	ageInt  float64 // ∫ age dt over the window
	harm    float64 // ∫ H_N dt over the window, N the changes the copy missed
	draws   uint32  // the page's random-stream counter
	fetches uint32  // fetches in the window
	changes uint32  // of those, fetches that saw a change
	veryS   uint32  // very stale intervals in the window
}

// engine is one run's state.
type engine struct {
	cfg    *Config
	policy Policy
	procs  []proc
	st     []pageState
	due    []float64
	hosts  []float64 // next time each host may be fetched
	heap   dueHeap
	now    float64
	dirty  bool
	iv     intervals
	ser    *series
	ev     Events
}

// Run simulates cfg under policy p and returns what it measured. It
// returns an error wrapping ErrConfig for an invalid cfg, or ctx's error
// if ctx is cancelled.
func Run(ctx context.Context, cfg Config, p Policy) (*Result, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	n := len(cfg.Pages)
	e := &engine{cfg: &cfg, policy: p,
		procs: make([]proc, n), st: make([]pageState, n), due: make([]float64, n),
		ser: newSeries(cfg.SeriesStep, cfg.Duration)}
	nh := int32(0)
	for i := range cfg.Pages {
		pg := &cfg.Pages[i]
		e.procs[i] = newProc(pg.Process, pg.LastModified)
		s := &e.st[i]
		s.lastMod, s.next = e.procs[i].start(e.stream(i))
		nh = max(nh, pg.Host+1)
	}
	if cfg.HostDelay > 0 {
		e.hosts = make([]float64, nh)
		for i := range e.hosts {
			e.hosts[i] = math.Inf(-1)
		}
	}
	if o, ok := p.(Oracle); ok {
		o.SetTruth(cfg.Pages)
	}
	p.Init(&Schedule{e})
	e.rebuild()
	if err := e.loop(ctx); err != nil {
		return nil, err
	}
	return e.finish(), nil
}

// stream returns page i's random stream.
func (e *engine) stream(i int) stream {
	return stream{key: splitmix.Hash2(e.cfg.Seed, uint64(i)), n: &e.st[i].draws}
}

// rebuild makes the heap from the due times.
func (e *engine) rebuild() {
	a := e.heap.a[:0]
	for i, d := range e.due {
		if d < posInf {
			a = append(a, entry{d, int32(i)})
		}
	}
	e.heap.init(a)
	e.dirty = false
}

func (e *engine) loop(ctx context.Context) error {
	cfg := e.cfg
	spacing := 0.0
	if cfg.Budget > 0 {
		spacing = 1 / cfg.Budget
	}
	replanner, _ := e.policy.(Replanner)
	every := cfg.ReplanEvery
	if every == 0 {
		every = 86400
	}
	nextReplan := posInf
	if replanner != nil {
		nextReplan = every
	}
	free := math.Inf(-1) // earliest time the budget allows the next fetch
	var f Fetch
	for iter := 0; ; iter++ {
		if iter&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		tf := posInf
		if e.heap.len() > 0 {
			tf = max(e.heap.top().t, free)
		}
		if nextReplan <= tf && nextReplan < cfg.Duration {
			e.now = nextReplan
			replanner.Replan(&Schedule{e})
			e.ev.Replans++
			if e.dirty {
				e.rebuild()
			}
			nextReplan += every
			continue
		}
		if tf >= cfg.Duration {
			return nil
		}
		i := int(e.heap.top().page)
		if e.hosts != nil {
			h := cfg.Pages[i].Host
			if e.hosts[h] > tf {
				e.heap.replaceTop(entry{e.hosts[h], int32(i)})
				e.ev.Deferrals++
				continue
			}
			e.hosts[h] = tf + cfg.HostDelay
		}
		e.now = tf
		e.fetch(i, tf, &f)
		e.ev.Fetches++
		free = tf + spacing
		next := e.policy.Fetched(&f)
		if next != next { // NaN
			next = posInf
		}
		e.due[i] = next
		if next < posInf {
			e.heap.replaceTop(entry{next, int32(i)})
		} else {
			e.heap.pop()
		}
		if e.dirty { // a policy may not SetDue from Fetched, but be safe
			e.rebuild()
		}
	}
}

// fetch fetches page i at time t: it closes the interval since the page's
// previous fetch into the metrics, advances the change process and fills f.
func (e *engine) fetch(i int, t float64, f *Fetch) {
	s := &e.st[i]
	q := &e.procs[i]
	w := e.cfg.WarmUp
	c := s.next
	changed := c <= t
	*f = Fetch{Page: i, Time: t, Due: e.due[i]}
	f.Obs.Interval = t - s.last
	f.Obs.Changed = changed
	f.Obs.SinceModified = math.NaN()
	if changed {
		// Stale on [c, t) with age x − c (dissertation Definition 5.2).
		e.addStale(s, c, t)
		var h float64
		s.lastMod, s.next, h = q.advance(e.stream(i), c, t, w)
		s.harm += h
	}
	if q.lm {
		f.Obs.SinceModified = t - s.lastMod
	}
	if t >= w {
		s.fetches++
		e.iv.add(f.Obs.Interval)
		d := t - f.Due
		if !(d > 0) {
			d = 0
		}
		e.iv.delaySum += d
		e.iv.delayMx = max(e.iv.delayMx, d)
		if changed {
			s.changes++
			if r := e.cfg.VeryStale; r > 0 && t-c >= r/e.cfg.Pages[i].Process.Rate {
				s.veryS++
			}
		}
	}
	s.last = t
}

// addStale adds a stale stretch [c, b) of one page, age x − c at time x,
// to the page's window integrals and to the series.
func (e *engine) addStale(s *pageState, c, b float64) {
	if a := max(c, e.cfg.WarmUp); b > a {
		s.stale += b - a
		// ∫_a^b (x − c) dx = ((b−c)² − (a−c)²)/2, factored to keep precision.
		s.ageInt += (b - a) * (b + a - 2*c) / 2
	}
	if e.ser != nil {
		e.ser.stale(c, b)
	}
}

// finish closes every page's open interval at the end of the run and
// computes the averages.
func (e *engine) finish() *Result {
	cfg := e.cfg
	n := len(cfg.Pages)
	T := cfg.Duration - cfg.WarmUp
	r := &Result{Pages: n, Window: T}
	var sumW, stale, wStale, age, wAge, harm, wHarm float64
	var veryStale int64
	if cfg.PerPage {
		r.PerPage = make([]PageResult, n)
	}
	for i := range e.st {
		s := &e.st[i]
		if s.next < cfg.Duration {
			e.addStale(s, s.next, cfg.Duration)
			s.harm += e.procs[i].tail(e.stream(i), s.next, cfg.Duration, cfg.WarmUp)
		}
		wi := cfg.Pages[i].Weight
		sumW += wi
		stale += s.stale
		wStale += wi * s.stale
		age += s.ageInt
		wAge += wi * s.ageInt
		harm += s.harm
		wHarm += wi * s.harm
		r.Fetches += int64(s.fetches)
		r.ChangesDetected += int64(s.changes)
		veryStale += int64(s.veryS)
		e.ev.Draws += int64(s.draws)
		if r.PerPage != nil {
			r.PerPage[i] = PageResult{Freshness: 1 - s.stale/T, Age: s.ageInt / T, Harmonic: s.harm / T,
				Fetches: int(s.fetches), Changes: int(s.changes), VeryStale: int(s.veryS)}
		}
	}
	nf := float64(n)
	r.Freshness = 1 - stale/(nf*T)
	r.Age = age / (nf * T)
	r.Harmonic = harm / (nf * T)
	if sumW > 0 {
		r.WeightedFreshness = 1 - wStale/(sumW*T)
		r.WeightedAge = wAge / (sumW * T)
		r.WeightedHarmonic = wHarm / (sumW * T)
	}
	r.Embarrassment = wStale / T
	r.StaleHours = stale / 3600
	// Paper 001 §A.2: cost per hour = C_s·P(stale) + C_c·(crawls per hour),
	// here summed over pages.
	r.CostPerHour = (cfg.StaleCost*r.StaleHours + cfg.CrawlCost*float64(r.Fetches)) / (T / 3600)
	r.CostPerPageHour = r.CostPerHour / nf
	if r.Fetches > 0 {
		r.ChangeRatio = float64(r.ChangesDetected) / float64(r.Fetches)
		r.VeryStaleShare = float64(veryStale) / float64(r.Fetches)
		r.MeanDelay = e.iv.delaySum / float64(r.Fetches)
	}
	r.MaxDelay = e.iv.delayMx
	r.Intervals = e.iv.summary()
	if e.ser != nil {
		r.Series = e.ser.points(n)
	}
	r.Events = e.ev
	return r
}
