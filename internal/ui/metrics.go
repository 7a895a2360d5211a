package ui

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/refresh"
	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// The metrics are freshcrawl_*. Labels stay bounded: a status class, a
// robots.txt outcome, a host state, and host names only for the top hosts
// (Config.Top). Every figure but the fetch histograms is read from the
// crawler at scrape time, from counters it keeps anyway, so a scrape costs
// the same at any collection size (BenchmarkScrape).

// fetchMetrics are counted from the crawler's events (Observe).
type fetchMetrics struct {
	responses *prometheus.CounterVec
	latency   prometheus.Histogram
	size      prometheus.Histogram
	gap       prometheus.Histogram

	mu      sync.Mutex
	lastEnd map[string]time.Time // host → when its last answer ended
}

// statusClasses are the values of the class label of
// freshcrawl_responses_total.
var statusClasses = []string{"network", "1xx", "2xx", "304", "3xx", "4xx", "5xx"}

func newFetchMetrics() *fetchMetrics {
	m := &fetchMetrics{
		responses: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "freshcrawl_responses_total",
			Help: "Page and sitemap fetches committed, by HTTP status class (network: no answer).",
		}, []string{"class"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "freshcrawl_fetch_duration_seconds",
			Help:    "Time from a page request to the end of its body.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}),
		size: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "freshcrawl_response_size_bytes",
			Help:    "Size of a page response body as received.",
			Buckets: prometheus.ExponentialBuckets(256, 4, 10),
		}),
		gap: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "freshcrawl_host_request_gap_seconds",
			Help: "Time from the end of a host's answer to its next page request: the politeness delay " +
				"(never less) and what the crawler adds to it.",
			Buckets: prometheus.ExponentialBuckets(25e-6, 2, 24),
		}),
		lastEnd: map[string]time.Time{},
	}
	for _, c := range statusClasses {
		m.responses.WithLabelValues(c)
	}
	return m
}

func (m *fetchMetrics) observe(e crawler.Event) {
	m.responses.WithLabelValues(statusClass(e.Status)).Inc()
	if e.Status == 0 {
		return
	}
	m.latency.Observe(e.Took.Seconds())
	m.size.Observe(float64(e.Bytes))
	// A host has one request in flight and its outcomes commit in order,
	// so its events come in the order of its requests.
	host := urlx.Authority(e.URL)
	m.mu.Lock()
	last, ok := m.lastEnd[host]
	m.lastEnd[host] = e.Started.Add(e.Took)
	m.mu.Unlock()
	if ok && !e.Started.IsZero() {
		m.gap.Observe(max(e.Started.Sub(last), 0).Seconds())
	}
}

func statusClass(status int) string {
	switch {
	case status == 0:
		return "network"
	case status == 304:
		return "304"
	case status >= 100 && status < 600:
		return statusClasses[status/100]
	}
	return "5xx"
}

func (m *fetchMetrics) Describe(ch chan<- *prometheus.Desc) {
	m.responses.Describe(ch)
	m.latency.Describe(ch)
	m.size.Describe(ch)
	m.gap.Describe(ch)
}

func (m *fetchMetrics) Collect(ch chan<- prometheus.Metric) {
	m.responses.Collect(ch)
	m.latency.Collect(ch)
	m.size.Collect(ch)
	m.gap.Collect(ch)
}

// collector reads the crawl's figures at scrape time.
type collector struct{ s *Server }

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("freshcrawl_"+name, help, labels, nil)
}

var (
	descCounters = map[string]*prometheus.Desc{
		"requests":   desc("requests_total", "HTTP requests made, robots.txt included."),
		"robots":     desc("robots_fetches_total", "robots.txt fetches."),
		"pages":      desc("pages_committed_total", "Page and sitemap outcomes committed."),
		"commits":    desc("commits_total", "Batches of outcomes committed, each with one WARC sync and one state sync."),
		"changed":    desc("changes_found_total", "Fetches that found changed content."),
		"notmod":     desc("not_modified_total", "304 answers to conditional requests."),
		"failures":   desc("failures_total", "Failed requests: network errors, 5xx, 429."),
		"disallowed": desc("disallowed_urls_total", "URLs robots.txt kept the crawler from."),
		"discovered": desc("discovered_urls_total", "URLs queued for the first time."),
		"outofscope": desc("out_of_scope_links_total", "Links not followed: outside the scope."),
		"trapped":    desc("trapped_links_total", "Links refused by the trap limits."),
		"bytes":      desc("response_bytes_total", "Response bytes as received."),
		"evicted":    desc("evicted_pages_total", "Pages that left a full collection for more important ones."),
		"seen":       desc("urls_seen_total", "URLs ever seen by the crawl."),
	}
	descBudget     = desc("budget_requests_per_second", "The fetch budget (0: none).")
	descBudgetUsed = desc("budget_used_ratio", "Requests since the start over budget × time (0 without a budget).")
	descHeld       = desc("pages_held", "Pages in the collection.")
	descQueued     = desc("urls_queued", "New URLs waiting in the hosts' queues.")
	descInFlight   = desc("requests_in_flight", "Hosts with a request in flight.")
	descUncommit   = desc("outcomes_uncommitted", "Answers read whose outcomes are not yet committed: being processed or waiting for a commit.")
	descHosts      = desc("hosts", "Hosts known, by state: busy, backing_off, waiting (on the politeness delay), ready, idle.", "state")
	descRobots     = desc("robots_hosts", "Hosts by what their robots.txt's last fetch said.", "outcome")
	descHostQueue  = desc("host_urls_queued", "New URLs queued on each of the hosts with the most.", "host")
	descFresh      = desc("expected_freshness", "Mean time-averaged freshness the crawler expects of its held pages, from its estimated change rates and revisit intervals.")
	descAge        = desc("expected_age_seconds", "Mean time-averaged age the crawler expects of its held pages.")
	descPlanned    = desc("pages_planned", "Pages held with a revisit interval, over which the expectations are taken.")
	descUnplanned  = desc("pages_unplanned", "Pages held with no revisit interval.")
	descRates      = desc("pages_by_change_rate", "Held pages whose estimated change rate is in the octave [from, 2·from) changes a day.", "from")
	descUnest      = desc("pages_unestimated", "Held pages without a change-rate estimate.")
	descTruth      = desc("true_freshness", "The held pages' true freshness, where the web's truth is known (demo).")
)

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range descCounters {
		ch <- d
	}
	for _, d := range []*prometheus.Desc{descBudget, descBudgetUsed, descHeld, descQueued, descInFlight, descUncommit, descHosts,
		descRobots, descHostQueue, descFresh, descAge, descPlanned, descUnplanned, descRates, descUnest, descTruth} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	cr := c.s.cfg.Crawl
	st := cr.Stats()
	e := cr.Refresh().Expected()
	counter := func(k string, v float64) {
		ch <- prometheus.MustNewConstMetric(descCounters[k], prometheus.CounterValue, v)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for k, v := range map[string]int64{
		"requests": st.Requests, "robots": st.Robots, "pages": st.Pages, "commits": st.Commits, "changed": st.Changed,
		"notmod": st.NotModified, "failures": st.Failures, "disallowed": st.Disallowed,
		"discovered": st.Discovered, "outofscope": st.OutOfScope, "trapped": st.Trapped,
		"bytes": st.Bytes, "evicted": st.Evicted, "seen": int64(st.Seen),
	} {
		counter(k, float64(v))
	}
	gauge(descUnplanned, float64(e.Others))
	gauge(descBudget, st.Budget)
	gauge(descBudgetUsed, st.BudgetUsed(crawler.Stats{}))
	gauge(descHeld, float64(st.Held))
	gauge(descQueued, float64(st.Queued))
	gauge(descInFlight, float64(st.InFlight))
	gauge(descUncommit, float64(st.Uncommitted))
	if e.Planned > 0 {
		gauge(descFresh, e.Freshness)
		gauge(descAge, e.Age)
	}
	gauge(descPlanned, float64(e.Planned))
	top, n := cr.Hosts(c.s.cfg.Top, st.At)
	for state, v := range map[string]int{"busy": n.Busy, "backing_off": n.BackingOff, "waiting": n.Waiting, "ready": n.Ready, "idle": n.Idle} {
		gauge(descHosts, float64(v), state)
	}
	for _, h := range top {
		gauge(descHostQueue, float64(h.Queued), h.Name)
	}
	rc := robotsCounts(cr.Robots())
	gauge(descRobots, float64(rc.Available), "available")
	gauge(descRobots, float64(rc.Unavailable), "unavailable")
	gauge(descRobots, float64(rc.Unreachable), "unreachable")
	h := cr.Refresh().RateHistogram()
	gauge(descUnest, float64(h[0]))
	for k := 1; k < len(h); k++ {
		if h[k] > 0 {
			gauge(descRates, float64(h[k]), strconv.FormatFloat(refresh.OctaveRate(k), 'g', -1, 64))
		}
	}
	if c.s.cfg.Truth != nil {
		gauge(descTruth, c.s.cfg.Truth())
	}
}
