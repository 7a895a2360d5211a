// Package local runs a crawler cluster on one machine, for trying it out
// (`freshcrawl cluster`): an embedded NATS server and N crawl processes,
// each a node (internal/cluster/node), their output interleaved line by
// line with the node's name in front.
package local

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
)

// Config configures a local cluster.
type Config struct {
	Nodes   int    // crawl processes to start
	NATSDir string // the NATS server's storage directory
	// Command is the program each node runs and Args its arguments;
	// "{nats}" and "{node}" in Args are replaced by the server's URL and
	// the node's name (node1, node2, ...).
	Command string
	Args    []string
	Stdout  io.Writer
	Stderr  io.Writer
}

// Run starts the server and the nodes, and waits for the nodes to end.
// When ctx is done the nodes get SIGTERM, which stops a crawl losing
// nothing, and up to 30 s to end. It returns the nodes' failures.
func Run(ctx context.Context, cfg Config) error {
	if err := os.MkdirAll(cfg.NATSDir, 0o755); err != nil {
		return err
	}
	srv, err := cluster.StartServer(cluster.ServerConfig{Dir: cfg.NATSDir})
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintf(cfg.Stderr, "freshcrawl cluster: NATS at %s (%s), %d nodes\n", srv.URL(), cfg.NATSDir, cfg.Nodes)
	var wg sync.WaitGroup
	errs := make([]error, cfg.Nodes)
	var out sync.Mutex
	for k := range cfg.Nodes {
		name := fmt.Sprintf("node%d", k+1)
		args := make([]string, len(cfg.Args))
		for i, a := range cfg.Args {
			switch a {
			case "{nats}":
				a = srv.URL()
			case "{node}":
				a = name
			}
			args[i] = a
		}
		cmd := exec.CommandContext(ctx, cfg.Command, args...)
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = 30 * time.Second
		outPipe, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		errPipe, err := cmd.StderrPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start %s: %w", name, err)
		}
		wg.Go(func() {
			// Every line is copied before Wait, which closes the pipes.
			var copies sync.WaitGroup
			copies.Go(func() { copyLines(cfg.Stdout, outPipe, name, &out) })
			copies.Go(func() { copyLines(cfg.Stderr, errPipe, name, &out) })
			copies.Wait()
			if err := cmd.Wait(); err != nil && ctx.Err() == nil {
				errs[k] = fmt.Errorf("%s: %w", name, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// copyLines copies r to w line by line, each prefixed with "[name] ",
// holding mu while it writes one so that lines stay whole.
func copyLines(w io.Writer, r io.Reader, name string, mu *sync.Mutex) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		mu.Lock()
		fmt.Fprintf(w, "[%s] %s\n", name, sc.Text())
		mu.Unlock()
	}
	io.Copy(io.Discard, r)
}
