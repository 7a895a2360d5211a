package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"runtime/pprof"
	"strings"

	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/ui"
)

// uiHook is crawl -listen's view of the crawl: nil until it starts.
type uiHook struct {
	srv    *ui.Server
	cancel context.CancelFunc
}

// observe is the crawler's OnFetch under -listen.
func (h *uiHook) observe(e crawler.Event) {
	if h.srv != nil {
		h.srv.Observe(e)
	}
}

// start serves the view of c on -listen's address, if one was given, and
// says where on w.
func (h *uiHook) start(ctx context.Context, o crawlOptions, c *crawler.Crawler, w io.Writer) error {
	if o.listen == "" {
		return nil
	}
	h.srv = ui.New(ui.Config{Crawl: c, Dir: o.dataDir, Policy: o.policy, Objective: o.objective})
	addr, err := serveUI(ctx, h.srv, o.listen, &h.cancel)
	if err != nil {
		return usagef("-listen: %v", err)
	}
	fmt.Fprintf(w, "freshcrawl crawl: dashboard on http://%s/ (metrics on /metrics, status on /api/status)\n", addr)
	return nil
}

func (h *uiHook) stop() {
	if h.cancel != nil {
		h.cancel()
	}
}

// serveUI serves srv on addr (a bare :port on loopback) until ctx ends or
// *cancel is called.
func serveUI(ctx context.Context, srv *ui.Server, addr string, cancel *context.CancelFunc) (net.Addr, error) {
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	ctx, *cancel = context.WithCancel(ctx)
	a, err := srv.Listen(ctx, addr)
	if err != nil {
		(*cancel)()
	}
	return a, err
}

// startProfile starts a CPU profile to path, if one is asked for, and
// returns what stops it.
func startProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
