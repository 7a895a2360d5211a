package simweb

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change/evolution"
	"github.com/freshcrawl/freshcrawl/internal/change/process"
	"github.com/freshcrawl/freshcrawl/internal/simweb/trap"
	"github.com/freshcrawl/freshcrawl/internal/simweb/words"
	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// ValidatorMode is how a site reports Last-Modified and ETag.
type ValidatorMode uint8

// Validator modes.
const (
	Honest ValidatorMode = iota
	Absent
	Wrong
)

func (m ValidatorMode) String() string { return [...]string{"honest", "absent", "wrong"}[m] }

// RobotsMode is how a host answers /robots.txt: 200, 404 or 500.
type RobotsMode uint8

const (
	RobotsOK RobotsMode = iota
	RobotsNotFound
	RobotsServerError
)

func (m RobotsMode) String() string { return [...]string{"200", "404", "500"}[m] }

// SitemapMode is whether a site has a sitemap and whether its lastmod values
// can be trusted.
type SitemapMode uint8

const (
	SitemapHonest SitemapMode = iota
	SitemapNone
	SitemapWrong
)

func (m SitemapMode) String() string { return [...]string{"honest", "none", "wrong"}[m] }

// Sitemap formats served by sites that have one.
const (
	sitemapXML   = iota // /sitemap.xml is a urlset
	sitemapIndex        // /sitemap.xml is an index of gzipped urlsets
	sitemapText         // /sitemap.txt, one URL a line
)

// Zone is the DNS zone all simweb hosts live under (RFC 2606 reserves .test).
const Zone = "test"

const day = 24 * time.Hour

// site is one host of the synthetic web.
type site struct {
	name       string
	domain     evolution.Domain
	process    process.Kind
	validators ValidatorMode
	robots     RobotsMode
	crawlDelay int // seconds; 0 = none declared
	sitemap    SitemapMode
	sitemapFmt int
	gzip       bool
	trap       bool

	first    int32 // global index of slot 0
	pages    int32
	clusters []cluster
	rules    []robotsRule // the "User-agent: *" group of robots.txt
	phase    int64        // quasi-deterministic publishing phase
	created  int64        // birth time of the site's permanent pages (negative)
	deploy   int64        // period of the deploys that stamp wrong validators
}

// cluster is a directory of a site: a dense, topical group of pages under
// one head page. Slots [start, end) belong to it; start is the head.
type cluster struct {
	start, end int32
	topic      int
	dir        string // URL directory, without slashes at the ends
	private    bool   // disallowed by robots.txt
}

// siteAlpha is the Pareto shape of site attractiveness, which decides
// where cross-site links go.
const siteAlpha = 1.2

// clusterSize is the target number of pages per directory.
const clusterSize = 100

// branching is the fan-out of the navigation tree inside a cluster.
const branching = 8

// Web is a synthetic web: hosts, pages, links and their change over
// simulated time. It is safe for concurrent use.
type Web struct {
	cfg     Config
	sites   []site
	byName  map[string]int32
	cum     []float64 // cumulative page attractiveness over global slots
	siteCum []float64 // cumulative site attractiveness
	corpus  words.Corpus
	clock   Clock

	cells []cell
	links []atomic.Pointer[[]link] // out-links per global slot, filled on first use
	locks [1 << 12]sync.Mutex
	reqs  []atomic.Uint64 // requests per site: the index for transient faults
	audit *Audit
	date  atomic.Pointer[httpDate]
	bomb  trap.Bomb
}

// cell caches the live incarnation of a slot and a cursor into its events.
type cell struct {
	born, died int64
	cur        cursor
	valid      bool
}

// New builds the web described by cfg. It allocates a few tens of bytes per
// page; pages, links and change times are generated on demand.
func New(cfg Config, clock Clock) (*Web, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("simweb config: %w", err)
	}
	if clock == nil {
		clock = NewWallClock(cfg.Speed)
	}
	w := &Web{
		cfg:    cfg,
		clock:  clock,
		byName: make(map[string]int32, cfg.Hosts),
	}
	w.corpus = words.NewCorpus(cfg.Seed ^ tagCorpus)
	w.buildSites()
	w.buildWeights()
	n := len(w.cum)
	w.cells = make([]cell, n)
	w.links = make([]atomic.Pointer[[]link], n)
	w.reqs = make([]atomic.Uint64, len(w.sites))
	w.audit = NewAudit(w, cfg.Audit)
	w.bomb.Size = cfg.Faults.BombBytes
	return w, nil
}

// Config returns the configuration the web was built from.
func (w *Web) Config() Config { return w.cfg }

// Clock returns the web's simulated clock.
func (w *Web) Clock() Clock { return w.clock }

// Audit returns the politeness audit of requests served so far.
func (w *Web) Audit() *Audit { return w.audit }

// NumPages returns the number of URL slots (pages alive at any instant).
func (w *Web) NumPages() int { return len(w.cum) }

func (w *Web) buildSites() {
	cfg := &w.cfg
	w.sites = make([]site, cfg.Hosts)
	first := int32(0)
	for i := range w.sites {
		r := splitmix.NewStream(splitmix.Hash2(cfg.Seed^tagSite, uint64(i)))
		s := &w.sites[i]
		// Domains by a golden-ratio sequence: Table 4.1's proportions hold
		// closely for any number of hosts, and the classes are interleaved.
		s.domain = evolution.DrawDomain(math.Mod(float64(i+1)*0.6180339887498949+splitmix.Unit(cfg.Seed), 1))
		s.name = fmt.Sprintf("h%d-%s.%s", i, tldFor(s.domain, r.Float64()), Zone)
		switch u := r.Float64(); {
		case u < cfg.ParetoShare:
			s.process = process.Pareto
		case u < cfg.ParetoShare+cfg.QDShare:
			s.process = process.QuasiDeterministic
		}
		switch u := r.Float64(); {
		case u < cfg.Validators.Absent:
			s.validators = Absent
		case u < cfg.Validators.Absent+cfg.Validators.Wrong:
			s.validators = Wrong
		}
		switch u := r.Float64(); {
		case u < cfg.Robots.NotFound:
			s.robots = RobotsNotFound
		case u < cfg.Robots.NotFound+cfg.Robots.ServerError:
			s.robots = RobotsServerError
		}
		if u := r.Float64(); s.robots == RobotsOK && u < cfg.Robots.CrawlDelay {
			s.crawlDelay = 1 + r.IntN(cfg.Robots.MaxCrawlDelay)
		}
		switch u := r.Float64(); {
		case u < cfg.Sitemaps.None:
			s.sitemap = SitemapNone
		case u < cfg.Sitemaps.None+cfg.Sitemaps.Wrong:
			s.sitemap = SitemapWrong
		}
		s.sitemapFmt = sitemapFormatOf(r.Float64(), cfg.Sitemaps.Text)
		s.gzip = r.Float64() < cfg.GzipShare
		s.trap = r.Float64() < cfg.Faults.Trap
		s.phase = int64(r.Float64() * float64(day))
		s.created = -int64((1 + 4*r.Float64()) * float64(365*day))
		s.deploy = int64((3 + 25*r.Float64()) * float64(day))
		s.first = first
		s.pages = int32(cfg.PagesPerHost)
		s.clusters = makeClusters(&r, s.pages, s.robots == RobotsOK)
		s.rules = s.robotsRules()
		first += s.pages
		w.byName[s.name] = int32(i)
	}
}

// tldFor names a site's top-level domain within its class, in the
// proportions of Table 4.1's footnotes (org 19 / net 11, gov 28 / mil 2).
func tldFor(d evolution.Domain, u float64) string {
	switch d {
	case evolution.NetOrg:
		if u < 19.0/30 {
			return "org"
		}
		return "net"
	case evolution.Gov:
		if u < 28.0/30 {
			return "gov"
		}
		return "mil"
	}
	return d.String()
}

// makeClusters splits slots 1..pages−1 into directories of about
// clusterSize pages, each with a topic; on hosts with a robots.txt, about
// one directory in six (at least one on hosts with several) is private.
func makeClusters(r *splitmix.Stream, pages int32, robots bool) []cluster {
	if pages <= 1 {
		return nil
	}
	n := int32(math.Round(float64(pages-1) / clusterSize))
	n = max(1, min(n, 64, pages-1))
	cs := make([]cluster, n)
	used := map[string]int{}
	size := (pages - 1) / n
	extra := (pages - 1) % n
	start := int32(1)
	for i := range cs {
		end := start + size
		if int32(i) < extra {
			end++
		}
		topic := words.DrawTopic(r.Float64())
		dir := words.Topics[topic]
		used[dir]++
		if used[dir] > 1 {
			dir += "-" + strconv.Itoa(used[dir])
		}
		private := robots && n > 1 && (i == int(n)-1 || r.Float64() < 1.0/6)
		if private {
			dir = "private/" + dir
		}
		cs[i] = cluster{start: start, end: end, topic: topic, dir: dir, private: private}
		start = end
	}
	// With two or more private directories, robots.txt allows the first one
	// back (a longer Allow beats the shorter Disallow: /private/).
	privates := 0
	for i := range cs {
		if cs[i].private {
			privates++
		}
	}
	if privates >= 2 {
		for i := range cs {
			if cs[i].private {
				cs[i].private = false
				break
			}
		}
	}
	return cs
}

// buildWeights draws each page's attractiveness: Pareto(WeightAlpha) with
// scale 1, the root 10× the site's largest.
// Links choose targets in proportion to it, which makes in-degree a power
// law with hubs (dissertation ch. 2, ch. 3: Zipfian in-degree).
func (w *Web) buildWeights() {
	total := 0
	for _, s := range w.sites {
		total += int(s.pages)
	}
	w.cum = make([]float64, total)
	acc := 0.0
	for i := range w.sites {
		s := &w.sites[i]
		ws := make([]float64, s.pages)
		maxW := 0.0
		for j := range ws {
			u := splitmix.Open(splitmix.Hash2(w.cfg.Seed^tagWeight, uint64(s.first)+uint64(j)))
			ws[j] = math.Pow(u, -1/w.cfg.WeightAlpha)
			maxW = max(maxW, ws[j])
		}
		ws[0] = 10 * maxW
		for j, x := range ws {
			acc += x
			w.cum[int(s.first)+j] = acc
		}
	}
	w.siteCum = make([]float64, len(w.sites))
	acc = 0
	for i := range w.sites {
		u := splitmix.Open(splitmix.Hash2(w.cfg.Seed^tagSiteWeight, uint64(i)))
		acc += math.Pow(u, -1/siteAlpha)
		w.siteCum[i] = acc
	}
}

// pickWeighted returns a global slot in [a, b) with probability
// proportional to its attractiveness.
func (w *Web) pickWeighted(a, b int32, u float64) int32 {
	lo := 0.0
	if a > 0 {
		lo = w.cum[a-1]
	}
	v := lo + u*(w.cum[b-1]-lo)
	// The first i in [a, b) with cum[i] > v (a hand-written sort.Search:
	// this is on the hot path of every page served).
	i, j := a, b
	for i < j {
		h := int32(uint32(i+j) >> 1)
		if w.cum[h] > v {
			j = h
		} else {
			i = h + 1
		}
	}
	return min(i, b-1)
}

func (w *Web) pickSite(u float64) int32 {
	v := u * w.siteCum[len(w.siteCum)-1]
	i := sort.Search(len(w.siteCum), func(i int) bool { return w.siteCum[i] > v })
	return int32(min(i, len(w.siteCum)-1))
}

// clusterOf returns the index of the cluster holding a site-local slot, or
// −1 for the root.
func (s *site) clusterOf(slot int32) int {
	if slot == 0 {
		return -1
	}
	return sort.Search(len(s.clusters), func(i int) bool { return s.clusters[i].end > slot })
}

// permanent reports whether a slot's page never dies: the root and the
// directory heads, which hold a site together as real sites' index pages do.
func (s *site) permanent(slot int32) bool {
	if slot == 0 {
		return true
	}
	c := s.clusterOf(slot)
	return s.clusters[c].start == slot
}

// lifetime returns the birth and death of generation gen of a slot.
// Lifetimes are exponential with the domain's mean (scaled by 1/Churn).
// Generation 0 is the page alive at time 0: by memorylessness its age and
// its remaining life are independent exponentials.
func (w *Web) lifetime(si, slot, gen int32) (born, died int64) {
	born, died = w.firstLife(si, slot)
	for k := int32(1); k <= gen && died != math.MaxInt64; k++ {
		born, died = died, w.nextDeath(si, slot, k, died)
	}
	return born, died
}

// genAt returns the generation of a slot alive at t (generation 0 for any
// t before its birth, which only happens for t < 0).
func (w *Web) genAt(si, slot int32, t int64) (gen int32, born, died int64) {
	born, died = w.firstLife(si, slot)
	for died <= t {
		gen++
		born, died = died, w.nextDeath(si, slot, gen, died)
	}
	return gen, born, died
}

// firstLife returns the birth and death of generation 0 of a slot.
func (w *Web) firstLife(si, slot int32) (born, died int64) {
	s := &w.sites[si]
	if s.permanent(slot) || w.cfg.Churn == 0 {
		return s.created, math.MaxInt64
	}
	return -w.lifeDraw(si, slot, 0), w.lifeDraw(si, slot, 1)
}

// nextDeath returns the death of generation gen ≥ 1, born at born.
func (w *Web) nextDeath(si, slot, gen int32, born int64) int64 {
	d := w.lifeDraw(si, slot, uint64(gen)+1)
	if born > math.MaxInt64-d {
		return math.MaxInt64
	}
	return born + d
}

// lifeDraw is the i-th exponential lifetime draw of a slot.
func (w *Web) lifeDraw(si, slot int32, i uint64) int64 {
	s := &w.sites[si]
	mean := float64(evolution.MeanLifespan[s.domain]) / w.cfg.Churn
	return clampNs(-math.Log(splitmix.Open(splitmix.Hash3(w.cfg.Seed^tagLife, uint64(s.first)+uint64(slot), i))) * mean)
}

// cachedGenAt is genAt answered from the slot's cache when the cached
// generation was alive at t (nearly always, for the link targets of a page
// being served), without touching the cache otherwise.
func (w *Web) cachedGenAt(si, slot int32, t int64) int32 {
	g := w.sites[si].first + slot
	mu := &w.locks[int(g)&(len(w.locks)-1)]
	mu.Lock()
	c := w.cells[g]
	mu.Unlock()
	if c.valid && c.born <= t && t < c.died {
		return c.cur.gen
	}
	gen, _, _ := w.genAt(si, slot, t)
	return gen
}

// incarnation builds the generation gen of a slot with the given life.
func (w *Web) incarnation(si, slot, gen int32, born, died int64) incarnation {
	s := &w.sites[si]
	key := splitmix.Hash3(w.cfg.Seed, uint64(s.first)+uint64(slot), uint64(gen))
	mean := evolution.DrawInterval(s.domain, splitmix.Unit(splitmix.Hash2(key^tagRate, 1)), splitmix.Unit(splitmix.Hash2(key^tagRate, 2)))
	in := incarnation{
		site: si, slot: slot, gen: gen, key: key, born: born, died: died,
		model: newChangeModel(s.process, mean, w.cfg.ParetoAlpha, s.phase),
	}
	in.origin = max(born, 0)
	in.lastMod0 = born
	if born < 0 {
		// The last change before time 0: a backward-recurrence draw (for
		// Poisson exact; for the others an independent draw from the same
		// equilibrium law), never before the birth.
		u := splitmix.Open(splitmix.Hash2(key^tagInterval, 0))
		var back int64
		if in.model.kind == process.QuasiDeterministic {
			back = in.model.period - in.model.nextSlot(0) + in.model.period*(in.model.geometric(u)-1)
		} else {
			back = in.model.residual(u)
		}
		in.lastMod0 = max(born, -back)
	}
	return in
}

// Version describes the state of one page at one instant, as the truth API
// reports it.
type Version struct {
	Site, Slot, Gen int32
	Alive           bool
	Version         uint32 // number of changes since the page was born (or since time 0)
	Modified        int64  // simulated ns when this version appeared
	Next            int64  // simulated ns of the next change (math.MaxInt64 if never)
	Born, Died      int64
	Rate            float64 // mean changes per second
	Process         process.Kind
}

// state returns the incarnation of a slot alive at t and the cursor at the
// last change at or before t, updating the slot's cache.
func (w *Web) state(si, slot int32, t int64) (incarnation, cursor) {
	g := w.sites[si].first + slot
	mu := &w.locks[int(g)&(len(w.locks)-1)]
	mu.Lock()
	c := w.cells[g]
	if !c.valid || t < c.born || t >= c.died {
		var gen int32
		gen, c.born, c.died = w.genAt(si, slot, t)
		c.cur = cursor{gen: gen, idx: 0, t: math.MinInt64}
		c.valid = true
	}
	in := w.incarnation(si, slot, c.cur.gen, c.born, c.died)
	if t < in.origin {
		mu.Unlock()
		return in, cursor{gen: in.gen, t: in.origin}
	}
	c.cur = in.seek(c.cur, t)
	w.cells[g] = c
	mu.Unlock()
	return in, c.cur
}

// VersionAt returns the state of slot slot of site si at simulated time t
// (nanoseconds since the epoch, t ≥ 0).
func (w *Web) VersionAt(si, slot int32, t int64) Version {
	in, c := w.state(si, slot, t)
	v := Version{
		Site: si, Slot: slot, Gen: in.gen, Alive: t >= in.born && t < in.died,
		Version: c.idx, Modified: in.lastModified(c), Born: in.born, Died: in.died,
		Rate: in.model.lambda, Process: in.model.kind, Next: math.MaxInt64,
	}
	if d := in.delta(c.idx + 1); c.t <= math.MaxInt64-d {
		v.Next = c.t + d
	}
	return v
}

// ChangeTime returns when version v of the incarnation gen of a slot
// appeared; v = 0 is its birth (or its last change before time 0).
func (w *Web) ChangeTime(si, slot, gen int32, v uint32) int64 {
	born, died := w.lifetime(si, slot, gen)
	in := w.incarnation(si, slot, gen, born, died)
	if v == 0 {
		return in.lastMod0
	}
	t := in.origin
	for i := uint32(1); i <= v; i++ {
		d := in.delta(i)
		if t > math.MaxInt64-d {
			return math.MaxInt64
		}
		t += d
	}
	return t
}

// ChangeTimes returns the change times of the incarnation gen of a slot in
// [from, to), in order.
func (w *Web) ChangeTimes(si, slot, gen int32, from, to int64) []int64 {
	born, died := w.lifetime(si, slot, gen)
	in := w.incarnation(si, slot, gen, born, died)
	var out []int64
	t := in.origin
	for i := uint32(1); ; i++ {
		d := in.delta(i)
		if t > math.MaxInt64-d || t+d >= to || t+d >= died {
			return out
		}
		t += d
		if t >= from {
			out = append(out, t)
		}
	}
}

// SiteName returns the host name of site si.
func (w *Web) SiteName(si int32) string { return w.sites[si].name }

// NumSites returns the number of hosts.
func (w *Web) NumSites() int { return len(w.sites) }

// PagesPerSite returns the number of URL slots on each host.
func (w *Web) PagesPerSite() int { return w.cfg.PagesPerHost }

// path returns the URL path of generation gen of a slot.
func (s *site) path(slot, gen int32) string {
	if slot == 0 {
		return "/"
	}
	c := &s.clusters[s.clusterOf(slot)]
	if c.start == slot {
		return "/" + c.dir + "/"
	}
	var b strings.Builder
	b.Grow(len(c.dir) + 20)
	b.WriteByte('/')
	b.WriteString(c.dir)
	b.WriteByte('/')
	b.WriteString(strconv.Itoa(int(slot)))
	if gen > 0 {
		b.WriteByte('-')
		b.WriteString(strconv.Itoa(int(gen)))
	}
	b.WriteString(".html")
	return b.String()
}

// parsePath maps a URL path to a slot and generation. ok is false for
// paths that are not pages of this site in their canonical form.
func (s *site) parsePath(p string) (slot, gen int32, ok bool) {
	if p == "/" {
		return 0, 0, true
	}
	if len(p) < 2 || p[0] != '/' {
		return 0, 0, false
	}
	if p[len(p)-1] == '/' {
		dir := p[1 : len(p)-1]
		for _, c := range s.clusters {
			if c.dir == dir {
				return c.start, 0, true
			}
		}
		return 0, 0, false
	}
	i := strings.LastIndexByte(p, '/')
	name, ok := strings.CutSuffix(p[i+1:], ".html")
	if !ok || i < 1 {
		return 0, 0, false
	}
	num, genStr, hasGen := strings.Cut(name, "-")
	n, err := strconv.ParseUint(num, 10, 31)
	if err != nil || num != strconv.FormatUint(n, 10) || n == 0 || n >= uint64(s.pages) {
		return 0, 0, false
	}
	slot = int32(n)
	if hasGen {
		g, err := strconv.ParseUint(genStr, 10, 31)
		if err != nil || g == 0 || genStr != strconv.FormatUint(g, 10) {
			return 0, 0, false
		}
		gen = int32(g)
	}
	c := &s.clusters[s.clusterOf(slot)]
	if c.start == slot || p[1:i] != c.dir {
		return 0, 0, false
	}
	return slot, gen, true
}

// Lookup maps an absolute URL (http://host/path) to its site and slot.
func (w *Web) Lookup(rawURL string) (si, slot, gen int32, err error) {
	host, path, ok := hostPath(rawURL)
	if !ok {
		return 0, 0, 0, fmt.Errorf("not an http URL: %q", rawURL)
	}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	si, ok2 := w.byName[strings.ToLower(stripPort(host))]
	if !ok2 {
		return 0, 0, 0, fmt.Errorf("unknown host in %q", rawURL)
	}
	slot, gen, ok = w.sites[si].parsePath(path)
	if !ok {
		return 0, 0, 0, fmt.Errorf("not a page URL: %q", rawURL)
	}
	return si, slot, gen, nil
}

// URL returns the absolute URL of generation gen of a slot.
func (w *Web) URL(si, slot, gen int32) string {
	s := &w.sites[si]
	return "http://" + s.name + s.path(slot, gen)
}

func stripPort(host string) string {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		host = host[:i]
	}
	return strings.TrimSuffix(host, ".")
}

// simTime converts nanoseconds since the epoch to a wall-clock date.
func (w *Web) simTime(ns int64) time.Time { return w.cfg.Epoch.Add(time.Duration(ns)) }

// Disallowed reports whether site si's robots.txt forbids path to userAgent.
func (w *Web) Disallowed(si int32, path, ua string) bool { return w.sites[si].disallowed(path, ua) }

// CrawlDelay returns the Crawl-delay of site si's robots.txt (0: none).
func (w *Web) CrawlDelay(si int32) time.Duration {
	return time.Duration(w.sites[si].crawlDelay) * time.Second
}

// Allowed reports whether the robots.txt of a URL's host lets userAgent
// fetch it: the same rule the audit counts disallowed requests by (a host
// whose robots.txt answers 500 allows nothing).
func (w *Web) Allowed(rawURL, userAgent string) bool {
	host, path, ok := hostPath(rawURL)
	si, known := w.byName[strings.ToLower(stripPort(host))]
	return ok && known && !w.sites[si].disallowed(path, userAgent)
}

// hostPath splits an http URL into its host and its path ("/" if none).
func hostPath(rawURL string) (host, path string, ok bool) {
	rest, ok := strings.CutPrefix(rawURL, "http://")
	host, path = rest, "/"
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		host, path = rest[:i], rest[i:]
	}
	return host, path, ok
}
