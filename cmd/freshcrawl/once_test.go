package main

import (
	"bytes"
	"net/http/httptest"
	"path/filepath"
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
