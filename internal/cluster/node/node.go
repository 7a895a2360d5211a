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
	"path/filepath"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/urlx"
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
	// set per partition, its seeds are those the partition owns, and its
	// Budget, the cluster's, is split evenly over the partitions.
	Crawl crawler.Config
	// ExchangeEvery is how often a partition sends what its outbox holds
	// (the batches of §3.3); default DefaultExchangeEvery.
	ExchangeEvery time.Duration
	// Replicated are URLs every node holds (popular pages of a previous
	// crawl): links to them are never sent.
	Replicated []string
	Logger     *slog.Logger
}

// DefaultExchangeEvery is the default period of a partition's exchange.
const DefaultExchangeEvery = time.Second

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
	log      *slog.Logger

	mu    sync.Mutex
	parts map[int]*partition
	stats Stats
}

// Stats are a node's exchange counters since it started.
type Stats struct {
	Partitions []int // held now
	Sent       int64 // [URL, count] entries sent to other partitions
	Links      int64 // links to other partitions those entries stood for
	Received   int64 // URLs received from other partitions
	Admitted   int64 // of which new to this node's partitions
}

func (c *Config) defaults() error {
	switch {
	case c.NATS == "":
		return errors.New("node: no NATS server URL")
	case c.DataDir == "":
		return errors.New("node: no data directory")
	}
	if c.Mode == 0 {
		c.Mode = cluster.ModeExchange
	}
	if c.Mode == cluster.ModeCrossOver {
		return errors.New("node: cross-over mode is for the ch. 3 experiments (freshcrawl reproduce): a node fetching another's hosts would break their politeness")
	}
	if c.Scheme == 0 {
		c.Scheme = cluster.BySite
	}
	if c.Scheme != cluster.BySite {
		return fmt.Errorf("node: partitioning %v splits hosts over nodes, which would break their politeness; the real crawler partitions by site", c.Scheme)
	}
	if c.Partitions == 0 {
		c.Partitions = cluster.DefaultPartitions
	}
	if c.TTL == 0 {
		c.TTL = cluster.DefaultTTL
	}
	if c.ExchangeEvery <= 0 {
		c.ExchangeEvery = DefaultExchangeEvery
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return nil
}

// Run runs a node until ctx is done or a partition's crawl fails: it
// joins the cluster, crawls the partitions it is given, and on its way
// out stops them and releases their leases.
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.defaults(); err != nil {
		return err
	}
	nc, err := nats.Connect(cfg.NATS, nats.Name("freshcrawl "+cfg.Node), nats.MaxReconnects(-1))
	if err != nil {
		return fmt.Errorf("node: connect to %s: %w", cfg.NATS, err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("node: %w", err)
	}
	n := &Node{cfg: cfg, part: cluster.Partitioner{Scheme: cfg.Scheme, N: cfg.Partitions},
		replica: cluster.NewReplicated(cfg.Replicated), log: cfg.Logger.With("node", cfg.Node), parts: map[int]*partition{}}
	n.member, err = cluster.Join(ctx, js, cluster.MemberConfig{Cluster: cfg.Cluster, Node: cfg.Node, Partitions: cfg.Partitions, TTL: cfg.TTL})
	if err != nil {
		return err
	}
	n.exchange, err = cluster.OpenExchange(ctx, js, cluster.ExchangeConfig{Cluster: cfg.Cluster, AckWait: cfg.TTL})
	if err != nil {
		return err
	}
	runErr := n.loop(ctx)
	n.stopAll()
	leaveCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := n.member.Leave(leaveCtx); err != nil {
		n.log.Warn("leaving the cluster", "err", err)
	}
	return runErr
}

// loop ticks the membership every TTL/3 until ctx is done or a partition
// fails.
func (n *Node) loop(ctx context.Context) error {
	tick := time.NewTicker(n.cfg.TTL / 3)
	defer tick.Stop()
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

// Stats returns the node's counters.
func (n *Node) Stats() Stats {
	n.mu.Lock()
	defer n.mu.Unlock()
	st := n.stats
	for p := range n.parts {
		st.Partitions = append(st.Partitions, p)
	}
	return st
}

// Dir returns partition p's directory under the cluster's data directory.
func Dir(dataDir string, p int) string { return filepath.Join(dataDir, fmt.Sprintf("p%03d", p)) }

// seedsOf returns the seeds partition p owns.
func (n *Node) seedsOf(p int) []string {
	var seeds []string
	for _, s := range n.cfg.Crawl.Seeds {
		if u, err := urlx.Canonical(s); err == nil && n.part.Of(u) == p {
			seeds = append(seeds, u)
		}
	}
	return seeds
}
