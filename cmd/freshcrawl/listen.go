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
	srv  *ui.Server
	halt func()
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
	addr, halt, err := serveUI(ctx, h.srv, o.listen)
	h.halt = halt
	if err != nil {
		return usagef("-listen: %v", err)
	}
	fmt.Fprintf(w, "freshcrawl crawl: dashboard on http://%s/ (metrics on /metrics, status on /api/status)\n", addr)
	return nil
}

// stop stops serving the view, before the crawl closes.
func (h *uiHook) stop() {
	if h.halt != nil {
		h.halt()
	}
}

// serveUI serves srv on addr (a bare :port on loopback) until ctx ends or
// the stop it returns is called.
func serveUI(ctx context.Context, srv *ui.Server, addr string) (net.Addr, func(), error) {
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	return srv.Listen(ctx, addr)
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
