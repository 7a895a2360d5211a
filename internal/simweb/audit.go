package simweb

import (
	"net/url"
	"strings"
	"sync"
	"time"
)

// Audit records, per host, when requests start and end, and counts every
// breach of politeness: a request less than MinDelay after the previous one
// to the same host (start to start), more than MaxInFlight requests to one
// host at once, a request sooner than the host's robots.txt Crawl-delay
// allows, and a request for a URL robots.txt disallows (on hosts whose
// robots.txt answers 500, every URL but /robots.txt is disallowed, RFC 9309
// §2.3.1.4). Times are wall-clock: politeness is about real load.
type Audit struct {
	hosts AuditHosts
	mu    sync.Mutex
	st    auditState
}

// AuditHosts are the hosts an audit watches, numbered from 0.
type AuditHosts interface {
	NumSites() int
	SiteName(si int32) string
	Disallowed(si int32, path, userAgent string) bool
	CrawlDelay(si int32) time.Duration
}

// auditState is everything Reset clears.
type auditState struct {
	cfg   AuditConfig
	start time.Time
	hosts []hostAudit

	requests                       uint64
	delay, concurrency, crawlDelay uint64
	disallowed                     uint64
	examples                       []Violation
	maxInFlightSeen                int
	minGap                         time.Duration
	gapSeen                        bool
}

type hostAudit struct {
	requests  uint64
	lastStart time.Duration
	inFlight  int
}

// maxExamples bounds the violations kept in detail; counts stay exact.
const maxExamples = 200

// Violation is one breach of politeness.
type Violation struct {
	Kind     string        `json:"kind"` // delay, concurrency, crawl-delay, disallowed
	Host     string        `json:"host"`
	Path     string        `json:"path"`
	At       time.Duration `json:"at_ns"`               // since the audit started
	Gap      time.Duration `json:"gap_ns,omitempty"`    // since the previous request to the host
	Limit    time.Duration `json:"limit_ns,omitempty"`  // the delay that was due
	InFlight int           `json:"in_flight,omitempty"` // requests to the host at once, this one included
}

// AuditReport summarises the audit.
type AuditReport struct {
	Since                 time.Time     `json:"since"`
	MinDelay              time.Duration `json:"min_delay_ns"`
	MaxInFlight           int           `json:"max_in_flight"`
	Requests              uint64        `json:"requests"`
	Hosts                 int           `json:"hosts"`
	DelayViolations       uint64        `json:"delay_violations"`
	ConcurrencyViolations uint64        `json:"concurrency_violations"`
	CrawlDelayViolations  uint64        `json:"crawl_delay_violations"`
	DisallowedRequests    uint64        `json:"disallowed_requests"`
	MinGap                time.Duration `json:"min_gap_ns"`         // smallest start-to-start gap seen on any host
	MaxInFlightSeen       int           `json:"max_in_flight_seen"` // largest concurrency seen on any host
	Examples              []Violation   `json:"examples"`
}

// Violations returns the total number of violations of every kind.
func (r AuditReport) Violations() uint64 {
	return r.DelayViolations + r.ConcurrencyViolations + r.CrawlDelayViolations + r.DisallowedRequests
}

// NewAudit returns an audit of the hosts with the given thresholds; a
// server calls Begin and End around every request.
func NewAudit(hosts AuditHosts, cfg AuditConfig) *Audit {
	a := &Audit{hosts: hosts}
	a.Reset(cfg)
	return a
}

// Reset clears the audit and starts a new one with the given thresholds.
func (a *Audit) Reset(cfg AuditConfig) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.st = auditState{cfg: cfg, start: time.Now(), hosts: make([]hostAudit, a.hosts.NumSites())}
}

// Begin records the start of a request to host si; End must follow when
// it ends.
func (a *Audit) Begin(si int32, path, userAgent string) {
	disallowed := a.hosts.Disallowed(si, path, userAgent)
	name, crawlDelay := a.hosts.SiteName(si), a.hosts.CrawlDelay(si)
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Since(a.st.start)
	h := &a.st.hosts[si]
	a.st.requests++
	h.inFlight++
	add := func(v Violation) {
		v.Host, v.Path, v.At = name, path, now
		if len(a.st.examples) < maxExamples {
			a.st.examples = append(a.st.examples, v)
		}
	}
	if h.inFlight > a.st.maxInFlightSeen {
		a.st.maxInFlightSeen = h.inFlight
	}
	if a.st.cfg.MaxInFlight > 0 && h.inFlight > a.st.cfg.MaxInFlight {
		a.st.concurrency++
		add(Violation{Kind: "concurrency", InFlight: h.inFlight})
	}
	if h.requests > 0 {
		gap := now - h.lastStart
		if !a.st.gapSeen || gap < a.st.minGap {
			a.st.minGap, a.st.gapSeen = gap, true
		}
		if a.st.cfg.MinDelay > 0 && gap < a.st.cfg.MinDelay {
			a.st.delay++
			add(Violation{Kind: "delay", Gap: gap, Limit: a.st.cfg.MinDelay})
		}
		if cd := crawlDelay; cd > 0 && gap < cd {
			a.st.crawlDelay++
			add(Violation{Kind: "crawl-delay", Gap: gap, Limit: cd})
		}
	}
	if disallowed {
		a.st.disallowed++
		add(Violation{Kind: "disallowed"})
	}
	h.requests++
	h.lastStart = now
}

func (a *Audit) config() AuditConfig {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.st.cfg
}

// End records the end of a request to host si.
func (a *Audit) End(si int32) {
	a.mu.Lock()
	a.st.hosts[si].inFlight--
	a.mu.Unlock()
}

// Report returns the audit so far.
func (a *Audit) Report() AuditReport {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := AuditReport{
		Since: a.st.start, MinDelay: a.st.cfg.MinDelay, MaxInFlight: a.st.cfg.MaxInFlight,
		Requests: a.st.requests, DelayViolations: a.st.delay, ConcurrencyViolations: a.st.concurrency,
		CrawlDelayViolations: a.st.crawlDelay, DisallowedRequests: a.st.disallowed,
		MinGap: a.st.minGap, MaxInFlightSeen: a.st.maxInFlightSeen,
		Examples: append([]Violation(nil), a.st.examples...),
	}
	for _, h := range a.st.hosts {
		if h.requests > 0 {
			r.Hosts++
		}
	}
	return r
}

// disallowed reports whether robots.txt forbids a path to a user agent on
// this host. The rules simweb writes are plain prefixes, so longest-prefix
// matching with Allow winning ties (RFC 9309 §2.2.2) is exact here.
func (s *site) disallowed(path, userAgent string) bool {
	if path == "/robots.txt" {
		return false
	}
	switch s.robots {
	case RobotsNotFound:
		return false
	case RobotsServerError:
		return true
	}
	if containsFold(userAgent, badBot) {
		return true
	}
	if strings.IndexByte(path, '%') >= 0 {
		if p, err := url.PathUnescape(path); err == nil {
			path = p
		}
	}
	best, allow := -1, true
	for _, r := range s.rules {
		if strings.HasPrefix(path, r.prefix) && (len(r.prefix) > best || len(r.prefix) == best && r.allow) {
			best, allow = len(r.prefix), r.allow
		}
	}
	return !allow
}

// badBot is the user agent that one group of every robots.txt shuts out.
const badBot = "badbot"

type robotsRule struct {
	allow  bool
	prefix string
}

// containsFold reports whether lower, a lower-case ASCII string, is in s,
// ignoring ASCII case, without allocating.
func containsFold(s, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		j := 0
		for ; j < len(lower); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lower[j] {
				break
			}
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}

// robotsRules are the rules of the "User-agent: *" group.
func (s *site) robotsRules() []robotsRule {
	rules := []robotsRule{{false, "/private/"}, {false, "/cgi-bin/"}}
	for _, c := range s.clusters {
		if !c.private && strings.HasPrefix(c.dir, "private/") {
			rules = append(rules, robotsRule{true, "/" + c.dir + "/"})
		}
	}
	return rules
}
