package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/datadir"
	"github.com/freshcrawl/freshcrawl/internal/dataset"
	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/rank"
	"github.com/freshcrawl/freshcrawl/internal/refresh"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// Defaults of the crawl command where they differ from crawler.Config's.
const (
	defaultDataDir  = "crawl-data"
	defaultBudget   = 10 // fetches per second: gentle on the real web, 864,000 a day
	defaultProgress = 5 * time.Second
)

// stringList is a repeatable flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, " ") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// resolveList is the repeatable -resolve flag, checked as it is set.
type resolveList []fetch.ResolveRule

func (l *resolveList) String() string {
	s := make([]string, len(*l))
	for i, r := range *l {
		s[i] = r.Pattern + "=" + r.Addr
	}
	return strings.Join(s, " ")
}

func (l *resolveList) Set(v string) error {
	r, err := fetch.ParseResolve(v)
	if err != nil {
		return err
	}
	*l = append(*l, r)
	return nil
}

// scopeValue is the -scope flag, checked as it is set.
type scopeValue crawler.Scope

func (v *scopeValue) String() string { return string(*v) }

func (v *scopeValue) Set(s string) error {
	switch sc := crawler.Scope(s); sc {
	case crawler.ScopeHost, crawler.ScopeSite, crawler.ScopeAny:
		*v = scopeValue(sc)
		return nil
	}
	return errors.New("want host, site or any")
}

// crawlOptions are the crawl command's settings after the flags and the
// config file are merged.
type crawlOptions struct {
	configFile     string
	seeds          stringList
	seedsFile      string
	dataDir        string
	runFor         time.Duration
	once           bool
	maxPages       int
	budget         float64
	delay          time.Duration
	maxCrawlDelay  time.Duration
	allowPrivate   bool
	resolve        resolveList
	userAgent      string
	scope          scopeValue
	revisit        time.Duration
	policy         string
	ordering       string
	rankInterval   time.Duration
	topic          string
	objective      string
	signals        bool
	crawlCost      time.Duration
	maxRevisit     time.Duration
	workers        int
	maxURLsPerHost int
	followNofollow bool
	warcSize       int64
	logLevel       slog.Level
	logFormat      string
	progress       time.Duration
	cpuProfile     string
	listen         string
	cluster        clusterOptions
}

// crawlFlags defines the crawl command's flags on a new FlagSet bound to o.
func crawlFlags(o *crawlOptions) *flag.FlagSet {
	fs := newFlagSet("crawl")
	fs.StringVar(&o.configFile, "config", "", "TOML config `file`; its keys are the flag names (seeds = [...] for -seed, seeds-file for -seeds); flags given here override it")
	fs.Var(&o.seeds, "seed", "seed `URL` (repeatable); a restarted crawl needs none")
	fs.StringVar(&o.seedsFile, "seeds", "", "`file` of seed URLs, one a line; blank lines and lines starting with # are skipped")
	fs.StringVar(&o.dataDir, "data", defaultDataDir, "data `directory`: state/ (Pebble) and warc/ (WARC files); an existing one is resumed")
	fs.DurationVar(&o.runFor, "for", 0, "stop after this `duration` (0: run until interrupted)")
	fs.BoolVar(&o.once, "once", false, "crawl what is in scope once and exit when no new URL is queued, no request is in flight and every answer is committed; pages are not revisited")
	fs.IntVar(&o.maxPages, "max-pages", 0, "collection capacity: once this many pages are held, breadth-first order only revisits; backlink or pagerank order goes on exploring and keeps a newcomer in the place of a less important page, which leaves (0: no limit)")
	fs.StringVar(&o.ordering, "ordering", string(rank.OrderBreadthFirst), "order of new URLs: breadth-first (each host's in the order found), backlink (most links from pages fetched), pagerank (highest PageRank over the graph fetched) or topic (URLs whose link text or URL names -topic first)")
	fs.StringVar(&o.topic, "topic", "", "the `word` -ordering topic looks for")
	fs.DurationVar(&o.rankInterval, "rank-interval", crawler.DefaultRankInterval, "how often -ordering recomputes importance")
	fs.Float64Var(&o.budget, "budget", defaultBudget, "fetches per second over all hosts (0: no limit but -delay and -workers)")
	fs.DurationVar(&o.delay, "delay", crawler.DefaultDelay, "least gap between two requests to one host (0: none, for your own servers only)")
	fs.DurationVar(&o.maxCrawlDelay, "max-crawl-delay", crawler.DefaultMaxCrawlDelay, "cap on a robots.txt Crawl-delay")
	fs.BoolVar(&o.allowPrivate, "allow-private", false, "allow loopback, private and link-local addresses (refused by default: a seed that resolves only to them is an error)")
	fs.Var(&o.resolve, "resolve", "connect to ADDR (host:port) for host NAME, or for every host under zone if NAME is *.zone, instead of resolving it: `NAME=ADDR` (repeatable), e.g. '*.test=127.0.0.1:8080'")
	fs.StringVar(&o.userAgent, "user-agent", fetch.DefaultUserAgent, "User-Agent header; robots.txt groups are matched on its first word")
	fs.Var(&o.scope, "scope", "links followed: `host|site|any` (to the seeds' hosts, to their sites, i.e. registered domains, or all; default site, or on a resume the crawl's own)")
	fs.DurationVar(&o.revisit, "revisit", 0, "mean interval between fetches of a held page (0: the one that fits -budget; see REFRESH above)")
	fs.StringVar(&o.policy, "policy", string(refresh.Optimal), "refresh `policy`: optimal, uniform, proportional, nutch, stormcrawler, roundrobin, lambdacrawl or binary-poisson (see REFRESH above)")
	fs.StringVar(&o.objective, "objective", string(refresh.Freshness), "what -policy optimal optimises: `freshness|age|harmonic|embarrassment|cost`")
	fs.BoolVar(&o.signals, "signals", true, "act on the lastmod dates of sitemaps that have proven honest: revisit the pages they say changed (false: read sitemaps for new URLs only; see SIGNALS above)")
	fs.DurationVar(&o.crawlCost, "crawl-cost", refresh.DefaultCrawlCost, "with -objective cost: one fetch costs as much as a copy being stale this long")
	fs.DurationVar(&o.maxRevisit, "max-revisit", 0, "longest wait between fetches of a held page, and how often pages the optimum gives up are probed (0: 2 mean intervals)")
	fs.IntVar(&o.workers, "workers", crawler.DefaultWorkers, "most requests in flight at once")
	fs.IntVar(&o.maxURLsPerHost, "max-urls-per-host", crawler.DefaultMaxURLsPerHost, "most URLs ever queued for one host, a trap defence (0: no limit)")
	fs.BoolVar(&o.followNofollow, "follow-nofollow", false, "follow rel=nofollow links and the links of pages whose robots meta tag says nofollow")
	fs.Int64Var(&o.warcSize, "warc-size", crawler.DefaultWARCSize, "`bytes` at which a WARC file is finished and the next begun")
	fs.TextVar(&o.logLevel, "log-level", slog.LevelInfo, "log `level`: debug, info, warn or error")
	fs.StringVar(&o.logFormat, "log-format", "text", "log `format`: text (key=value) or json (an object a line)")
	fs.DurationVar(&o.progress, "progress", defaultProgress, "interval of the progress line on stderr (0: none)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to `file` (go tool pprof reads it)")
	fs.StringVar(&o.listen, "listen", "", "serve /metrics (Prometheus), /api/status and a live dashboard on `ADDR`, host:port (a bare :port listens on loopback only)")
	clusterFlags(fs, &o.cluster)
	return fs
}

func runCrawl(args []string, stdout, stderr io.Writer) int {
	var o crawlOptions
	fs := crawlFlags(&o)
	if err := parseCrawl(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp("crawl", fs, stdout)
			return 0
		}
		fmt.Fprintf(stderr, "freshcrawl crawl: %v\n", err)
		return 2
	}
	tuneGC()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Once the first signal has stopped the crawl, a second one kills the
	// process the usual way.
	context.AfterFunc(ctx, stop)
	err := crawl(ctx, o, stdout, stderr)
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "freshcrawl crawl: %v\n", err)
	if errors.As(err, new(usageError)) {
		return 2
	}
	return 1
}

// parseCrawl parses the command line into fs and merges the config file it
// names.
func parseCrawl(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w (see -h)", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q (seeds are given with -seed)", fs.Args())
	}
	path := fs.Lookup("config").Value.String()
	if path == "" {
		return nil
	}
	f, err := dataset.ReadCrawlConfig(path)
	if err != nil {
		return err
	}
	return mergeCrawlFile(fs, f, path)
}

// config checks the options and turns them into a crawler.Config.
func (o *crawlOptions) config(log *slog.Logger) (crawler.Config, error) {
	if err := o.check(); err != nil {
		return crawler.Config{}, err
	}
	seeds := append([]string(nil), o.seeds...)
	if o.seedsFile != "" {
		more, err := readSeeds(o.seedsFile)
		if err != nil {
			return crawler.Config{}, usageError{err}
		}
		seeds = append(seeds, more...)
	}
	return o.crawlerConfig(seeds, log), nil
}

// check reports the first option out of its range, as a usage error.
func (o *crawlOptions) check() error {
	var workers error
	if o.workers < 1 {
		workers = usagef("-workers %d: need at least 1", o.workers)
	}
	for _, err := range []error{
		empty("data", o.dataDir),
		negative("for", o.runFor),
		negative("max-pages", o.maxPages),
		negative("budget", o.budget),
		negative("delay", o.delay),
		notPositive("max-crawl-delay", o.maxCrawlDelay),
		negative("revisit", o.revisit),
		notOneOf("policy", refresh.Name(o.policy), refresh.Names),
		notOneOf("ordering", rank.Ordering(o.ordering), crawler.Orderings),
		o.checkTopic(),
		notPositive("rank-interval", o.rankInterval),
		notOneOf("objective", refresh.Objective(o.objective), refresh.Objectives),
		notPositive("crawl-cost", o.crawlCost),
		negative("max-revisit", o.maxRevisit),
		workers,
		negative("max-urls-per-host", o.maxURLsPerHost),
		notPositive("warc-size", o.warcSize),
		negative("progress", o.progress),
		empty("user-agent", strings.TrimSpace(o.userAgent)),
		notOneOf("log-format", o.logFormat, logFormats),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkTopic checks -topic: one word, which -ordering topic needs.
func (o *crawlOptions) checkTopic() error {
	topic := strings.TrimSpace(o.topic)
	switch {
	case o.ordering == string(rank.OrderTopic) && topic == "":
		return usagef("-ordering topic needs -topic WORD")
	case strings.ContainsAny(topic, " \t"):
		return usagef("-topic %q: one word", o.topic)
	}
	return nil
}

// crawlerConfig turns the checked options and the seeds into a
// crawler.Config.
func (o *crawlOptions) crawlerConfig(seeds []string, log *slog.Logger) crawler.Config {
	cfg := crawler.Config{
		Seeds:          seeds,
		DataDir:        o.dataDir,
		Scope:          crawler.Scope(o.scope),
		MaxPages:       o.maxPages,
		Budget:         o.budget,
		Delay:          o.delay,
		MaxCrawlDelay:  o.maxCrawlDelay,
		Revisit:        o.revisit,
		Policy:         refresh.Name(o.policy),
		Ordering:       rank.Ordering(o.ordering),
		RankInterval:   o.rankInterval,
		Topic:          o.topic,
		Objective:      refresh.Objective(o.objective),
		NoSignals:      !o.signals,
		CrawlCost:      o.crawlCost,
		MaxRevisit:     o.maxRevisit,
		Workers:        o.workers,
		MaxURLsPerHost: o.maxURLsPerHost,
		FollowNofollow: o.followNofollow,
		Fetch: fetch.Config{
			UserAgent:    o.userAgent,
			AllowPrivate: o.allowPrivate,
			Resolve:      o.resolve,
		},
		WARCMaxSize: o.warcSize,
		Logger:      log,
	}
	if o.once { // no revisits: every page's next visit is past any run
		cfg.Policy, cfg.Revisit = refresh.Uniform, onceRevisit
	}
	// The crawler reads zero as "the default" and a negative value as
	// "none"; on the command line zero means none.
	if cfg.Delay == 0 {
		cfg.Delay = -1
	}
	if cfg.MaxURLsPerHost == 0 {
		cfg.MaxURLsPerHost = -1
	}
	return cfg
}

// readSeeds reads the seeds file path (dataset.ReadSeeds).
func readSeeds(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("seeds: %w", err)
	}
	defer f.Close()
	seeds, err := dataset.ReadSeeds(f)
	if err != nil {
		return nil, fmt.Errorf("seeds %s: %w", path, err)
	}
	return seeds, nil
}

func errNoSeeds(dir string) error {
	return usagef("no seeds, and %s holds no crawl to resume: give -seed URL or -seeds FILE", dir)
}

// crawl runs one crawl until ctx ends, -for passes or the crawler fails.
func crawl(ctx context.Context, o crawlOptions, stdout, stderr io.Writer) error {
	log := newLogger(stderr, o.logFormat, o.logLevel)
	cfg, err := o.config(log)
	if err != nil {
		return err
	}
	if o.cluster.url != "" {
		return crawlNode(ctx, o, cfg, log, stdout, stderr)
	}
	// A crawl with no seeds must be one to resume. Look before
	// crawler.New, which would create the directory.
	state := filepath.Join(cfg.DataDir, "state")
	if len(cfg.Seeds) == 0 {
		if _, err := os.Stat(state); errors.Is(err, fs.ErrNotExist) {
			return errNoSeeds(cfg.DataDir)
		}
	}
	// A seed only on addresses the crawler refuses would run the whole
	// -for without a request.
	if seed, addr, ok := cfg.Fetch.Refused(ctx, cfg.Seeds); ok {
		return usagef("seed %s: %s is a private or loopback address, which the crawler refuses; -allow-private crawls it", seed, addr)
	}
	view := &uiHook{}
	if o.listen != "" {
		cfg.OnFetch = view.observe
	}
	c, err := crawler.New(cfg)
	switch {
	case errors.Is(err, crawler.ErrConfig):
		return usageError{err}
	case errors.Is(err, store.ErrLocked):
		return errInUse(cfg.DataDir)
	case err != nil:
		return err
	}
	if len(cfg.Seeds) == 0 && c.Stats().Seen == 0 {
		c.Close()
		return errNoSeeds(cfg.DataDir)
	}
	fmt.Fprintf(stderr, "freshcrawl crawl: %s: %d seeds, scope %s, budget %s, delay %v%s\n",
		cfg.DataDir, len(cfg.Seeds), c.Stats().Scope, budgetString(cfg.Budget), o.delay, o.forString())

	runCtx := ctx
	if o.runFor > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, o.runFor)
		defer cancel()
	}
	stopProfile, err := startProfile(o.cpuProfile)
	if err != nil {
		c.Close()
		return err
	}
	defer stopProfile()
	if err := view.start(ctx, o, c, stderr); err != nil {
		c.Close()
		return err
	}
	defer view.stop()
	start := time.Now()
	done := make(chan struct{})
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		reportProgress(c, start, o.progress, done, stderr)
	}()
	runCtx, finish := o.untilDone(runCtx, c)
	runErr := c.Run(runCtx)
	finish()
	close(done)
	<-progressDone
	view.stop()
	st := c.Stats()
	closeErr := c.Close()
	fmt.Fprintf(stdout, "freshcrawl crawl: %s after %v: %s\n", o.ended(ctx, runErr, st), time.Since(start).Round(100*time.Millisecond), summary(st))
	if runErr != nil {
		return runErr
	}
	return closeErr
}

// onceRevisit is the revisit interval of a -once crawl: longer than any run.
const onceRevisit = 100 * 365 * 24 * time.Hour

// onceCheck is how often a -once crawl looks whether it is done.
const onceCheck = 50 * time.Millisecond

// untilDone returns ctx, for a -once crawl cancelled too once c has nothing
// left to do (nothingLeft), and the function
// that releases it.
func (o *crawlOptions) untilDone(ctx context.Context, c *crawler.Crawler) (context.Context, context.CancelFunc) {
	if !o.once {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		t := time.NewTicker(onceCheck)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if nothingLeft(c.Stats()) {
					cancel()
					return
				}
			}
		}
	}()
	return ctx, cancel
}

// ended is how the run ended, for its summary line: failed, interrupted,
// finished (a -once crawl with nothing left to do) or stopped (-for).
func (o *crawlOptions) ended(ctx context.Context, runErr error, st crawler.Stats) string {
	switch {
	case runErr != nil:
		return "failed"
	case ctx.Err() != nil:
		return "interrupted"
	case o.once && nothingLeft(st):
		return "finished"
	}
	return "stopped"
}

// nothingLeft reports whether a -once crawl is done: no new URL queued, no
// request in flight, no answer whose links are yet to be queued.
func nothingLeft(st crawler.Stats) bool {
	return st.Queued == 0 && st.InFlight == 0 && st.Uncommitted == 0
}

// reportProgress writes a progress line every interval until done closes.
func reportProgress(c *crawler.Crawler, start time.Time, interval time.Duration, done <-chan struct{}, w io.Writer) {
	if interval <= 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	last, lastAt := c.Stats(), start
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			st := c.Stats()
			rate := float64(st.Requests-last.Requests) / now.Sub(lastAt).Seconds()
			line := progressLine(now.Sub(start), rate, st)
			if st.Budget > 0 {
				line += fmt.Sprintf("  budget used %.1f%% (%.1f%% since start)", 100*st.BudgetUsed(last), 100*st.BudgetUsed(crawler.Stats{}))
			}
			fmt.Fprintln(w, line)
			last, lastAt = st, now
		}
	}
}

// progressLine is one line of live progress; rate is the fetches a second
// over the last interval.
func progressLine(elapsed time.Duration, rate float64, st crawler.Stats) string {
	return fmt.Sprintf("%8v  held %d  %.1f fetches/s  requests %d  failures %d  queued %d  seen %d  hosts %d  in flight %d",
		elapsed.Round(time.Second), st.Held, rate, st.Requests, st.Failures, st.Queued, st.Seen, st.Hosts, st.InFlight)
}

// summary describes a finished run.
func summary(st crawler.Stats) string {
	evicted := ""
	if st.Evicted > 0 {
		evicted = fmt.Sprintf(" (%d left for more important ones)", st.Evicted)
	}
	return fmt.Sprintf("%d requests (%d robots.txt, %d failed), %d fetches (%d changed, %d not modified), %d pages held%s, %d URLs seen (%d disallowed by robots.txt), %d hosts, %s received",
		st.Requests, st.Robots, st.Failures, st.Pages, st.Changed, st.NotModified, st.Held, evicted, st.Seen, st.Disallowed, st.Hosts, datadir.ByteSize(st.Bytes))
}

func budgetString(b float64) string {
	if b == 0 {
		return "unlimited"
	}
	return fmt.Sprintf("%g/s", b)
}

// forString says how long the run lasts, for its start line.
func (o *crawlOptions) forString() string {
	switch {
	case o.once && o.runFor > 0:
		return fmt.Sprintf(", once, for at most %v", o.runFor)
	case o.once:
		return ", once"
	case o.runFor == 0:
		return ", until interrupted"
	}
	return fmt.Sprintf(", for %v", o.runFor)
}
