package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
	"github.com/freshcrawl/freshcrawl/internal/cluster/node"
	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/dataset"
	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// clusterOptions are crawl's flags for a node of a cluster.
type clusterOptions struct {
	url        string
	node       string
	name       string
	partitions int
	mode       string
	ttl        time.Duration
	every      time.Duration
	replicate  string
	top        int
}

func clusterFlags(fs *flag.FlagSet, o *clusterOptions) {
	fs.StringVar(&o.url, "cluster", "", "run as a node of the cluster whose NATS server is at `URL` (nats://host:port), in -data shared by every node (see CLUSTER above)")
	fs.StringVar(&o.node, "node", "", "with -cluster, this node's `name`, unique in the cluster: letters, digits, - and _ (default: the host name and process id)")
	fs.StringVar(&o.name, "cluster-name", "freshcrawl", "with -cluster, the cluster's `name`: clusters of different names share a NATS server without meeting")
	fs.IntVar(&o.partitions, "partitions", cluster.DefaultPartitions, "with -cluster, partitions of the URL space by site; every node of a cluster must give the same")
	fs.StringVar(&o.mode, "cluster-mode", "exchange", "with -cluster, what a partition does with links to other partitions: `exchange` (send them to their owners) or firewall (drop them)")
	fs.DurationVar(&o.ttl, "lease-ttl", cluster.DefaultTTL, "with -cluster, how long a node's partitions outlive it if it dies, before the others take them over")
	fs.DurationVar(&o.every, "exchange-every", node.DefaultExchangeEvery, "with -cluster, how often a partition sends the links it found to other partitions")
	fs.StringVar(&o.replicate, "replicate", "", "with -cluster, a ranks `file` of a previous crawl (rank -data DIR -out FILE): its -replicate-top most linked URLs are held by every node, and links to them are never sent")
	fs.IntVar(&o.top, "replicate-top", 10000, "with -replicate, how many of the most linked URLs (ch. 3 advises 10,000 to 100,000)")
}

// nodeConfig returns the node's configuration, the crawl's being cfg.
func (o *crawlOptions) nodeConfig(cfg crawler.Config, log *slog.Logger) (node.Config, error) {
	co := o.cluster
	if o.once {
		return node.Config{}, usagef("-once is not available with -cluster: a partition's crawl cannot tell that the other partitions will send it nothing more; give -for")
	}
	if o.listen != "" {
		return node.Config{}, usagef("-listen is not available with -cluster: each node prints its progress; freshcrawl status reads the partitions")
	}
	mode, err := cluster.ParseMode(co.mode)
	if err != nil || mode == cluster.ModeCrossOver {
		return node.Config{}, usagef("-cluster-mode %q: want exchange or firewall", co.mode)
	}
	if co.every <= 0 {
		return node.Config{}, usagef("-exchange-every %v is not positive", co.every)
	}
	if co.partitions < 1 || co.partitions > cluster.MaxPartitions {
		return node.Config{}, usagef("-partitions %d: want 1 to %d", co.partitions, cluster.MaxPartitions)
	}
	replicated, err := co.replicated()
	if err != nil {
		return node.Config{}, err
	}
	return node.Config{
		NATS: co.url, Cluster: co.name, Node: co.node, Partitions: co.partitions, TTL: co.ttl, Mode: mode,
		DataDir: cfg.DataDir, Crawl: cfg, ExchangeEvery: co.every, Replicated: replicated, Logger: log,
	}, nil
}

// replicated reads -replicate's most linked URLs, canonical.
func (co clusterOptions) replicated() ([]string, error) {
	if co.replicate == "" {
		return nil, nil
	}
	if co.top < 1 {
		return nil, usagef("-replicate-top %d: want at least 1", co.top)
	}
	in, err := dataset.OpenInput(co.replicate)
	if err != nil {
		return nil, usagef("-replicate: %v", err)
	}
	defer in.Close()
	top, err := dataset.TopLinked(in, co.top)
	if err != nil {
		return nil, usagef("-replicate %s: %v", co.replicate, err)
	}
	urls, err := urlx.CanonicalAll(top)
	if err != nil {
		return nil, usagef("-replicate %s: %v (a ranks file of a crawl's graph, rank -data, names URLs)", co.replicate, err)
	}
	return urls, nil
}

// crawlNode runs the crawl as a node of a cluster until ctx is done or
// -for has passed.
func crawlNode(ctx context.Context, o crawlOptions, cfg crawler.Config, log *slog.Logger, stdout, stderr io.Writer) error {
	nc, err := o.nodeConfig(cfg, log)
	if err != nil {
		return err
	}
	n, err := node.New(nc)
	if err != nil {
		return usageError{err}
	}
	nc = n.Config()
	if seed, addr, ok := cfg.Fetch.Refused(ctx, cfg.Seeds); ok {
		return usagef("seed %s: %s is a private or loopback address, which the crawler refuses; -allow-private crawls it", seed, addr)
	}
	fmt.Fprintf(stderr, "freshcrawl crawl: node %s of cluster %s at %s: %s, %d partitions, %s mode, %d seeds, budget %s in all%s\n",
		nc.Node, nc.Cluster, nc.NATS, nc.DataDir, nc.Partitions, nc.Mode, len(cfg.Seeds), budgetString(cfg.Budget), o.forString())
	runCtx := ctx
	if o.runFor > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, o.runFor)
		defer cancel()
	}
	start := time.Now()
	done := make(chan struct{})
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		reportNode(n, start, o.progress, done, stderr)
	}()
	runErr := n.Run(runCtx)
	close(done)
	<-progressDone
	st := n.Stats()
	fmt.Fprintf(stdout, "freshcrawl crawl: node %s stopped after %v: sent %d URLs for %d links to other partitions, received %d (%d new); %s\n",
		nc.Node, time.Since(start).Round(100*time.Millisecond), st.Sent, st.Links, st.Received, st.Admitted, summary(st.Crawl))
	return runErr
}

// reportNode prints a node's progress line every interval.
func reportNode(n *node.Node, start time.Time, interval time.Duration, done <-chan struct{}, w io.Writer) {
	if interval <= 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	last, lastAt := n.Stats(), start
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			st := n.Stats()
			rate := float64(st.Crawl.Requests-last.Crawl.Requests) / now.Sub(lastAt).Seconds()
			fmt.Fprintf(w, "%s  partitions %v  sent %d  received %d\n", progressLine(now.Sub(start), rate, st.Crawl), st.Partitions, st.Sent, st.Received)
			last, lastAt = st, now
		}
	}
}
