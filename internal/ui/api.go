package ui

import (
	"math"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/crawler/hostview"
	"github.com/freshcrawl/freshcrawl/internal/datadir"
	"github.com/freshcrawl/freshcrawl/internal/refresh"
	"github.com/freshcrawl/freshcrawl/internal/robots"
)

// Doc is the JSON document of /api/status.
type Doc struct {
	// Status is what freshcrawl status -json prints, read from the
	// running crawl's store at StatusAt (it reads every row, so it is
	// refreshed at most every few seconds: statusCache); nil before the
	// first read or if it failed (StatusError).
	Status      *datadir.Status `json:"status"`
	StatusAt    time.Time       `json:"status_at,omitzero"`
	StatusError string          `json:"status_error,omitempty"`
	Live        Live            `json:"live"`
	// Series is the samples of the live figures, oldest first.
	Series []Sample `json:"series"`
	// Rates is the held pages by estimated change rate, one octave a
	// bucket, empty ones left out.
	Rates []RateBucket `json:"rates"`
	// Hosts is the top hosts by new URLs queued; HostStates counts all
	// hosts by state and by what their robots.txt said.
	Hosts      []HostRow       `json:"hosts"`
	HostStates hostview.Counts `json:"host_states"`
	Robots     RobotsCounts    `json:"robots"`
	// Errors is the latest failed fetches, newest last.
	Errors []ErrorRow `json:"errors"`
}

// Live is the crawl's running figures now.
type Live struct {
	At        time.Time `json:"at"`
	Started   time.Time `json:"started,omitzero"`
	Policy    string    `json:"policy"`
	Objective string    `json:"objective,omitempty"`
	Budget    float64   `json:"budget_per_second"`
	// BudgetUsed is the requests since the start over budget × time.
	BudgetUsed  float64 `json:"budget_used"`
	Requests    int64   `json:"requests"`
	Pages       int64   `json:"pages_fetched"`
	Changed     int64   `json:"changes_found"`
	NotModified int64   `json:"not_modified"`
	Failures    int64   `json:"failures"`
	Bytes       int64   `json:"bytes"`
	Held        int64   `json:"pages_held"`
	Seen        uint64  `json:"urls_seen"`
	Queued      int     `json:"urls_queued"`
	InFlight    int     `json:"in_flight"`
	Hosts       int     `json:"hosts"`
	// Expected is the mean time-averaged freshness and age (seconds) the
	// crawler expects of its held pages from its own estimates and
	// intervals, over Planned pages (Unplanned have no revisit).
	// Both are null while no page has an interval.
	Expected  *float64 `json:"expected_freshness"`
	Age       *float64 `json:"expected_age_seconds"`
	Planned   int64    `json:"pages_planned"`
	Unplanned int64    `json:"pages_unplanned"`
	// Truth is the held pages' true freshness, where it is known (demo).
	Truth *float64 `json:"true_freshness,omitempty"`
}

// Sample is the live figures at one moment, for the charts.
type Sample struct {
	At time.Time `json:"at"`
	// FetchesPerSecond is the requests per second since the sample
	// before; Budget the budget then.
	FetchesPerSecond float64  `json:"fetches_per_second"`
	Budget           float64  `json:"budget_per_second"`
	Held             int64    `json:"pages_held"`
	Queued           int      `json:"urls_queued"`
	Expected         *float64 `json:"expected_freshness"`
	Truth            *float64 `json:"true_freshness,omitempty"`
}

// RateBucket is the held pages whose estimated rate is in [Lo, Hi), in
// changes per day (Lo = Hi = 0 for pages without an estimate), and the
// revisit interval the policy gives a page of the bucket's middle rate,
// in seconds (0: the policy has no such curve).
type RateBucket struct {
	Lo       float64 `json:"lo_per_day"`
	Hi       float64 `json:"hi_per_day"`
	Pages    int64   `json:"pages"`
	Interval float64 `json:"interval_seconds"`
}

// HostRow is one host of the hosts table.
type HostRow struct {
	Name   string    `json:"name"`
	Queued int       `json:"urls_queued"`
	Due    time.Time `json:"next_revisit,omitzero"`
	Ready  time.Time `json:"ready_at,omitzero"`
	Delay  float64   `json:"delay_seconds"`
	Fails  int       `json:"consecutive_failures"`
	State  string    `json:"state"`
	Robots string    `json:"robots"`
}

// RobotsCounts counts the hosts' robots.txt files by what their last
// fetch said (RFC 9309 §2.3.1).
type RobotsCounts struct {
	Available   int `json:"available"`
	Unavailable int `json:"unavailable"`
	Unreachable int `json:"unreachable"`
}

// ErrorRow is one failed fetch.
type ErrorRow struct {
	At     time.Time `json:"at"`
	URL    string    `json:"url"`
	Status int       `json:"status"`
	Reason string    `json:"reason"`
}

// Sample takes one sample of the live figures.
func (s *Server) Sample() {
	st := s.cfg.Crawl.Stats()
	sm := Sample{At: st.At, Budget: st.Budget, Held: st.Held, Queued: st.Queued}
	sm.Expected, _ = expected(s.cfg.Crawl.Refresh().Expected())
	if s.cfg.Truth != nil {
		t := s.cfg.Truth()
		sm.Truth = &t
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := st.At.Sub(s.lastAt).Seconds(); !s.lastAt.IsZero() && d > 0 {
		sm.FetchesPerSecond = float64(st.Requests-s.lastReq) / d
	} else if d := st.At.Sub(st.Started).Seconds(); !st.Started.IsZero() && d > 0 {
		sm.FetchesPerSecond = float64(st.Requests) / d
	}
	s.lastReq, s.lastAt = st.Requests, st.At
	if len(s.series) == s.cfg.Keep {
		copy(s.series, s.series[1:])
		s.series = s.series[:s.cfg.Keep-1]
	}
	s.series = append(s.series, sm)
}

// Doc assembles /api/status now.
func (s *Server) Doc() Doc {
	c := s.cfg.Crawl
	now := s.cfg.Now()
	var d Doc
	d.Status, d.StatusAt, d.StatusError = s.status.get(s, now)
	d.Live = s.live()
	views, counts := c.Hosts(s.cfg.Top, d.Live.At)
	d.HostStates = counts
	d.Robots = robotsCounts(c.Robots())
	d.Hosts = make([]HostRow, len(views))
	for i, v := range views {
		d.Hosts[i] = HostRow{Name: v.Name, Queued: v.Queued, Due: v.Due, Ready: v.Ready, Delay: v.Delay.Seconds(),
			Fails: v.Fails, State: v.State(d.Live.At), Robots: robotsOf(c.Robots(), v.Name)}
	}
	d.Rates = s.rates()
	s.mu.Lock()
	d.Series = append([]Sample{}, s.series...)
	d.Errors = append([]ErrorRow{}, s.errors...)
	s.mu.Unlock()
	return d
}

func (s *Server) live() Live {
	st := s.cfg.Crawl.Stats()
	e := s.cfg.Crawl.Refresh().Expected()
	l := Live{
		At: st.At, Started: st.Started, Policy: s.cfg.Policy, Objective: s.cfg.Objective, Budget: st.Budget,
		BudgetUsed: st.BudgetUsed(crawler.Stats{}), Requests: st.Requests, Pages: st.Pages, Changed: st.Changed,
		NotModified: st.NotModified, Failures: st.Failures, Bytes: st.Bytes, Held: st.Held, Seen: st.Seen,
		Queued: st.Queued, InFlight: st.InFlight, Hosts: st.Hosts, Planned: e.Planned, Unplanned: e.Others,
	}
	l.Expected, l.Age = expected(e)
	if s.cfg.Truth != nil {
		t := s.cfg.Truth()
		l.Truth = &t
	}
	return l
}

// expected is e's freshness and age, nil while no page has an interval.
func expected(e refresh.Expected) (fresh, age *float64) {
	if e.Planned == 0 {
		return nil, nil
	}
	return &e.Freshness, &e.Age
}

// rates is the rate histogram with the policy's interval at each
// bucket's middle rate: the planner's, for the planned policies; the
// uniform interval for uniform and round robin; none for the adaptive
// baselines, whose intervals are each page's own.
func (s *Server) rates() []RateBucket {
	m := s.cfg.Crawl.Refresh()
	h := m.RateHistogram()
	pl := m.Planner()
	var out []RateBucket
	for k, n := range h {
		if n == 0 {
			continue
		}
		b := RateBucket{Pages: n}
		if k > 0 {
			lo := refresh.OctaveRate(k)
			b.Lo, b.Hi = lo, 2*lo
			switch {
			case pl != nil:
				b.Interval = pl.Interval(lo*math.Sqrt2/86400, 1)
			case s.cfg.Policy == string(refresh.Uniform) || s.cfg.Policy == string(refresh.RoundRobin):
				b.Interval = m.Uniform().Seconds()
			}
			if math.IsInf(b.Interval, 0) || math.IsNaN(b.Interval) {
				b.Interval = 0
			}
		}
		out = append(out, b)
	}
	return out
}

// robotsCounts counts the robots.txt files the cache holds by what their
// last fetch said.
func robotsCounts(c *robots.Cache) RobotsCounts {
	var n RobotsCounts
	c.Each(func(_ string, e robots.Entry) {
		switch robots.Classify(e.Status) {
		case robots.Available:
			n.Available++
		case robots.Unavailable:
			n.Unavailable++
		default:
			n.Unreachable++
		}
	})
	return n
}

// robotsOf is what the last fetch of host's robots.txt said (over http
// or https, the later), or "not fetched". host is an authority as the
// crawler names hosts: the port only where it is not the scheme's default.
func robotsOf(c *robots.Cache, host string) string {
	keys := []string{"http://" + host, "https://" + host}
	if _, _, err := net.SplitHostPort(host); err != nil {
		h := host
		if strings.Contains(h, ":") { // an IPv6 address
			h = "[" + h + "]"
		}
		keys = []string{"http://" + h + ":80", "https://" + h + ":443"}
	}
	var last robots.Entry
	found := false
	for _, k := range keys {
		if e, ok := c.Peek(k); ok && (!found || e.Fetched.After(last.Fetched)) {
			last, found = e, true
		}
	}
	if !found {
		return "not fetched"
	}
	return robots.Classify(last.Status).String()
}

// statusCache holds the last status read from the running crawl's store.
// A read scans every row, so it runs in the background, one at a time,
// and a new one starts only when the last is older than every and than
// fifty times the last read's duration: the scans take at most 2 % of a
// core however large the crawl, and no request waits for one, but the
// first (for at most firstWait).
type statusCache struct {
	every time.Duration

	mu      sync.Mutex
	st      *datadir.Status
	at      time.Time // when the last read started
	took    time.Duration
	err     string
	running bool
	closed  bool
	scans   sync.WaitGroup
	// reading, if set, is called as a read starts (a test holds it there).
	reading func()
}

// firstWait is how long a request waits for the first read.
const firstWait = 2 * time.Second

func (c *statusCache) get(s *Server, now time.Time) (*datadir.Status, time.Time, string) {
	c.mu.Lock()
	var done chan struct{}
	if !c.running && !c.closed && (c.at.IsZero() || now.Sub(c.at) >= max(c.every, 50*c.took)) {
		c.running, c.at = true, now
		done = make(chan struct{})
		c.scans.Add(1)
		go c.read(s, now, done)
	}
	first := c.st == nil && c.err == ""
	c.mu.Unlock()
	if first && done != nil {
		select {
		case <-done:
		case <-time.After(firstWait):
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st, c.at, c.err
}

// read reads the status, started at now, and closes done.
func (c *statusCache) read(s *Server, now time.Time, done chan struct{}) {
	defer c.scans.Done()
	defer close(done)
	if c.reading != nil {
		c.reading()
	}
	st, err := datadir.StatusOf(s.cfg.Crawl.Store(), s.cfg.Dir, s.cfg.Crawl.Stats().At)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.took, c.running = s.cfg.Now().Sub(now), false
	if err != nil {
		c.err = err.Error()
	} else {
		c.st, c.err = &st, ""
	}
}

// close starts no more reads and waits for the one running, if any.
func (c *statusCache) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.scans.Wait()
}
