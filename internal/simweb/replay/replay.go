// Package replay serves a page-change history (internal/history) as a live
// site over HTTP, in compressed time, with the truth simweb has: which
// version of every page is live, so a crawler's collection can be scored
// exactly. The pages are split, in key order, into hosts of Group pages
// under simweb's .test zone; each host has a robots.txt that allows all,
// an index page at / linking every page live on it, and a sitemap. This
// file builds the world and answers questions about it; serve.go serves
// it, control.go is its control API, discovery.go measures how soon new
// pages were found.
package replay

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/history"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/simweb/words"
)

// Config describes how a history is replayed. Zero values take the
// defaults noted.
type Config struct {
	Speed float64   // simulated seconds per wall second (0: 86,400, a history day per second)
	From  time.Time // the instant simulated time starts at (zero: the history's first event)
	To    time.Time // the instant it stops at, the world frozen from then on (zero: never)
	Group int       // pages per host (0: 100)
	Name  string    // the hosts' label: h0-NAME.test, h1-NAME.test, … (empty: "replay")
	Audit simweb.AuditConfig
}

// Server is a history served as a live site. It is safe for concurrent use.
type Server struct {
	h      *history.History
	cfg    Config
	clock  simweb.Clock
	from   int64 // unix seconds at clock time 0
	to     int64 // unix seconds where time stops (math.MaxInt64: never)
	hosts  []host
	byName map[string]int32
	audit  *simweb.Audit
	corpus words.Corpus
}

// host is one virtual host: pages [first, first+n) of the history, and its
// index page, whose versions are the changes of the set of live pages.
type host struct {
	name     string
	first, n int
	index    history.Page
}

// New returns the server of h. With a nil clock, simulated time runs at
// cfg.Speed from now.
func New(h *history.History, cfg Config, clock simweb.Clock) (*Server, error) {
	if len(h.Pages) == 0 {
		return nil, errors.New("replay: the history has no pages")
	}
	if cfg.Speed == 0 {
		cfg.Speed = 86400
	}
	if cfg.Group == 0 {
		cfg.Group = 100
	}
	if cfg.Name == "" {
		cfg.Name = "replay"
	}
	if cfg.Speed < 0 || cfg.Group < 0 || strings.ContainsAny(cfg.Name, "./: ") {
		return nil, fmt.Errorf("replay: speed and group must be positive and the name a DNS label, got %g, %d, %q", cfg.Speed, cfg.Group, cfg.Name)
	}
	first, _ := h.Span()
	s := &Server{h: h, cfg: cfg, clock: clock, from: first, to: math.MaxInt64, byName: map[string]int32{}}
	if !cfg.From.IsZero() {
		s.from = cfg.From.Unix()
	}
	if !cfg.To.IsZero() {
		s.to = cfg.To.Unix()
		if s.to <= s.from {
			return nil, fmt.Errorf("replay: the end %v is not after the start %v", cfg.To.UTC(), time.Unix(s.from, 0).UTC())
		}
	}
	if s.clock == nil {
		s.clock = simweb.NewWallClock(cfg.Speed)
	}
	for i := 0; i*cfg.Group < len(h.Pages); i++ {
		hs := host{name: fmt.Sprintf("h%d-%s.%s", i, cfg.Name, simweb.Zone), first: i * cfg.Group, n: min(cfg.Group, len(h.Pages)-i*cfg.Group)}
		hs.index = indexPage(h.Pages[hs.first:hs.first+hs.n], first)
		s.byName[hs.name] = int32(i)
		s.hosts = append(s.hosts, hs)
	}
	s.audit = simweb.NewAudit(s, cfg.Audit)
	s.corpus = words.NewCorpus(0x7265706c6179)
	return s, nil
}

// indexPage returns the truth of a host's index page: version 1 at the
// history's start, and a new version at every creation and deletion among
// its pages after that.
func indexPage(pages []history.Page, start int64) history.Page {
	times := []int64{start}
	for _, p := range pages {
		for i, e := range p.Events {
			if (i == 0 || e.Deleted || p.Events[i-1].Deleted) && e.Time > start {
				times = append(times, e.Time)
			}
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	ev := make([]history.Event, len(times))
	for i, t := range times {
		ev[i].Time = t
	}
	p, _ := history.NewPage("/", ev) // sorted, distinct, all plain: valid
	return p
}

// Clock returns the server's simulated clock (time since the start).
func (s *Server) Clock() simweb.Clock { return s.clock }

// Speed returns simulated seconds per wall second.
func (s *Server) Speed() float64 { return s.cfg.Speed }

// Audit returns the politeness audit of requests served so far.
func (s *Server) Audit() *simweb.Audit { return s.audit }

// History returns the history served.
func (s *Server) History() *history.History { return s.h }

// Instant returns the history instant (unix seconds) at clock time d,
// held at To once it is reached.
func (s *Server) Instant(d time.Duration) int64 {
	return min(s.from+int64(d/time.Second), s.to)
}

// NumSites returns the number of hosts.
func (s *Server) NumSites() int { return len(s.hosts) }

// SiteName returns the name of host si.
func (s *Server) SiteName(si int32) string { return s.hosts[si].name }

// Disallowed reports false: every host's robots.txt allows all.
func (s *Server) Disallowed(int32, string, string) bool { return false }

// CrawlDelay returns 0: no host declares a Crawl-delay.
func (s *Server) CrawlDelay(int32) time.Duration { return 0 }

// Seeds returns every host's index page.
func (s *Server) Seeds() []string {
	out := make([]string, len(s.hosts))
	for i, h := range s.hosts {
		out[i] = "http://" + h.name + "/"
	}
	return out
}

// Hosts describes every host, as simweb's /hosts does.
func (s *Server) Hosts() []simweb.HostInfo {
	out := make([]simweb.HostInfo, len(s.hosts))
	for i, h := range s.hosts {
		out[i] = simweb.HostInfo{Name: h.name, Domain: s.cfg.Name, Pages: h.n, Process: "replay", Validators: "honest",
			Robots: "200", Sitemap: "honest", SitemapURL: "http://" + h.name + "/sitemap.xml"}
	}
	return out
}

// LivePages returns the pages live at clock time d, the hosts' index pages
// included: what a crawler could hold then.
func (s *Server) LivePages(d time.Duration) int {
	t := s.Instant(d)
	n := len(s.hosts)
	for i := range s.h.Pages {
		if s.h.Pages[i].At(t).Exists {
			n++
		}
	}
	return n
}

// Capacity is the collection size a crawl of the history should have: 0,
// no limit. Its pages are all worth holding, and pages are born as it
// runs; with no limit the crawler sizes the revisits' share of its budget
// by the URLs it has seen, not by a capacity it has yet to reach.
func (s *Server) Capacity(time.Duration) int { return 0 }

// reserved are the paths a host serves itself; a page whose key is one of
// them is served at "/_" + key.
var reserved = []string{"/", "/robots.txt", "/sitemap.xml"}

// pathOf returns where the page of a key is served.
func pathOf(key string) string {
	if slices.Contains(reserved, key) || strings.HasPrefix(key, "/_/") {
		return "/_" + key
	}
	return key
}

// URL returns the URL of page i of the history.
func (s *Server) URL(i int) string {
	return "http://" + s.hosts[i/s.cfg.Group].name + pathOf(s.h.Pages[i].Key)
}

// page returns the index of the page a host serves at path, or -1.
func (s *Server) page(si int32, path string) int {
	key := path
	if k, ok := strings.CutPrefix(path, "/_"); ok && strings.HasPrefix(k, "/") {
		key = k
	} else if pathOf(key) != key {
		return -1
	}
	h := &s.hosts[si]
	pages := s.h.Pages[h.first : h.first+h.n]
	i := sort.Search(len(pages), func(i int) bool { return pages[i].Key >= key })
	if i == len(pages) || pages[i].Key != key {
		return -1
	}
	return h.first + i
}

// lookup returns the truth of a URL: a page of the history or a host's
// index page, and the host; nil if the URL is neither.
func (s *Server) lookup(rawURL string) (*history.Page, int32) {
	rest, ok := strings.CutPrefix(rawURL, "http://")
	if !ok {
		return nil, -1
	}
	name, path := rest, "/"
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		name, path = rest[:i], rest[i:]
	}
	si, ok := s.byName[strings.ToLower(name)]
	switch {
	case !ok:
		return nil, -1
	case path == "/":
		return &s.hosts[si].index, si
	}
	if i := s.page(si, path); i >= 0 {
		return &s.h.Pages[i], si
	}
	return nil, -1
}

// Evaluate computes the freshness and mean age at clock time d of a
// collection of copies (URL and version), by history.Evaluate's rules.
func (s *Server) Evaluate(d time.Duration, copies []simweb.Copy) simweb.Quality {
	return history.Evaluate(s.Instant(d), copies, func(u string) *history.Page {
		p, _ := s.lookup(u)
		return p
	})
}

// Truth returns the ground truth about a URL at clock time d, in simweb's
// shape. The rate is the page's modifications per day of its existence
// over the whole history (its change rate on average, not at d).
func (s *Server) Truth(rawURL string, d time.Duration) (simweb.PageTruth, error) {
	p, _ := s.lookup(rawURL)
	if p == nil {
		return simweb.PageTruth{}, fmt.Errorf("truth: not a page URL: %q", rawURL)
	}
	t := s.Instant(d)
	st := p.At(t)
	tr := simweb.PageTruth{URL: rawURL, Alive: st.Exists, Born: unix(p.Created()), Process: "replay"}
	if st.Exists {
		tr.Version, tr.Modified = st.Version, unix(st.Since)
	}
	if st.Next != math.MaxInt64 {
		tr.Next = unix(st.Next)
		if i := sort.Search(len(p.Events), func(i int) bool { return p.Events[i].Time >= st.Next }); p.Events[i].Deleted {
			tr.Died = tr.Next
		}
	}
	end := max(s.h.End, p.Events[len(p.Events)-1].Time)
	if n, alive := p.Modifications(end); alive > 0 {
		tr.Rate = float64(n) / (float64(alive) / 86400)
	}
	return tr, nil
}

func unix(sec int64) time.Time { return time.Unix(sec, 0).UTC() }

// Now returns the history instant being served, as a date.
func (s *Server) Now() time.Time { return unix(s.Instant(s.clock.Now())) }
