package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/freshcrawl/freshcrawl/internal/cluster/local"
	"github.com/freshcrawl/freshcrawl/internal/cluster/node"
)

// runCluster is `freshcrawl cluster`: an embedded NATS server and N crawl
// processes on this machine, each `crawl -cluster URL -node nodeK` with
// the other flags given.
func runCluster(args []string, stdout, stderr io.Writer) int {
	nodes, natsDir, rest, err := clusterArgs(args)
	if err == nil {
		var o crawlOptions
		fs := crawlFlags(&o)
		if err = parseCrawl(fs, rest); errors.Is(err, flag.ErrHelp) {
			printHelp("cluster", clusterHelpFlags(), stdout)
			return 0
		}
		switch {
		case err != nil:
		case o.cluster.url != "" || o.cluster.node != "":
			err = usagef("-cluster and -node are set by freshcrawl cluster itself")
		case o.once:
			err = usagef("-once is not available in a cluster; give -for")
		default:
			err = checkNodeFlags(o)
		}
		if natsDir == "" {
			natsDir = filepath.Join(o.dataDir, "nats")
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl cluster: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl cluster: %v\n", err)
		return 1
	}
	err = local.Run(ctx, local.Config{
		Nodes: nodes, NATSDir: natsDir, Command: self,
		Args:   append([]string{"crawl", "-cluster", "{nats}", "-node", "{node}"}, rest...),
		Stdout: stdout, Stderr: stderr,
	})
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl cluster: %v\n", err)
		return 1
	}
	return 0
}

// checkNodeFlags checks the flags each node will be given, as the node
// would, before any is started.
func checkNodeFlags(o crawlOptions) error {
	o.cluster.url, o.cluster.node = "nats://127.0.0.1:4222", "node1"
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg, err := o.config(log)
	if err != nil {
		return err
	}
	nc, err := o.nodeConfig(cfg, log)
	if err != nil {
		return err
	}
	if _, err := node.New(nc); err != nil {
		return usageError{err}
	}
	return nil
}

// clusterArgs takes the cluster command's own flags, -nodes and
// -nats-dir, out of args; the rest are crawl's.
func clusterArgs(args []string) (nodes int, natsDir string, rest []string, err error) {
	nodes = 2
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || a == "--" || name != "nodes" && name != "nats-dir" {
			rest = append(rest, a)
			continue
		}
		if !hasValue {
			if i+1 == len(args) {
				return 0, "", nil, usagef("flag needs an argument: -%s", name)
			}
			i++
			value = args[i]
		}
		if name == "nats-dir" {
			natsDir = value
			continue
		}
		if nodes, err = strconv.Atoi(value); err != nil || nodes < 1 || nodes > 64 {
			return 0, "", nil, usagef("-nodes %q: want 1 to 64", value)
		}
	}
	return nodes, natsDir, rest, nil
}

// clusterHelpFlags lists the cluster command's own flags, for -h.
func clusterHelpFlags() *flag.FlagSet {
	fs := newFlagSet("cluster")
	fs.Int("nodes", 2, "crawl processes to start (1 to 64)")
	fs.String("nats-dir", "", "the embedded NATS server's storage `directory` (default: -data's nats/)")
	return fs
}
