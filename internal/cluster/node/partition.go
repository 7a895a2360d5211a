package node

import (
	"context"
	"sync"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
	"github.com/freshcrawl/freshcrawl/internal/crawler"
)

// partition is one partition this node crawls: its crawl, the loops that
// send and receive its exchanged URLs, and the fence that stops it all
// if its lease is not renewed in time.
type partition struct {
	p      int
	c      *crawler.Crawler
	ctx    context.Context // done once the partition is stopping (or fenced)
	cancel context.CancelFunc
	done   sync.WaitGroup
	fence  *time.Timer
}

// start opens partition p's crawl and runs it, with its exchange loops,
// until stop (or its fence, at until). A crawl that fails sends its error
// to failed.
func (n *Node) start(ctx context.Context, p int, until time.Time, failed chan<- error) error {
	cfg := n.cfg.Crawl
	cfg.DataDir = Dir(n.cfg.DataDir, p)
	// Every seed, so that the scope is the crawl's: the partition queues
	// its own, and their owners the others.
	cfg.Owns = func(u string) bool { return n.part.Of(u) == p }
	exchange := n.cfg.Mode == cluster.ModeExchange
	if exchange {
		// Every node holds the replicated URLs: links to them stay home.
		cfg.Outbox = func(u string) bool { return !n.replica.Has(u) }
	}
	n.mu.Lock()
	plan := n.plan
	n.mu.Unlock()
	cfg.Budget = n.cfg.Crawl.Budget / float64(n.cfg.Partitions)
	if plan != nil && p < len(plan.Budgets) {
		cfg.Budget = plan.Budgets[p]
	}
	cfg.Logger, cfg.Pool = n.log.With("partition", p), n.pool
	c, err := crawler.New(cfg)
	if err != nil {
		return err
	}
	if plan != nil {
		c.Refresh().SetShared(plan.Shared)
	}
	pctx, cancel := context.WithCancel(ctx)
	pt := &partition{p: p, c: c, ctx: pctx, cancel: cancel}
	pt.fence = time.AfterFunc(time.Until(until), func() {
		n.log.Warn("lease not renewed in time; partition stopped", "partition", p)
		cancel()
	})
	pt.done.Go(func() {
		if err := c.Run(pctx); err != nil {
			select {
			case failed <- err:
			default:
			}
		}
	})
	if exchange {
		pt.done.Go(func() { every(pctx, n.cfg.ExchangeEvery, func() { n.send(pctx, pt) }) })
	}
	pt.done.Go(func() { n.receiveLoop(pctx, pt) })
	n.mu.Lock()
	n.parts[p] = pt
	n.mu.Unlock()
	n.syncPool()
	n.log.Info("partition started", "partition", p)
	return nil
}

// stop stops partition p's crawl and loops, sends what its outbox still
// holds, and closes it.
func (n *Node) stop(p int) {
	n.mu.Lock()
	pt := n.parts[p]
	n.mu.Unlock()
	if pt == nil {
		return
	}
	pt.fence.Stop()
	pt.cancel()
	pt.done.Wait()
	if n.cfg.Mode == cluster.ModeExchange {
		ctx, cancel := context.WithTimeout(context.Background(), n.cfg.TTL/6)
		n.send(ctx, pt)
		cancel()
	}
	// Its counts move to the node's stopped ones at once, so that Stats
	// never misses them.
	final := pt.c.Stats()
	n.mu.Lock()
	delete(n.parts, p)
	n.stats.Crawl = addStats(n.stats.Crawl, final)
	n.mu.Unlock()
	n.syncPool()
	if err := pt.c.Close(); err != nil {
		n.log.Warn("closing partition", "partition", p, "err", err)
	}
}

// stopAll stops every partition.
func (n *Node) stopAll() {
	n.mu.Lock()
	var ps []int
	for p := range n.parts {
		ps = append(ps, p)
	}
	n.mu.Unlock()
	for _, p := range ps {
		n.stop(p)
	}
}

// every calls fn every d until ctx is done.
func every(ctx context.Context, d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}

// send flushes the partition's outbox once.
func (n *Node) send(ctx context.Context, pt *partition) {
	r := cluster.Relay{Store: pt.c.Store(), Exchange: n.exchange, Partitioner: n.part, Self: pt.p}
	f, err := r.Flush(ctx)
	if err != nil {
		if ctx.Err() == nil {
			n.log.Warn("exchange: send", "partition", pt.p, "err", err)
		}
		return
	}
	n.mu.Lock()
	n.stats.Sent += int64(f.Entries)
	n.stats.Links += f.Links
	n.mu.Unlock()
}

// receiveLoop admits the URLs other partitions send this one, each
// message acknowledged once its URLs are committed.
func (n *Node) receiveLoop(ctx context.Context, pt *partition) {
	for ctx.Err() == nil {
		got, err := n.exchange.Receive(ctx, pt.p, 64, func(parcel cluster.Parcel) error {
			urls := make([]string, len(parcel.Entries))
			counts := make([]uint32, len(parcel.Entries))
			for i, e := range parcel.Entries {
				urls[i], counts[i] = e.URL, e.Count
			}
			added, err := pt.c.Admit(urls, counts)
			if err != nil {
				return err
			}
			n.mu.Lock()
			n.stats.Received += int64(len(urls))
			n.stats.Admitted += int64(added)
			n.mu.Unlock()
			return nil
		})
		if err != nil && ctx.Err() == nil {
			n.log.Warn("exchange: receive", "partition", pt.p, "err", err)
		}
		if got == 0 {
			select {
			case <-ctx.Done():
			case <-time.After(receiveIdle):
			}
		}
	}
}
