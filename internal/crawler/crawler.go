// Package crawler is one crawler node: the CrawlModule of dissertation
// ch. 7, wired to the other two (the UpdateModule, internal/refresh, and
// the RankingModule, rank.Ranker) and to the store. It keeps per-host
// queues on disk, hands hosts to workers no faster than politeness and the
// global budget allow, fetches with robots.txt obeyed, writes every answer
// to an Archive (WARC files), and records each outcome — page state, visit
// history, newly found URLs, the next revisit — in one store transaction
// after the WARC records are synced.
//
// The flow of one fetch, file by file:
//
//	sched.go    the scheduler: a heap of idle hosts by next allowed time
//	  → work.go     a worker: the host's next URL, robots.txt, the request
//	                (a Fetcher); pipeline.go hands the host back; then the
//	                checksum, links or sitemap, WARC encoding (capture/)
//	  → commit.go   the committer: capture.go writes the WARC records, then
//	                one fsync; pagerow (a package of its own) works out
//	                each page's new row, the refresh module its estimate
//	                and next visit; admit.go queues what was found,
//	                refine.go settles a full collection; one store
//	                transaction, one fsync
//	  → release.go  the scheduler learns what the commit found
//
// A host is busy from dispatch until its answer is read, so at most one
// request per host is in flight and the next never starts sooner than the
// host's delay after the previous one ended; the page is processed and
// committed while the host's next request goes out (pipeline.go). A kill at any moment
// loses nothing: a queue item leaves the queue only in the transaction that
// records its outcome, and that transaction commits only after the WARC
// records it points to are on disk.
package crawler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/clock"
	"github.com/freshcrawl/freshcrawl/internal/crawler/budget"
	"github.com/freshcrawl/freshcrawl/internal/crawler/capture"
	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/rank"
	"github.com/freshcrawl/freshcrawl/internal/refresh"
	"github.com/freshcrawl/freshcrawl/internal/robots"
	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/urlx"
	"github.com/freshcrawl/freshcrawl/internal/warc"
)

// Event describes one committed page fetch, for OnFetch.
type Event struct {
	URL     string
	Time    time.Time
	Status  int    // HTTP status; 0 for a network failure
	Err     string // the failure, when Status is 0
	Sitemap bool   // the URL is a sitemap, not a page of the collection
	Changed bool   // the content differs from the copy held before
	Held    bool   // the page is in the collection now
	// Fetches counts the page's fetches so far, this one included; Rate
	// is its estimated change rate after this one, in changes per second
	// (0 before any estimate).
	Fetches uint32
	Rate    float64
	// Bytes is the response body's size as received, Started when the
	// request went out and Took the time from then to the body's end;
	// zero without an answer.
	Bytes   int
	Started time.Time
	Took    time.Duration
	// Body is the decoded content of a 2xx answer; nil otherwise (a 304
	// means the held copy is still current). Valid only during the call.
	Body []byte
}

// Stats are running totals since the crawler started, and the sizes of
// the crawl state.
type Stats struct {
	Requests    int64  // HTTP requests made, robots.txt included
	Robots      int64  // robots.txt fetches
	Pages       int64  // page and sitemap outcomes committed
	Commits     int64  // batches committed, each one WARC sync and one state sync
	Changed     int64  // fetches that found changed content
	NotModified int64  // 304 answers
	Failures    int64  // failed requests (network, 5xx, 429)
	Disallowed  int64  // URLs robots.txt kept the crawler from
	Discovered  int64  // URLs queued for the first time
	OutOfScope  int64  // links not followed: outside the scope
	Trapped     int64  // links refused by the trap limits
	Revisits    int64  // identical-payload revisit records written
	Bytes       int64  // response bytes as received
	Held        int64  // pages in the collection
	Evicted     int64  // pages that left the full collection for more important ones
	Seen        uint64 // URLs ever seen
	Hosts       int    // hosts known
	Queued      int    // URLs waiting in the hosts' queues
	InFlight    int    // hosts with a request in flight
	Uncommitted int    // outcomes whose requests were answered, not yet committed
	Scope       Scope  // which links are followed (on a resume without one, the crawl's own)
	// Budget is the budget in requests per second (0: none), as
	// configured or as SetBudget last set it;
	// Started is when Run began (zero before), At when these Stats were
	// taken, both on the crawler's clock. BudgetUsed reads them.
	Budget      float64
	Started, At time.Time
}

// BudgetUsed is the share of the budget the requests made between prev
// and st used: their number over Budget × the time between them; with
// prev zero, since Run started. Zero without a budget or elapsed time.
func (st Stats) BudgetUsed(prev Stats) float64 {
	from := prev.At
	if from.IsZero() || from.Before(st.Started) {
		from = st.Started
	}
	d := st.At.Sub(from).Seconds()
	if st.Budget <= 0 || st.Started.IsZero() || d <= 0 {
		return 0
	}
	return float64(st.Requests-prev.Requests) / (st.Budget * d)
}

type counters struct {
	requests, robots, pages, changed, notModified, failures, disallowed atomic.Int64
	discovered, outOfScope, trapped, revisits, bytes, evicted, commits  atomic.Int64
}

// Crawler is one crawl over a data directory. Create it with New, run it
// with Run (once), and Close it.
type Crawler struct {
	cfg     Config
	log     *slog.Logger
	now     func() time.Time
	agent   string
	store   *store.Store
	archive Archive
	fetcher Fetcher
	robots  *robots.Cache
	sched   *scheduler
	limiter *budget.Limiter
	// ranker orders new URLs and refines a full collection; nil under
	// breadth-first ordering.
	ranker *rank.Ranker
	// refresh is the UpdateModule: change-rate estimates and revisits.
	refresh *refresh.Module
	// cm is the committer's own state (commit.go). admitMu is held by a
	// commit and by Admit, which must not fall within one.
	cm      committerState
	admitMu sync.Mutex
	stats   counters
	held    atomic.Int64
	// started is when Run began, in Unix nanoseconds on the crawler's
	// clock; zero before.
	started atomic.Int64

	scopeHosts, scopeSites map[string]bool

	failOnce sync.Once
	fatal    chan error
	firstErr error // the first fatal error, which Run returns
}

// Fetcher makes the crawler's requests. fetch.Fetcher is one.
type Fetcher interface {
	Fetch(ctx context.Context, req fetch.Request) (*fetch.Response, error)
	// Close releases what the fetcher holds (idle connections).
	Close()
}

// New opens (or creates) the crawl in cfg.DataDir, repairs a WARC file a
// crash left torn, adds the seeds and rebuilds the schedule from the
// store.
func New(cfg Config) (*Crawler, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	c := &Crawler{
		cfg:        cfg,
		log:        cfg.Logger,
		now:        cfg.Now,
		agent:      robots.ProductToken(cfg.Fetch.UserAgent),
		sched:      newScheduler(cfg.Now),
		fatal:      make(chan error, 1),
		scopeHosts: map[string]bool{}, scopeSites: map[string]bool{},
		cm:     committerState{urlLimited: map[string]bool{}, gone: map[string]bool{}},
		robots: robots.NewCache(robots.CacheConfig{TTL: cfg.RobotsTTL, ErrorTTL: cfg.RobotsErrorTTL, MaxEntries: 1 << 20}),
	}
	if cfg.Ordering != rank.OrderBreadthFirst {
		var err error
		c.ranker, err = rank.NewRanker(rank.RankerConfig{
			Ordering: cfg.Ordering, Topic: cfg.Topic, Capacity: cfg.MaxPages,
			Promote: promoteFactor * cfg.Workers, Publish: c.sched.setPromoted, Logger: cfg.Logger,
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrConfig, err)
		}
		c.sched.onFull, c.sched.unclaim = c.ranker.Wake, c.ranker.Unclaim
		c.sched.explore = cfg.MaxPages > 0
	}
	seeds, err := urlx.CanonicalAll(cfg.Seeds)
	if err != nil {
		return nil, fmt.Errorf("%w: seed %v", ErrConfig, err)
	}
	warcDir := filepath.Join(cfg.DataDir, "warc")
	if err := os.MkdirAll(warcDir, 0o755); err != nil {
		return nil, fmt.Errorf("crawl: %w", err)
	}
	c.store, err = store.Open(filepath.Join(cfg.DataDir, "state"), store.Options{NoSync: cfg.NoSync})
	if err != nil {
		return nil, fmt.Errorf("crawl: %w", err)
	}
	if err := c.open(warcDir, seeds); err != nil {
		c.store.Close()
		return nil, err
	}
	return c, nil
}

func (c *Crawler) open(warcDir string, seeds []string) error {
	if c.cfg.Archive == nil {
		if err := capture.Repair(warcDir, c.store, c.log); err != nil {
			return fmt.Errorf("crawl: %w", err)
		}
	}
	mode, err := c.store.KeepScopeMode(string(c.cfg.Scope), string(ScopeSite))
	if err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	c.cfg.Scope = Scope(mode)
	if err := c.addSeeds(seeds); err != nil {
		return err
	}
	held, err := c.store.Held()
	if err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	c.held.Store(held)
	if c.refresh, err = refresh.Open(c.cfg.refresh(), c.store, size{c}); err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	if err := c.rebuild(); err != nil {
		return err
	}
	c.limiter = budget.Share(c.cfg.Pool, c.cfg.Budget, c.now)
	c.fetcher = c.cfg.Fetcher
	if c.fetcher == nil {
		fc := c.cfg.Fetch
		if fc.Now == nil {
			fc.Now = c.now
		}
		c.fetcher = fetch.New(fc)
	}
	c.archive = c.cfg.Archive
	if c.archive == nil {
		w, err := warc.NewWriter(warc.WriterConfig{
			Dir: warcDir, MaxFileSize: c.cfg.WARCMaxSize, Compression: c.cfg.WARCGzipLevel, Buffer: warcBuffer,
			Info: warc.Header{{Name: "http-header-user-agent", Value: c.cfg.Fetch.UserAgent}, {Name: "robots", Value: "obey"}},
		})
		if err != nil {
			return fmt.Errorf("crawl: %w", err)
		}
		c.archive = w
	}
	return nil
}

// addSeeds queues the seeds not seen before and records the scope they
// define, which a restarted crawl keeps.
func (c *Crawler) addSeeds(seeds []string) error {
	txn := c.store.Begin()
	found := make([]discovered, 0, len(seeds))
	for _, s := range seeds {
		h := urlx.Host(s)
		if err := txn.AddScope(h, urlx.SiteKey(h)); err != nil {
			txn.Abort()
			return err
		}
		if c.cfg.Owns == nil || c.cfg.Owns(s) { // every partition is given the seeds; their owners queue them
			found = append(found, discovered{url: s, kind: store.KindPage})
		}
	}
	if err := txn.Commit(); err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	hosts, sites, err := c.store.Scope()
	if err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	for _, h := range hosts {
		c.scopeHosts[h] = true
	}
	for _, s := range sites {
		c.scopeSites[s] = true
	}
	txn = c.store.Begin()
	if _, err := c.enqueue(txn, found, map[string]int{}, ""); err != nil {
		txn.Abort()
		return fmt.Errorf("crawl: seeds: %w", err)
	}
	return txn.Commit()
}

// rebuild loads every host with queued or scheduled work into the
// scheduler.
func (c *Crawler) rebuild() error {
	s := c.sched
	s.mu.Lock()
	defer s.mu.Unlock()
	s.full = c.cfg.MaxPages > 0 && c.held.Load() >= int64(c.cfg.MaxPages)
	now := c.now()
	s.notBefore = now.Add(c.cfg.Delay)
	err := c.store.Hosts(func(name string, n int) error {
		h := s.get(name, c.cfg.Delay)
		s.queued.Add(int64(n - h.queued))
		h.queued, h.newAt = n, now
		return nil
	})
	if err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	// A host whose delay (robots.txt's Crawl-delay) is longer, or not over
	// since its last answer recorded, waits it out from then and from now:
	// the run before (or the node that had this partition) may have asked
	// it again since, unrecorded.
	err = c.store.LastAnswers(func(name string, end time.Time, delay time.Duration) error {
		if delay > c.cfg.Delay || end.Add(delay).After(now) {
			s.get(name, c.cfg.Delay).ready = clock.Later(end, now).Add(delay)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	err = c.store.DueHosts(func(name string, next time.Time) error {
		s.get(name, c.cfg.Delay).due = next
		return nil
	})
	if err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	for _, h := range s.hosts {
		s.update(h)
	}
	return nil
}

// size tells the refresh module the crawl's size.
type size struct{ c *Crawler }

func (s size) Held() int64   { return s.c.held.Load() }
func (s size) Queued() int64 { return s.c.sched.queued.Load() }

// fail records a fatal error; Run returns the first.
func (c *Crawler) fail(err error) {
	c.failOnce.Do(func() { c.firstErr = err; c.fatal <- err })
}

// Run crawls until ctx is done or a fatal error (a full disk, a broken
// store) stops it. On return every fetch that finished is committed.
func (c *Crawler) Run(ctx context.Context) error {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	now := c.now()
	c.started.Store(now.UnixNano())
	c.limiter.Start(now)
	tasks := make(chan task)
	results := make(chan outcome, c.cfg.Workers)
	var workers sync.WaitGroup
	for range c.cfg.Workers {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for t := range tasks {
				o := c.work(runCtx, t)
				if o.end.IsZero() { // No request went out: its slot goes back.
					c.limiter.Refund()
				}
				c.handBack(&o)
				// The dispatcher and the host's next request first: on
				// busy cores they would otherwise wait behind process.
				runtime.Gosched()
				if err := c.process(&o); err != nil {
					o.err = err
					c.fail(err)
				}
				results <- o
			}
		}()
	}
	commitErr := make(chan error, 1)
	go func() { commitErr <- c.commitLoop(results) }()
	rankDone := make(chan struct{})
	if c.ranker != nil {
		go func() {
			defer close(rankDone)
			if err := c.ranker.Graph().Load(c.store); err != nil {
				c.log.Error("ranking: reading the link graph failed; ranking what this run sees", "err", err)
			}
			c.ranker.Run(runCtx, c.cfg.RankInterval)
		}()
	} else {
		close(rankDone)
	}
	defer func() { <-rankDone }()

	go func() {
		select {
		case <-c.fatal:
			cancel()
		case <-runCtx.Done():
		}
	}()
	c.dispatch(runCtx, tasks)
	close(tasks)
	workers.Wait()
	close(results)
	<-commitErr
	cancel()
	// Every fatal error went through fail, from a worker or the
	// committer, both done by now; the first is the cause (a failed
	// encoding, say, before the commit it breaks).
	return c.firstErr
}

// dispatch hands hosts to workers as politeness and the budget allow, until
// ctx is done. It takes the budget's slot first and picks the host after,
// when the slot is due: picked earlier, the host chosen would be chosen
// among those idle a slot before, and the one just dispatched would never
// be among them, however much more work it holds.
func (c *Crawler) dispatch(ctx context.Context, tasks chan<- task) {
	s := c.sched
	for {
		if !c.limiter.Wait(ctx) {
			return
		}
		h := s.next(ctx)
		if h == nil {
			return
		}
		s.mu.Lock()
		// A task may take a new URL only if the pages held plus the new
		// fetches in flight stay under the capacity: each of those may add
		// a page, and they commit after this decision.
		may := !s.full && (c.cfg.MaxPages == 0 || c.held.Load()+int64(s.reserved) < int64(c.cfg.MaxPages))
		// The ranking's URLs come first; with the collection full they
		// are those more important than a page held, each of which
		// takes the place of the least important at its commit.
		// Under refinement a full collection keeps exploring: new URLs
		// are fetched, their links recorded, and a newcomer is kept only
		// in the place of a less important page (a claimed victim).
		explore := !may && s.full && s.explore
		promote, claimed := "", false
		if len(h.promoted) > 0 && (may || explore) {
			p := h.promoted[0]
			promote, h.promoted = p.URL, h.promoted[1:]
			claimed = explore && p.Enters && c.ranker.Claim()
		}
		if now := c.now(); !may && !explore && (h.due.IsZero() || h.due.After(now)) {
			// Only new URLs here, and the fetches in flight may fill the
			// collection: ask again shortly, when they have committed.
			h.ready = clock.Later(h.ready, now.Add(reserveWait))
			h.busy = false
			s.inFly--
			s.update(h)
			s.mu.Unlock()
			c.limiter.Refund()
			continue
		}
		t := task{h: h, due: h.due, queued: h.queued, full: !may && !explore, attempts: h.attempts, delay: h.Delay, promote: promote, claimed: claimed}
		if may { // A revisit of a URL never held can add a page too.
			t.reserved = true
			s.reserved++
		}
		s.mu.Unlock()
		select {
		case tasks <- t:
		case <-ctx.Done():
			s.unbusy(t)
			return
		}
	}
}

// reserveWait is how long a host with only new URLs waits when the fetches
// in flight may fill the collection.
const reserveWait = 50 * time.Millisecond

// Stats returns the running totals.
func (c *Crawler) Stats() Stats {
	st := Stats{
		Requests: c.stats.requests.Load(), Robots: c.stats.robots.Load(), Pages: c.stats.pages.Load(),
		Changed: c.stats.changed.Load(), NotModified: c.stats.notModified.Load(),
		Failures: c.stats.failures.Load(), Disallowed: c.stats.disallowed.Load(),
		Discovered: c.stats.discovered.Load(), OutOfScope: c.stats.outOfScope.Load(),
		Trapped: c.stats.trapped.Load(), Revisits: c.stats.revisits.Load(), Bytes: c.stats.bytes.Load(),
		Held: c.held.Load(), Seen: c.store.SeenCount(), Evicted: c.stats.evicted.Load(),
		Commits: c.stats.commits.Load(),
		Budget:  c.limiter.Rate(), At: c.now(), Scope: c.cfg.Scope,
	}
	if ns := c.started.Load(); ns != 0 {
		st.Started = time.Unix(0, ns)
	}
	c.sched.mu.Lock()
	st.Hosts, st.InFlight, st.Uncommitted = len(c.sched.hosts), c.sched.inFly, c.sched.uncommitted
	st.Queued = int(c.sched.queued.Load())
	c.sched.mu.Unlock()
	return st
}

// SetBudget changes the crawl's budget (requests a second, > 0) from its
// next request on: a cluster gives each partition the share of its budget
// that partition's pages ask for (refresh.SharePlan). With a Pool it is the
// crawl's share, the pool's rate being its owner's to set. A crawl without
// a budget keeps none.
func (c *Crawler) SetBudget(b float64) { c.limiter.SetRate(b) }

// Close finishes the WARC file and closes the store. Call it after Run has
// returned.
func (c *Crawler) Close() error {
	var errs []error
	if c.fetcher != nil {
		c.fetcher.Close()
	}
	if c.archive != nil {
		errs = append(errs, c.archive.Close())
	}
	errs = append(errs, c.store.Close())
	return errors.Join(errs...)
}
