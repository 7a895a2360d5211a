package simweb

import (
	"io"
	"net/http"
	"sync"
	"testing"
	"time"
)

func fetch(t *testing.T, c *http.Client, url, userAgent string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("User-Agent", userAgent)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// The audit reports nothing for a polite client and catches each kind of
// impoliteness of a rude one.
func TestAudit(t *testing.T) {
	const delay = 30 * time.Millisecond
	cfg := serverTestConfig(8, 200)
	cfg.Robots = RobotsMix{CrawlDelay: 0}
	cfg.Audit = AuditConfig{MinDelay: delay, MaxInFlight: 1}
	n := newServerTestNet(t, cfg)
	w, c := n.web, n.client
	hosts := []int32{0, 1, 2}
	allowedPages := func(si int32, n int) []string {
		var out []string
		for slot := int32(0); slot < w.sites[si].pages && len(out) < n; slot++ {
			if !w.sites[si].disallowed(w.sites[si].path(slot, 0), "") {
				out = append(out, w.URL(si, slot, w.VersionAt(si, slot, 0).Gen))
			}
		}
		return out
	}

	t.Run("polite", func(t *testing.T) {
		w.Audit().Reset(AuditConfig{MinDelay: delay, MaxInFlight: 1})
		// One goroutine per host, one request at a time, the delay after
		// each response: hosts in parallel, each host politely.
		var wg sync.WaitGroup
		for _, si := range hosts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, u := range allowedPages(si, 5) {
					fetch(t, c, u, "politebot")
					time.Sleep(delay)
				}
			}()
		}
		wg.Wait()
		r := w.Audit().Report()
		if r.Requests != 15 || r.Hosts != 3 {
			t.Errorf("requests %d hosts %d, want 15 and 3", r.Requests, r.Hosts)
		}
		if r.Violations() != 0 {
			t.Errorf("polite client: %d violations: %+v", r.Violations(), r.Examples)
		}
		if r.MinGap < delay || r.MaxInFlightSeen != 1 {
			t.Errorf("min gap %v, max in flight %d; want ≥ %v and 1", r.MinGap, r.MaxInFlightSeen, delay)
		}
	})

	t.Run("too fast", func(t *testing.T) {
		w.Audit().Reset(AuditConfig{MinDelay: delay, MaxInFlight: 1})
		for _, u := range allowedPages(0, 4) {
			fetch(t, c, u, "rudebot")
		}
		if r := w.Audit().Report(); r.DelayViolations != 3 {
			t.Errorf("4 back-to-back requests: %d delay violations, want 3", r.DelayViolations)
		}
	})

	t.Run("concurrent", func(t *testing.T) {
		cfg := serverTestConfig(2, 50)
		cfg.Faults.Slow, cfg.Faults.SlowDelay = 1, 100*time.Millisecond
		cfg.Audit = AuditConfig{MaxInFlight: 1}
		n := newServerTestNet(t, cfg)
		slow, c := n.web, n.client
		var wg sync.WaitGroup
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() { defer wg.Done(); fetch(t, c, slow.URL(0, 0, 0), "rudebot") }()
		}
		wg.Wait()
		r := slow.Audit().Report()
		if r.ConcurrencyViolations == 0 || r.MaxInFlightSeen < 2 {
			t.Errorf("4 overlapping requests: %d concurrency violations, max in flight %d", r.ConcurrencyViolations, r.MaxInFlightSeen)
		}
	})

	t.Run("disallowed", func(t *testing.T) {
		w.Audit().Reset(AuditConfig{})
		var private string
		for si := int32(0); si < int32(len(w.sites)) && private == ""; si++ {
			for _, cl := range w.sites[si].clusters {
				if cl.private && w.sites[si].robots == RobotsOK {
					private = w.URL(si, cl.start, 0)
					break
				}
			}
		}
		if private == "" {
			t.Fatal("no private directory")
		}
		fetch(t, c, private, "rudebot")
		fetch(t, c, w.URL(0, 0, 0), "BadBot/1.0") // shut out by its own group
		if r := w.Audit().Report(); r.DisallowedRequests != 2 {
			t.Errorf("disallowed requests %d, want 2: %+v", r.DisallowedRequests, r.Examples)
		}
	})

	t.Run("crawl-delay", func(t *testing.T) {
		cfg := serverTestConfig(3, 20)
		cfg.Robots = RobotsMix{CrawlDelay: 1, MaxCrawlDelay: 1}
		n := newServerTestNet(t, cfg)
		cd, c := n.web, n.client
		if cd.sites[0].crawlDelay != 1 {
			t.Fatalf("crawl-delay %d, want 1", cd.sites[0].crawlDelay)
		}
		fetch(t, c, cd.URL(0, 0, 0), "rudebot")
		fetch(t, c, cd.URL(0, 0, 0), "rudebot")
		if r := cd.Audit().Report(); r.CrawlDelayViolations != 1 {
			t.Errorf("two requests within the 1 s Crawl-delay: %d violations, want 1", r.CrawlDelayViolations)
		}
	})
}
