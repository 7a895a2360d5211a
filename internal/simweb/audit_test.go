package simweb

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// client returns an HTTP client that sends every request to srv, whatever
// the host in the URL (as a crawler with a resolver override would).
func client(srv *httptest.Server) *http.Client {
	addr := srv.Listener.Addr().String()
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
		MaxConnsPerHost: 16,
	}}
}

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
	w, _ := newTestWeb(t, func(c *Config) {
		c.Hosts, c.PagesPerHost = 8, 200
		c.Robots = RobotsMix{CrawlDelay: 0}
		c.Audit = AuditConfig{MinDelay: delay, MaxInFlight: 1}
	})
	srv := httptest.NewServer(w)
	defer srv.Close()
	c := client(srv)
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
		slow, _ := newTestWeb(t, func(c *Config) {
			c.Hosts, c.PagesPerHost = 2, 50
			c.Faults.Slow, c.Faults.SlowDelay = 1, 100*time.Millisecond
			c.Audit = AuditConfig{MaxInFlight: 1}
		})
		srv := httptest.NewServer(slow)
		defer srv.Close()
		c := client(srv)
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
		cd, _ := newTestWeb(t, func(c *Config) {
			c.Hosts, c.PagesPerHost = 3, 20
			c.Robots = RobotsMix{CrawlDelay: 1, MaxCrawlDelay: 1}
		})
		if cd.sites[0].crawlDelay != 1 {
			t.Fatalf("crawl-delay %d, want 1", cd.sites[0].crawlDelay)
		}
		srv := httptest.NewServer(cd)
		defer srv.Close()
		c := client(srv)
		fetch(t, c, cd.URL(0, 0, 0), "rudebot")
		fetch(t, c, cd.URL(0, 0, 0), "rudebot")
		if r := cd.Audit().Report(); r.CrawlDelayViolations != 1 {
			t.Errorf("two requests within the 1 s Crawl-delay: %d violations, want 1", r.CrawlDelayViolations)
		}
	})
}
