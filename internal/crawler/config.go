package crawler

import (
	"compress/gzip"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/crawler/budget"
	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/rank"
	"github.com/freshcrawl/freshcrawl/internal/refresh"
	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// Scope says which discovered URLs the crawler follows.
type Scope string

// Scopes. A URL is in scope if its host (ScopeHost) or its site, the
// registered domain (ScopeSite), is that of a seed; ScopeAny follows every
// link.
const (
	ScopeHost Scope = "host"
	ScopeSite Scope = "site"
	ScopeAny  Scope = "any"
)

// Defaults for zero fields of Config.
const (
	DefaultDelay          = time.Second
	DefaultMaxCrawlDelay  = time.Minute
	DefaultWorkers        = 256
	DefaultMaxURLsPerHost = 100_000
	DefaultMaxRedirects   = 5
	DefaultMaxAttempts    = 3
	DefaultMaxBackoff     = 10 * time.Minute
	DefaultMaxRetryAfter  = time.Hour
	DefaultWARCSize       = 1 << 30
	DefaultSitemapURLs    = 50_000
)

// Config configures a Crawler. A zero field takes its documented default,
// so Config{DataDir: d, Seeds: s} is a polite crawl of the seeds' sites.
type Config struct {
	// Seeds are the URLs the crawl starts from; they are added to the
	// frontier (once: a seed already seen is not queued again) and define
	// the scope. A restarted crawl may give none.
	Seeds []string
	// DataDir holds the crawl: state/ (Pebble) and warc/ (WARC files).
	DataDir string
	// Scope is which links are followed; empty means the one the data
	// directory's crawl had, else ScopeSite.
	Scope Scope
	// MaxPages is the collection's capacity: once this many pages are held,
	// no new URL is fetched, only revisits, unless an Ordering other than
	// breadth-first finds a URL more important than the least important
	// page held, which then leaves the collection for it. Zero means no
	// limit.
	MaxPages int
	// Ordering is how new URLs are chosen (dissertation ch. 2): in the
	// order found, rank.OrderBreadthFirst (empty means it), or by an
	// importance estimate over the link graph fetched so far:
	// rank.OrderBacklink (IB'), rank.OrderPageRank (IR') or
	// rank.OrderTopic, §2.5.4's similarity crawler (Algorithm 2.5.2) for
	// the word Topic: URLs whose link text or URL names it come first,
	// each group in the order found, and under refinement the pages hot
	// for it (rank.TopicHot) are the ones kept.
	Ordering rank.Ordering
	// RankInterval is how often the ordering's importance is recomputed;
	// zero means DefaultRankInterval.
	RankInterval time.Duration
	// Topic is the word rank.OrderTopic looks for (one word, compared in lower
	// case).
	Topic string
	// Budget is the global rate of requests, per second, over all hosts.
	// Zero means no limit other than politeness and Workers. With a Pool
	// (a cluster node's, shared by its partitions) the requests draw on
	// the pool's slots (budget.Share) and Budget is the crawl's share of
	// them: what it reports, and what its refresh plan divides unless the
	// cluster's plan is set (refresh.Module.SetShared).
	Budget float64
	Pool   *budget.Limiter
	// Delay is the least time between the end of one request to a host
	// and the start of the next. Zero means DefaultDelay; negative means
	// no delay (for benchmarks on one's own servers).
	Delay time.Duration
	// MaxCrawlDelay caps a robots.txt Crawl-delay; a host asking for more
	// gets this much. Zero means DefaultMaxCrawlDelay.
	MaxCrawlDelay time.Duration
	// Revisit is the interval at which held pages are fetched again. Zero
	// means the uniform interval that fits the budget: capacity / Budget,
	// capacity being MaxPages or, if that is unlimited, the pages held and
	// the new URLs queued (so revisits take the share of the budget the
	// pages held are of it, and discovery the rest), or
	// refresh.DefaultRevisit without a budget.
	Revisit time.Duration
	// Workers bounds the requests in flight at once. Zero means
	// DefaultWorkers.
	Workers int
	// MaxURLsPerHost bounds the URLs ever queued for one host (a trap
	// defence). Zero means DefaultMaxURLsPerHost; negative means no limit.
	MaxURLsPerHost int
	// Limits is the trap policy applied to every discovered URL.
	Limits urlx.Limits
	// MaxRedirects bounds a chain of redirects; each hop is its own polite
	// request. Zero means DefaultMaxRedirects.
	MaxRedirects int
	// MaxAttempts is how often a fetch that failed transiently (network
	// error, 5xx, 429) is tried before the failure is recorded. Zero means
	// DefaultMaxAttempts.
	MaxAttempts int
	// FollowNofollow, when true, follows rel="nofollow" links and the links
	// of pages whose robots meta tag says nofollow.
	FollowNofollow bool
	// Owns, when set, makes the crawl one partition of a cluster
	// (internal/cluster): a URL it does not own is not queued. Links to
	// such URLs that Outbox (if set) accepts go to the store's outbox, in
	// the transaction of the page that found them, for the cluster to send
	// to their owners (exchange mode); the rest are dropped (firewall mode,
	// replicated URLs). Admit queues what the other partitions send.
	Owns, Outbox func(url string) bool
	// Fetch configures the HTTP client (user agent, limits, private
	// addresses, resolver overrides). MaxConnsPerHost is forced to 1.
	Fetch fetch.Config
	// RobotsTTL is how long a robots.txt is trusted; zero means 24 h.
	RobotsTTL time.Duration
	// WARCMaxSize is the size at which a WARC file is finished; zero means
	// 1 GiB. WARCGzipLevel is the gzip level of its records; zero means
	// gzip.BestSpeed (records are compressed one by one, and at level 1 the
	// crawler spends half the CPU it would at 6 for files a quarter larger).
	WARCMaxSize   int64
	WARCGzipLevel int
	// NoSync skips fsync on state commits and WARC flushes: a killed
	// process loses nothing, a crashed machine may. For benchmarks.
	NoSync bool
	// Logger receives the crawl's log; nil means slog.Default().
	Logger *slog.Logger
	// Now tells the time the crawl records and decides by (fetch times,
	// due revisits, back-offs); nil means time.Now. It must advance with
	// the runtime's timers, which the crawler waits on: a
	// testing/synctest bubble makes both virtual.
	Now func() time.Time
	// Fetcher makes the requests; nil means a fetch.Fetcher configured by
	// Fetch (and Now).
	Fetcher Fetcher
	// Archive receives the WARC records; nil means WARC files in
	// DataDir/warc, whose torn tails a restart repairs.
	Archive Archive
	// OnFetch, if set, is called after the outcome of each page fetch is
	// committed. The Event's Body is valid only during the call. Calls come
	// from one goroutine and must be quick.
	OnFetch func(Event)
	// RobotsErrorTTL is how long a robots.txt that could not be read
	// (network error, 5xx, 429 after MaxAttempts tries) keeps its host
	// shut; zero means 10 minutes.
	RobotsErrorTTL time.Duration
	// ChangeDecay is the time constant of the change-rate estimators'
	// forgetting: an observation made that long ago weighs 1/e of a new
	// one, so estimates follow pages whose rate changes. Zero means
	// refresh.DefaultChangeMemory revisit intervals; negative, no forgetting.
	ChangeDecay time.Duration
	// TimeScale is how many seconds pass on the servers' clocks for each
	// second of the crawler's: 1 on the real web, the speed-up of a
	// simulated web like simweb's. It relates Last-Modified ages to the
	// crawler's clock. Zero means 1.
	TimeScale float64

	// Policy is the refresh policy, which decides when each held page is
	// fetched again (see refresh.Names). Empty means refresh.Optimal.
	// With an explicit Revisit interval and no Budget, refresh.Optimal
	// and refresh.Proportional divide the same number of visits (the
	// collection every Revisit) as the uniform policy would.
	Policy refresh.Name
	// Objective is what refresh.Optimal optimises; empty means
	// refresh.Freshness.
	Objective refresh.Objective
	// NoSignals reads sitemaps for new URLs only, never for their lastmod
	// dates (refresh.Config.NoSignals).
	NoSignals bool
	// CrawlCost is, for refresh.Cost, what one fetch costs in seconds of
	// a page being stale on the servers' clock (paper 001's C_c/C_s).
	// Zero means refresh.DefaultCrawlCost.
	CrawlCost time.Duration
	// MaxRevisit is the longest interval a held page waits, on the
	// servers' clock; pages the optimal policy gives up are probed this
	// often so that a wrong estimate is corrected. Zero means
	// refresh.DefaultMaxRevisits uniform intervals.
	MaxRevisit time.Duration
}

// Orderings lists the orderings a crawl takes: all of rank's but
// rank.OrderRandom, a baseline for figures, not a way to crawl.
var Orderings = []rank.Ordering{rank.OrderBreadthFirst, rank.OrderBacklink, rank.OrderPageRank, rank.OrderTopic}

// Ranking defaults.
const (
	// DefaultRankInterval is how often the ranking is recomputed.
	DefaultRankInterval = 5 * time.Second
	// promoteFactor sets how many frontier URLs one ranking hands out,
	// per worker: enough to keep every worker on important pages until
	// the next.
	promoteFactor = 16
)

// ErrConfig is wrapped by New's errors about the configuration.
var ErrConfig = errors.New("invalid crawl configuration")

// defaults fills the zero fields of c with their defaults and reports
// the first field that is wrong, wrapping ErrConfig.
func (c *Config) defaults() error {
	for _, step := range []func() error{c.collection, c.politeness, c.limits, c.ordering} {
		if err := step(); err != nil {
			return err
		}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if err := c.refresh().Check(); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return nil
}

// collection checks what the crawl keeps: where, what scope, how much.
func (c *Config) collection() error {
	if c.DataDir == "" {
		return fmt.Errorf("%w: no data directory", ErrConfig)
	}
	switch c.Scope {
	case "", ScopeHost, ScopeSite, ScopeAny: // "": the crawl's own (New)
	default:
		return fmt.Errorf("%w: scope %q (want host, site or any)", ErrConfig, c.Scope)
	}
	switch {
	case c.MaxPages < 0:
		return fmt.Errorf("%w: max pages %d < 0", ErrConfig, c.MaxPages)
	case !(c.Budget >= 0) || math.IsInf(c.Budget, 1) || c.Pool != nil && c.Budget == 0:
		return fmt.Errorf("%w: budget %g (want a finite rate ≥ 0, > 0 with a pool)", ErrConfig, c.Budget)
	case c.Revisit < 0:
		return fmt.Errorf("%w: revisit interval %v < 0", ErrConfig, c.Revisit)
	}
	return nil
}

// politeness sets the defaults of how the crawl treats a host.
func (c *Config) politeness() error {
	switch {
	case c.Delay == 0:
		c.Delay = DefaultDelay
	case c.Delay < 0:
		c.Delay = 0
	}
	if c.MaxCrawlDelay <= 0 {
		c.MaxCrawlDelay = DefaultMaxCrawlDelay
	}
	if c.RobotsTTL <= 0 {
		c.RobotsTTL = 24 * time.Hour
	}
	if c.RobotsErrorTTL <= 0 {
		c.RobotsErrorTTL = 10 * time.Minute
	}
	if c.MaxRedirects <= 0 {
		c.MaxRedirects = DefaultMaxRedirects
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.Fetch.UserAgent == "" {
		c.Fetch.UserAgent = fetch.DefaultUserAgent
	}
	c.Fetch.MaxConnsPerHost = 1
	return nil
}

// limits sets the defaults of what bounds the crawl's resources.
func (c *Config) limits() error {
	if c.Workers <= 0 {
		c.Workers = DefaultWorkers
	}
	switch {
	case c.MaxURLsPerHost == 0:
		c.MaxURLsPerHost = DefaultMaxURLsPerHost
	case c.MaxURLsPerHost < 0:
		c.MaxURLsPerHost = 0
	}
	if c.WARCMaxSize == 0 {
		c.WARCMaxSize = DefaultWARCSize
	}
	if c.WARCGzipLevel == 0 {
		c.WARCGzipLevel = gzip.BestSpeed
	}
	if c.WARCGzipLevel < gzip.HuffmanOnly || c.WARCGzipLevel > gzip.BestCompression {
		return fmt.Errorf("%w: gzip level %d", ErrConfig, c.WARCGzipLevel)
	}
	return nil
}

// ordering checks how new URLs are chosen.
func (c *Config) ordering() error {
	if c.Ordering == "" {
		c.Ordering = rank.OrderBreadthFirst
	}
	if !slices.Contains(Orderings, c.Ordering) {
		return fmt.Errorf("%w: ordering %q (want breadth-first, backlink, pagerank or topic)", ErrConfig, c.Ordering)
	}
	c.Topic = strings.ToLower(strings.TrimSpace(c.Topic))
	switch {
	case c.Ordering == rank.OrderTopic && c.Topic == "":
		return fmt.Errorf("%w: topic ordering without a topic word", ErrConfig)
	case strings.ContainsAny(c.Topic, " \t\n"):
		return fmt.Errorf("%w: topic %q is more than one word", ErrConfig, c.Topic)
	case c.RankInterval < 0:
		return fmt.Errorf("%w: rank interval %v < 0", ErrConfig, c.RankInterval)
	case c.RankInterval == 0:
		c.RankInterval = DefaultRankInterval
	}
	return nil
}

// refresh is the configuration of the crawl's refresh module.
func (c *Config) refresh() refresh.Config {
	return refresh.Config{
		Policy: c.Policy, Objective: c.Objective, CrawlCost: c.CrawlCost, MaxRevisit: c.MaxRevisit,
		Revisit: c.Revisit, Budget: c.Budget, Capacity: c.MaxPages, ChangeDecay: c.ChangeDecay,
		TimeScale: c.TimeScale, Logger: c.Logger, Now: c.Now, NoSignals: c.NoSignals,
	}
}
