package demo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sync"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
	"github.com/freshcrawl/freshcrawl/internal/cluster/node"
	"github.com/freshcrawl/freshcrawl/internal/crawler"
)

// crawl is what the demo runs: one crawl (*crawler.Crawler) or a cluster
// of nodes (nodes).
type crawl interface {
	Run(ctx context.Context) error
	Stats() crawler.Stats
	Close() error
}

// newCrawl makes the crawl of the web at addr.
func (d *demo) newCrawl(addr net.Addr, capacity int) (crawl, error) {
	if d.cfg.Nodes > 1 {
		// A partition holds what it finds of its sites: the capacity, all
		// the pages the web has, is no limit on any of them.
		capacity = 0
	}
	cfg, err := d.crawlConfig(addr, capacity)
	if err != nil {
		return nil, err
	}
	if d.cfg.Nodes <= 1 {
		return crawler.New(cfg)
	}
	srv, err := cluster.StartServer(cluster.ServerConfig{Dir: filepath.Join(d.cfg.DataDir, "nats")})
	if err != nil {
		return nil, err
	}
	ns := &nodes{srv: srv}
	for k := range d.cfg.Nodes {
		n, err := node.New(node.Config{
			NATS: srv.URL(), Node: fmt.Sprintf("node%d", k+1), Partitions: d.cfg.Partitions,
			DataDir: d.cfg.DataDir, Crawl: cfg, Logger: d.cfg.Logger,
		})
		if err != nil {
			srv.Close()
			return nil, err
		}
		ns.nodes = append(ns.nodes, n)
	}
	return ns, nil
}

// nodes is a cluster in this process.
type nodes struct {
	srv   *cluster.Server
	nodes []*node.Node
}

// Run runs every node until ctx is done.
func (ns *nodes) Run(ctx context.Context) error {
	errs := make([]error, len(ns.nodes))
	var wg sync.WaitGroup
	for i, n := range ns.nodes {
		wg.Go(func() { errs[i] = n.Run(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Stats sums the nodes' crawls.
func (ns *nodes) Stats() crawler.Stats {
	all := make([]crawler.Stats, len(ns.nodes))
	for i, n := range ns.nodes {
		all[i] = n.Stats().Crawl
	}
	return node.SumStats(all...)
}

// Close stops the NATS server; the nodes closed their crawls on their way
// out.
func (ns *nodes) Close() error {
	ns.srv.Close()
	return nil
}
