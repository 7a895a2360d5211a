package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

// TestCrawlOnce crawls a static simweb (no births, deaths or changes
// during the crawl, the clock stopped) of 10 hosts × 50 pages with -once
// and no budget: it must exit 0 by itself, say it finished, hold every
// page robots.txt allows, and keep the delay on every host (simweb's
// politeness audit).
func TestCrawlOnce(t *testing.T) {
	sc := simweb.DefaultConfig()
	sc.Hosts, sc.PagesPerHost, sc.Churn = 10, 50, 0
	sc.Faults, sc.Robots = simweb.Faults{}, simweb.RobotsMix{}
	sc.Audit = simweb.AuditConfig{MinDelay: 10 * time.Millisecond, MaxInFlight: 1}
	web, err := simweb.New(sc, simweb.NewWallClock(0))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(web)
	t.Cleanup(srv.Close)
	allowed := 0
	web.Snapshot(web.Clock().Now(), func(u string, _ simweb.Version) {
		if web.Allowed(u, fetch.DefaultUserAgent) {
			allowed++
		}
	})
	args := []string{"crawl", "-once", "-data", filepath.Join(t.TempDir(), "data"), "-budget", "0", "-delay", "10ms",
		"-scope", "any", "-resolve", "*.test=" + srv.Listener.Addr().String(), "-allow-private", "-progress", "2s", "-log-level", "error"}
	for _, h := range web.Hosts() {
		args = append(args, "-seed", "http://"+h.Name+"/")
	}
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(args, &stdout, &stderr) }()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("-once crawl still running after a minute; stderr:\n%s", stderr.String())
	}
	how, n := summaryNumbers(t, stdout.String())
	held := n[6]
	if how != "finished" || held != int64(allowed) {
		t.Errorf("%s with %d pages held, want finished with all %d allowed; %s", how, held, allowed, stdout.String())
	}
	if a := web.Audit().Report(); a.DelayViolations+a.ConcurrencyViolations+a.CrawlDelayViolations+a.DisallowedRequests != 0 {
		t.Errorf("politeness audit: %+v", a)
	}
}

// TestCrawlOnceChain crawls a chain of pages, each linking only to the
// next, with -once: between a page's answer and its commit the queue is
// empty and no request is in flight, and the crawl must not take that for
// its end. (It did, once pages were processed after their host was handed
// back, before the check counted the outcomes not yet committed.)
func TestCrawlOnceChain(t *testing.T) {
	const n = 40
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		i, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p"))
		if err != nil || i < 0 || i >= n {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		if i+1 < n {
			fmt.Fprintf(w, `<html><body><a href="/p%d">next</a></body></html>`, i+1)
		}
	}))
	t.Cleanup(srv.Close)
	args := []string{"crawl", "-once", "-data", filepath.Join(t.TempDir(), "data"), "-budget", "0", "-delay", "0",
		"-allow-private", "-progress", "0", "-log-level", "error", "-seed", srv.URL + "/p0"}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	how, nums := summaryNumbers(t, stdout.String())
	if held := nums[6]; how != "finished" || held != n {
		t.Errorf("%s with %d pages held, want finished with all %d; %s", how, held, n, stdout.String())
	}
}
