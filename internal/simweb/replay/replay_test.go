package replay

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/history"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

// world is a small history: /b/ is born at 2000, deleted at 4000 and born
// again at 5000; /robots.txt is a page whose key clashes with the host's
// robots.txt. With groups of 2, h0 holds /a/ and /b/, h1 /c/ and
// /robots.txt. The clock starts at the first event, 1000.
const world = "# end: 10000\n" +
	"/a/\t1000 1500 3000\n" +
	"/b/\t2000 d4000 5000\n" +
	"/c/\t1000\n" +
	"/robots.txt\t1000\n"

func newTestServer(t *testing.T) (*Server, *simweb.ManualClock) {
	t.Helper()
	h, err := history.Parse(strings.NewReader(world))
	if err != nil {
		t.Fatal(err)
	}
	clock := &simweb.ManualClock{}
	s, err := New(h, Config{Group: 2, Name: "w", Audit: simweb.AuditConfig{MinDelay: time.Hour}}, clock)
	if err != nil {
		t.Fatal(err)
	}
	return s, clock
}

func get(s http.Handler, url string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	rw := httptest.NewRecorder()
	s.ServeHTTP(rw, r)
	return rw
}

// TestServe asks each kind of URL at instants around the events, with the
// status, version and links the history implies.
func TestServe(t *testing.T) {
	s, clock := newTestServer(t)
	tests := []struct {
		at           int64 // history instant
		url          string
		status       int
		version      uint32
		has, hasNot  string
		lastModified int64
	}{
		{1000, "http://h0-w.test/", 200, 1, `href="/a/"`, `href="/b/"`, 1000},
		{1000, "http://h0-w.test/b/", 404, 0, "", "", 0},
		{1000, "http://h0-w.test/a/", 200, 1, `href="/"`, "Next", 1000},
		{2000, "http://h0-w.test/", 200, 2, `href="/b/"`, "", 2000},
		{2000, "http://h0-w.test/a/", 200, 2, `href="/b/">Next: /b/`, "Previous", 1500},
		{2000, "http://h0-w.test/b/", 200, 1, `href="/a/">Previous: /a/`, "Next", 2000},
		{4500, "http://h0-w.test/b/", 404, 0, "", "", 0},
		{4500, "http://h0-w.test/", 200, 3, `href="/a/"`, `href="/b/"`, 4000},
		{5000, "http://h0-w.test/b/", 200, 2, "", "", 5000},
		{1000, "http://h1-w.test/robots.txt", 200, 0, "Allow: /\n", "simweb", 0},
		{1000, "http://h1-w.test/_/robots.txt", 200, 1, `href="/c/">Previous: /c/`, "", 1000},
		{1000, "http://h1-w.test/sitemap.xml", 200, 0, "<loc>http://h1-w.test/_/robots.txt</loc><lastmod>1970-01-01T00:16:40Z</lastmod>", "/a/", 0},
		{1000, "http://h1-w.test/a/", 404, 0, "", "", 0},
		{1000, "http://nope.test/", http.StatusMisdirectedRequest, 0, "", "", 0},
		{99999, "http://h0-w.test/a/", 200, 3, "", "", 3000},
	}
	for _, tt := range tests {
		clock.Set(time.Duration(tt.at-1000) * time.Second)
		rw := get(s, tt.url)
		body := rw.Body.String()
		if rw.Code != tt.status {
			t.Errorf("%d %s: status %d, want %d", tt.at, tt.url, rw.Code, tt.status)
			continue
		}
		if v, ok := simweb.VersionOf(rw.Body.Bytes()); v != tt.version || ok != (tt.version > 0) {
			t.Errorf("%d %s: version %d %v, want %d", tt.at, tt.url, v, ok, tt.version)
		}
		if !strings.Contains(body, tt.has) || tt.hasNot != "" && strings.Contains(body, tt.hasNot) {
			t.Errorf("%d %s: body lacks %q or has %q:\n%s", tt.at, tt.url, tt.has, tt.hasNot, body)
		}
		if tt.lastModified > 0 && rw.Header().Get("Last-Modified") != unix(tt.lastModified).Format(http.TimeFormat) {
			t.Errorf("%d %s: Last-Modified %q", tt.at, tt.url, rw.Header().Get("Last-Modified"))
		}
	}
}

// TestConditional checks that a GET with the version's validators gets a
// 304, and after a change a 200 with new validators.
func TestConditional(t *testing.T) {
	s, clock := newTestServer(t)
	clock.Set(600 * time.Second) // 1600: /a/ at version 2
	first := get(s, "http://h0-w.test/a/")
	etag, mod := first.Header().Get("ETag"), first.Header().Get("Last-Modified")
	if etag == "" || mod == "" {
		t.Fatal("no validators")
	}
	if rw := get(s, "http://h0-w.test/a/", "If-None-Match", etag); rw.Code != 304 || rw.Body.Len() != 0 {
		t.Errorf("If-None-Match: %d", rw.Code)
	}
	if rw := get(s, "http://h0-w.test/a/", "If-Modified-Since", mod); rw.Code != 304 {
		t.Errorf("If-Modified-Since: %d", rw.Code)
	}
	clock.Set(2000 * time.Second) // 3000: version 3
	if rw := get(s, "http://h0-w.test/a/", "If-None-Match", etag); rw.Code != 200 || rw.Header().Get("ETag") == etag {
		t.Errorf("after the change: %d, ETag %s", rw.Code, rw.Header().Get("ETag"))
	}
}

// TestTruthAndEvaluate scores a collection by hand at 4500, and checks the
// truth of a deleted page and the count of live pages.
func TestTruthAndEvaluate(t *testing.T) {
	s, clock := newTestServer(t)
	clock.Set(3500 * time.Second)
	now := clock.Now()
	q := s.Evaluate(now, []simweb.Copy{
		{URL: "http://h0-w.test/a/", Version: 2},           // stale since 3000: 1500 s
		{URL: "http://h0-w.test/", Version: 2},             // the index, stale since /b/'s deletion at 4000: 500 s
		{URL: "http://h0-w.test/b/", Version: 1},           // deleted at 4000: 500 s
		{URL: "http://h1-w.test/c/", Version: 1},           // fresh
		{URL: "http://h1-w.test/b/", Version: 1},           // not on this host
		{URL: "http://h1-w.test/_/robots.txt", Version: 1}, // fresh
	})
	want := simweb.Quality{Pages: 5, Fresh: 2, Freshness: 0.4, MeanAge: 500 * time.Second, Unknown: 1}
	if q != want {
		t.Errorf("Evaluate = %+v, want %+v", q, want)
	}
	tr, err := s.Truth("http://h0-w.test/b/", now)
	if err != nil || tr.Alive || !tr.Born.Equal(unix(2000)) || !tr.Next.Equal(unix(5000)) || tr.Process != "replay" {
		t.Errorf("truth of /b/: %+v, %v", tr, err)
	}
	// /a/: 2 modifications in 9000 s of life.
	if tr, _ := s.Truth("http://h0-w.test/a/", now); !tr.Alive || tr.Version != 3 || tr.Rate != 2/(9000.0/86400) {
		t.Errorf("truth of /a/: %+v", tr)
	}
	if n := s.LivePages(now); n != 5 {
		t.Errorf("LivePages = %d, want 5 (/a/, /c/, /robots.txt and two index pages)", n)
	}
	rw := get(s.ControlHandler(), "http://control/truth?url=http://h0-w.test/a/&t=500")
	var got simweb.PageTruth
	if err := json.Unmarshal(rw.Body.Bytes(), &got); err != nil || got.Version != 2 || !got.Modified.Equal(unix(1500)) {
		t.Errorf("/truth: %s", rw.Body.String())
	}
}

// TestDiscovery measures the lag of /b/, born at 2000 (clock 1000 s), and
// fetched first at clock 1500 s; /b/'s re-creation does not count.
func TestDiscovery(t *testing.T) {
	s, _ := newTestServer(t)
	b := "http://h0-w.test/b/"
	tests := []struct {
		start, now time.Duration
		first      map[string]time.Duration
		want       Discovery
	}{
		{0, 9000 * time.Second, map[string]time.Duration{b: 1500 * time.Second},
			Discovery{New: 1, Lags: []time.Duration{500 * time.Second}, Median: 500 * time.Second}},
		{0, 9000 * time.Second, nil, Discovery{New: 1, Censored: 1}},
		{0, 500 * time.Second, nil, Discovery{}},                   // not born yet
		{1000 * time.Second, 9000 * time.Second, nil, Discovery{}}, // born at the crawl's start
	}
	for i, tt := range tests {
		got := s.Discovery(tt.start, tt.now, tt.first)
		if got.New != tt.want.New || got.Censored != tt.want.Censored || got.Median != tt.want.Median || len(got.Lags) != len(tt.want.Lags) {
			t.Errorf("%d: %+v, want %+v", i, got, tt.want)
		}
	}
}

// TestAudit checks that the replay counts politeness as simweb does: two
// requests to one host within the hour of MinDelay are one violation, and
// requests to another host are not.
func TestAudit(t *testing.T) {
	s, _ := newTestServer(t)
	get(s, "http://h0-w.test/robots.txt")
	get(s, "http://h1-w.test/robots.txt")
	get(s, "http://h0-w.test/")
	rep := s.Audit().Report()
	if rep.Requests != 3 || rep.Hosts != 2 || rep.DelayViolations != 1 || rep.Violations() != 1 {
		t.Errorf("audit: %+v", rep)
	}
	rw := httptest.NewRecorder()
	s.ControlHandler().ServeHTTP(rw, httptest.NewRequest("POST", "http://control/audit/reset?delay=0s", nil))
	if rep := s.Audit().Report(); rw.Code != 200 || rep.Requests != 0 || rep.MinDelay != 0 {
		t.Errorf("reset: %d %+v", rw.Code, rep)
	}
}
