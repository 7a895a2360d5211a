// Package node runs one node of a crawler cluster: the partitions it
// holds leases for (cluster.Member), each a crawl of its own
// (internal/crawler) over its own directory under the data directory all
// nodes share, and the exchange of URLs between partitions
// (cluster.Relay out, cluster.Exchange.Receive in).
//
// A partition's directory is DataDir/p<NNN>: its state and WARC files, as
// a single crawl keeps them. When a node dies its partitions' leases
// expire and the survivors open the same directories, with the frontier,
// the page states and the outbox as the dead node last committed them:
// the frontier survives on storage every node can reach, not in
// JetStream (see the README's cluster section for why). The store's lock
// keeps a second process out of a partition whose previous owner has not
// quite let go; the new owner tries again at its next tick.
package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/crawler/budget"
)

// Config configures a node. Zero fields take the defaults of
// cluster.MemberConfig and those below.
type Config struct {
	NATS       string // the NATS server's URL; required
	Cluster    string
	Node       string // required
	Partitions int
	TTL        time.Duration
	Mode       cluster.Mode   // default cluster.ModeExchange
	Scheme     cluster.Scheme // default cluster.BySite
	// DataDir is the directory every node shares; partition p is crawled
	// in DataDir/p<NNN>.
	DataDir string
	// Crawl is each partition's crawl. Its DataDir, Owns and Outbox are
	// set per partition; its Budget is the cluster's, which the cluster's
	// refresh plan splits between the partitions by what their pages ask
	// for (evenly until there is a plan); MaxPages is each partition's.
	Crawl crawler.Config
	// ExchangeEvery is how often a partition sends what its outbox holds
	// (the batches of §3.3); default DefaultExchangeEvery.
	ExchangeEvery time.Duration
	// PlanEvery is how often the partitions share their refresh plans
	// (plan.go); default DefaultPlanEvery.
	PlanEvery time.Duration
	// Replicated are URLs every node holds (popular pages of a previous
	// crawl): links to them are never sent.
	Replicated []string
	Logger     *slog.Logger
}

// DefaultExchangeEvery is the default period of a partition's exchange.
const DefaultExchangeEvery = time.Second

// settle is the longest a node waits between announcing itself and
// taking partitions.
const settle = time.Second

// receiveIdle is how long a partition waits before asking for exchanged
// URLs again after finding none.
const receiveIdle = 200 * time.Millisecond

// Node is a running node.
type Node struct {
	cfg      Config
	part     cluster.Partitioner
	member   *cluster.Member
	exchange *cluster.Exchange
	replica  *cluster.Replicated
	plans    *cluster.Plans
	// pool is the budget the node's partitions draw on together (nil
	// without one): a slot one has no use for goes to another, as in one
	// crawl. Its rate is the sum of their shares (syncPool, under poolMu).
	pool   *budget.Limiter
	poolMu sync.Mutex
	log    *slog.Logger

	mu    sync.Mutex
	parts map[int]*partition
	stats Stats
	plan  *cluster.Plan // the newest refresh plan read, nil before one
}

// Stats are a node's counters: its exchange since it started, and the
// crawls of the partitions it holds now.
type Stats struct {
	Partitions []int // held now, in order
	Sent       int64 // [URL, count] entries sent to other partitions
	Links      int64 // links to other partitions those entries stood for
	Received   int64 // URLs received from other partitions
	Admitted   int64 // of which new to this node's partitions
	// Crawl sums the Stats of the partitions' crawls (requests, pages,
	// held, queued, ...): those running now as of now, those stopped
	// (handed over, lost) as of their end.
	Crawl crawler.Stats
}

// ErrConfig is wrapped by New's errors about the configuration.
var ErrConfig = errors.New("invalid node configuration")

func (c *Config) defaults() error {
	if c.Mode == 0 {
		c.Mode = cluster.ModeExchange
	}
	if c.Scheme == 0 {
		c.Scheme = cluster.BySite
	}
	if c.Node == "" {
		c.Node = DefaultName()
	}
	if c.ExchangeEvery == 0 {
		c.ExchangeEvery = DefaultExchangeEvery
	}
	if c.PlanEvery == 0 {
		c.PlanEvery = DefaultPlanEvery
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	mc := c.member()
	err := mc.Check()
	c.Cluster, c.Partitions, c.TTL = mc.Cluster, mc.Partitions, mc.TTL
	switch {
	case err != nil:
	case c.NATS == "":
		err = errors.New("no NATS server URL")
	case c.DataDir == "":
		err = errors.New("no data directory")
	case c.Mode == cluster.ModeCrossOver:
		err = errors.New("cross-over mode is for the ch. 3 experiments (freshcrawl reproduce): a node fetching another's hosts would break their politeness")
	case c.Scheme != cluster.BySite:
		err = fmt.Errorf("partitioning %v splits hosts over nodes, which would break their politeness; the crawler partitions by site", c.Scheme)
	case c.ExchangeEvery < 0 || c.PlanEvery < 0:
		err = fmt.Errorf("exchange period %v or plan period %v is negative", c.ExchangeEvery, c.PlanEvery)
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return nil
}

// member is the node's membership configuration.
func (c *Config) member() cluster.MemberConfig {
	return cluster.MemberConfig{Cluster: c.Cluster, Node: c.Node, Partitions: c.Partitions, TTL: c.TTL}
}

// DefaultName is a node's name when none is given: the host's name
// (letters, digits, - and _ kept, the rest -), a dash and the process id.
func DefaultName() string {
	host, _ := os.Hostname()
	host = strings.Map(func(r rune) rune {
		if r < 128 && (r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '-'
	}, host)
	return fmt.Sprintf("%.50s-%d", host, os.Getpid())
}

// New checks cfg and returns a node, not yet running.
func New(cfg Config) (*Node, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, part: cluster.Partitioner{Scheme: cfg.Scheme, N: cfg.Partitions},
		replica: cluster.NewReplicated(cfg.Replicated), log: cfg.Logger.With("node", cfg.Node), parts: map[int]*partition{}}
	if n.pool = budget.New(cfg.Crawl.Budget/float64(cfg.Partitions), time.Now); n.pool != nil {
		n.pool.Start(time.Now())
	}
	return n, nil
}

// Run runs the node until ctx is done or a partition's crawl fails: it
// joins the cluster, crawls the partitions it is given, and on its way
// out stops them and releases their leases. Call it once.
func (n *Node) Run(ctx context.Context) error {
	cfg := n.cfg
	nc, err := nats.Connect(cfg.NATS, nats.Name("freshcrawl "+cfg.Node), nats.MaxReconnects(-1))
	if err != nil {
		return fmt.Errorf("node: connect to %s: %w", cfg.NATS, err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("node: %w", err)
	}
	n.member, err = cluster.Join(ctx, js, cfg.member())
	if err != nil {
		return err
	}
	n.exchange, err = cluster.OpenExchange(ctx, js, cluster.ExchangeConfig{Cluster: cfg.Cluster, AckWait: cfg.TTL})
	if err != nil {
		return err
	}
	if n.plans, err = cluster.OpenPlans(ctx, js, cfg.Cluster); err != nil {
		return err
	}
	// Nodes started together see each other before the first takes every
	// partition (and hands most back a tick later).
	if err := n.member.Heartbeat(ctx); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
	case <-time.After(min(n.member.TickEvery(), settle)):
	}
	planCtx, stopPlan := context.WithCancel(ctx)
	var planning sync.WaitGroup
	planning.Go(func() { n.planLoop(planCtx) })
	runErr := n.loop(ctx)
	stopPlan()
	planning.Wait()
	n.stopAll()
	leaveCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := n.member.Leave(leaveCtx); err != nil {
		n.log.Warn("leaving the cluster", "err", err)
	}
	return runErr
}

// loop ticks the membership every TTL/6 until ctx is done or a partition
// fails.
func (n *Node) loop(ctx context.Context) error {
	tick := time.NewTicker(n.member.TickEvery())
	defer tick.Stop()
	freed, err := n.member.Freed(ctx)
	if err != nil {
		return err
	}
	failed := make(chan error, 1)
	for {
		if err := n.tick(ctx, failed); err != nil {
			n.log.Warn("cluster tick", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case err := <-failed:
			return err
		case <-tick.C:
		case <-freed:
		}
	}
}

// tick renews the leases and acts on what changed.
func (n *Node) tick(ctx context.Context, failed chan<- error) error {
	ch, err := n.member.Tick(ctx)
	for _, p := range ch.Lost {
		n.log.Warn("lease lost; partition stopped", "partition", p)
		n.stop(p)
	}
	for _, p := range ch.Unwanted {
		n.stop(p)
		if err := n.member.Release(ctx, p); err != nil {
			n.log.Warn("release", "partition", p, "err", err)
		}
		n.log.Info("partition handed over", "partition", p)
	}
	for _, p := range n.member.Held() {
		n.mu.Lock()
		pt := n.parts[p]
		n.mu.Unlock()
		until, _ := n.member.ValidUntil(p)
		if pt != nil && pt.ctx.Err() != nil {
			// Its fence stopped it, a renewal late under load; the lease
			// held, so the partition opens again.
			n.stop(p)
			pt = nil
		}
		if pt != nil {
			pt.fence.Reset(time.Until(until))
			continue
		}
		if err := n.start(ctx, p, until, failed); err != nil {
			// Its previous owner may still be closing it: try again at
			// the next tick.
			n.log.Warn("partition not opened", "partition", p, "err", err)
		}
	}
	return err
}

// syncPool sets the pool's rate to the sum of the held partitions'
// shares.
func (n *Node) syncPool() {
	if n.pool == nil {
		return
	}
	n.poolMu.Lock() // a later sum is never overwritten by an earlier one
	defer n.poolMu.Unlock()
	n.mu.Lock()
	cs := make([]*crawler.Crawler, 0, len(n.parts))
	for _, pt := range n.parts {
		cs = append(cs, pt.c)
	}
	n.mu.Unlock()
	sum := 0.0
	for _, c := range cs {
		sum += c.Stats().Budget
	}
	n.pool.SetRate(sum)
}

// Stats returns the node's counters.
func (n *Node) Stats() Stats {
	n.mu.Lock()
	st := n.stats
	var cs []*crawler.Crawler
	for p, pt := range n.parts {
		st.Partitions = append(st.Partitions, p)
		cs = append(cs, pt.c)
	}
	n.mu.Unlock()
	slices.Sort(st.Partitions)
	for _, c := range cs {
		st.Crawl = addStats(st.Crawl, c.Stats())
	}
	return st
}

// SumStats adds up the Stats of several crawls: their counts, hosts,
// queues and budgets; Started is the earliest, At the latest.
func SumStats(all ...crawler.Stats) crawler.Stats {
	var sum crawler.Stats
	for _, st := range all {
		sum = addStats(sum, st)
	}
	return sum
}

// addStats adds the counts of b to a.
func addStats(a, b crawler.Stats) crawler.Stats {
	a.Requests += b.Requests
	a.Robots += b.Robots
	a.Pages += b.Pages
	a.Changed += b.Changed
	a.NotModified += b.NotModified
	a.Failures += b.Failures
	a.Disallowed += b.Disallowed
	a.Discovered += b.Discovered
	a.OutOfScope += b.OutOfScope
	a.Trapped += b.Trapped
	a.Bytes += b.Bytes
	a.Held += b.Held
	a.Seen += b.Seen
	a.Queued += b.Queued
	a.Hosts += b.Hosts
	a.InFlight += b.InFlight
	a.Budget += b.Budget
	a.Commits += b.Commits
	a.Revisits += b.Revisits
	a.Evicted += b.Evicted
	a.Uncommitted += b.Uncommitted
	a.Scope = b.Scope
	if a.Started.IsZero() || !b.Started.IsZero() && b.Started.Before(a.Started) {
		a.Started = b.Started
	}
	if b.At.After(a.At) {
		a.At = b.At
	}
	return a
}

// Dir returns partition p's directory under the cluster's data directory.
func Dir(dataDir string, p int) string { return filepath.Join(dataDir, fmt.Sprintf("p%03d", p)) }

// Config returns the node's configuration, defaults filled in.
func (n *Node) Config() Config { return n.cfg }
