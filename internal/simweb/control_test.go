package simweb

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestControlAPI(t *testing.T) {
	w, clock := newTestWeb(t, func(c *Config) { c.Hosts, c.PagesPerHost = 5, 30 })
	clock.Set(10 * day)
	srv := httptest.NewServer(w.ControlHandler())
	defer srv.Close()
	getJSON := func(path string, v any) int {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if v != nil && resp.StatusCode == 200 {
			if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
				t.Fatal(err)
			}
		}
		return resp.StatusCode
	}

	t.Run("clock", func(t *testing.T) {
		var c struct {
			SimSeconds float64 `json:"sim_seconds"`
		}
		getJSON("/clock", &c)
		if c.SimSeconds != (10 * day).Seconds() {
			t.Errorf("sim_seconds %g, want %g", c.SimSeconds, (10 * day).Seconds())
		}
	})
	t.Run("hosts", func(t *testing.T) {
		var hs []HostInfo
		getJSON("/hosts", &hs)
		if len(hs) != 5 || hs[2].Name != w.SiteName(2) {
			t.Errorf("hosts %+v", hs)
		}
	})
	t.Run("truth", func(t *testing.T) {
		v := w.VersionAt(1, 7, int64(10*day))
		var p PageTruth
		if code := getJSON("/truth?url="+w.URL(1, 7, v.Gen), &p); code != 200 {
			t.Fatalf("status %d", code)
		}
		if !p.Alive || p.Version != v.Version || !p.Modified.Equal(w.simTime(v.Modified)) {
			t.Errorf("truth %+v, want version %d modified %v", p, v.Version, w.simTime(v.Modified))
		}
		var p0 PageTruth
		getJSON("/truth?t=0&url="+w.URL(1, 7, 0), &p0)
		if p0.Version != 0 {
			t.Errorf("truth at t=0: version %d, want 0", p0.Version)
		}
		for path, want := range map[string]int{
			"/truth?url=http://nowhere.test/":              404,
			"/truth?t=yesterday&url=" + w.URL(1, 7, v.Gen): 400,
			"/truth?t=-5&url=" + w.URL(1, 7, v.Gen):        400,
		} {
			if code := getJSON(path, nil); code != want {
				t.Errorf("%s: %d, want %d", path, code, want)
			}
		}
	})
	t.Run("snapshot and evaluate", func(t *testing.T) {
		resp, err := http.Get(srv.URL + "/snapshot")
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			var rec struct {
				URL     string `json:"url"`
				Version uint32 `json:"version"`
			}
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, fmt.Sprintf("%s\t%d", rec.URL, rec.Version))
		}
		resp.Body.Close()
		if len(lines) != w.NumPages() {
			t.Fatalf("snapshot has %d pages, want %d", len(lines), w.NumPages())
		}
		// The snapshot taken now is a perfectly fresh collection now.
		post := func(q string) Quality {
			resp, err := http.Post(srv.URL+"/evaluate"+q, "text/plain", strings.NewReader(strings.Join(lines, "\n")))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var got Quality
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
				t.Fatal(err)
			}
			return got
		}
		if q := post(""); q.Pages != w.NumPages() || q.Freshness != 1 || q.MeanAge != 0 {
			t.Errorf("evaluate now: %+v", q)
		}
		later := post(fmt.Sprintf("?t=%d", int((30 * day).Seconds())))
		if later.Freshness >= 1 || later.MeanAge <= 0 {
			t.Errorf("evaluate 20 days later: %+v, want some stale pages", later)
		}
		if want := w.Evaluate(30*day, parseCopies(lines)); later != want {
			t.Errorf("HTTP evaluate %+v, Go evaluate %+v", later, want)
		}
		resp, _ = http.Post(srv.URL+"/evaluate", "text/plain", strings.NewReader("no tab here"))
		if resp.StatusCode != 400 {
			t.Errorf("malformed evaluate body: %d, want 400", resp.StatusCode)
		}
		resp.Body.Close()
	})
	t.Run("audit reset", func(t *testing.T) {
		resp, err := http.Post(srv.URL+"/audit/reset?delay=250ms&concurrency=2", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		var r AuditReport
		getJSON("/audit", &r)
		if r.MinDelay != 250*time.Millisecond || r.MaxInFlight != 2 || r.Requests != 0 {
			t.Errorf("after reset: %+v", r)
		}
		resp, _ = http.Post(srv.URL+"/audit/reset?delay=soon", "", nil)
		if resp.StatusCode != 400 {
			t.Errorf("bad delay: %d, want 400", resp.StatusCode)
		}
		resp.Body.Close()
	})
}

func parseCopies(lines []string) []Copy {
	var out []Copy
	for _, l := range lines {
		var c Copy
		u, v, _ := strings.Cut(l, "\t")
		fmt.Sscan(v, &c.Version)
		c.URL = u
		out = append(out, c)
	}
	return out
}

// parsePath never panics and accepts only paths it would itself write.
func FuzzParsePath(f *testing.F) {
	w, _ := newTestWeb(f, func(c *Config) { c.Hosts, c.PagesPerHost = 2, 300 })
	s := &w.sites[0]
	for _, p := range []string{"/", "/x/", s.path(5, 0), s.path(7, 2), "/a/1-.html", "//", "/private/x/9.html"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		slot, gen, ok := s.parsePath(p)
		if ok && s.path(slot, gen) != p {
			t.Errorf("parsePath(%q) = slot %d gen %d, whose path is %q", p, slot, gen, s.path(slot, gen))
		}
	})
}

func TestParseFaults(t *testing.T) {
	f, err := ParseFaults("5xx=0.1, slow=0.2,trap=1", DefaultFaultSizes())
	if err != nil || f.ServerError != 0.1 || f.Slow != 0.2 || f.Trap != 1 || f.Reset != 0 {
		t.Errorf("got %+v, %v", f, err)
	}
	all, err := ParseFaults("all=0.01", Faults{})
	if err != nil || all.Bomb != 0.01 || all.Charset != 0.01 {
		t.Errorf("all=0.01: %+v, %v", all, err)
	}
	for _, bad := range []string{"5xx", "5xx=2", "nope=0.1", "slow=x"} {
		if _, err := ParseFaults(bad, Faults{}); err == nil {
			t.Errorf("ParseFaults(%q) accepted", bad)
		}
	}
}
