package simweb

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt")

func newTestWeb(t testing.TB, mutate func(*Config)) (*Web, *ManualClock) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Hosts, cfg.PagesPerHost = 12, 60
	if mutate != nil {
		mutate(&cfg)
	}
	clock := &ManualClock{}
	w, err := New(cfg, clock)
	if err != nil {
		t.Fatal(err)
	}
	return w, clock
}

// get serves one request in-process and returns the response.
func get(w http.Handler, url string, header ...string) *http.Response {
	req := httptest.NewRequest(http.MethodGet, url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	w.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t testing.TB, r *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// digest fetches every live page of a web at the given instants, in the
// given slot order, and hashes the responses and the change times.
func digest(t *testing.T, w *Web, clock *ManualClock, at []time.Duration, reverse bool) string {
	h := sha256.New()
	for _, now := range at {
		clock.Set(now)
		n := int32(w.NumPages())
		out := make([]string, n)
		for k := int32(0); k < n; k++ {
			g := k
			if reverse {
				g = n - 1 - k
			}
			si, slot := g/int32(w.PagesPerSite()), g%int32(w.PagesPerSite())
			v := w.VersionAt(si, slot, int64(now))
			r := get(w, w.URL(si, slot, v.Gen))
			out[g] = fmt.Sprintf("%d %s %s %s\n%v\n", r.StatusCode, r.Header.Get("ETag"), r.Header.Get("Last-Modified"), body(t, r),
				w.ChangeTimes(si, slot, v.Gen, 0, int64(30*day)))
		}
		for _, o := range out {
			io.WriteString(h, o)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// The same seed gives byte-identical pages and change times, whatever the
// order pages are asked for; another seed gives another web; and the web
// of a seed stays what it was when testdata/golden.txt was written
// (go test -run Determinism -update rewrites it after a deliberate change).
func TestDeterminism(t *testing.T) {
	at := []time.Duration{0, 3 * time.Hour, 40 * day}
	small := func(c *Config) { c.Hosts, c.PagesPerHost = 6, 40 }
	w1, c1 := newTestWeb(t, small)
	w2, c2 := newTestWeb(t, small)
	d1 := digest(t, w1, c1, at, false)
	d2 := digest(t, w2, c2, at, true)
	if d1 != d2 {
		t.Fatalf("same seed, different webs: %s vs %s", d1, d2)
	}
	w3, c3 := newTestWeb(t, func(c *Config) { small(c); c.Seed = 2 })
	if d3 := digest(t, w3, c3, at, false); d3 == d1 {
		t.Fatal("seeds 1 and 2 gave the same web")
	}
	golden := filepath.Join("testdata", "golden.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(d1+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(want)) != d1 {
		t.Errorf("web of seed 1 changed: digest %s, golden %s (run with -update if deliberate)", d1, strings.TrimSpace(string(want)))
	}
}

// Conditional GET and validators, per RFC 9110 §13.1–13.2, for each of
// the three validator modes.
func TestValidators(t *testing.T) {
	find := func(w *Web, mode ValidatorMode, gzip bool) int32 {
		for i := range w.sites {
			if w.sites[i].validators == mode && w.sites[i].gzip == gzip {
				return int32(i)
			}
		}
		t.Fatalf("no site with validators %v gzip %v", mode, gzip)
		return 0
	}
	w, clock := newTestWeb(t, func(c *Config) { c.Hosts, c.Churn = 40, 0 })
	// A page that changes within a day, to see a change.
	pageOn := func(si int32) (string, Version) {
		for slot := int32(1); slot < w.sites[si].pages; slot++ {
			if v := w.VersionAt(si, slot, 0); v.Next < int64(20*day) {
				return w.URL(si, slot, v.Gen), v
			}
		}
		t.Fatalf("no page on site %d changes within 20 days", si)
		return "", Version{}
	}

	t.Run("honest", func(t *testing.T) {
		clock.Set(0)
		u, v := pageOn(find(w, Honest, false))
		r := get(w, u)
		etag, lm := r.Header.Get("ETag"), r.Header.Get("Last-Modified")
		if r.StatusCode != 200 || etag == "" || lm == "" {
			t.Fatalf("status %d etag %q last-modified %q", r.StatusCode, etag, lm)
		}
		if want := w.simTime(v.Modified).UTC().Format(http.TimeFormat); lm != want {
			t.Errorf("Last-Modified %q, want the version's change time %q", lm, want)
		}
		cases := []struct {
			name   string
			header []string
			want   int
		}{
			{"If-None-Match matches", []string{"If-None-Match", etag}, 304},
			{"weak If-None-Match matches", []string{"If-None-Match", "W/" + etag}, 304},
			{"If-None-Match in a list", []string{"If-None-Match", `"nope", ` + etag}, 304},
			{"If-None-Match star", []string{"If-None-Match", "*"}, 304},
			{"If-None-Match differs", []string{"If-None-Match", `"nope"`}, 200},
			{"If-Modified-Since = Last-Modified", []string{"If-Modified-Since", lm}, 304},
			{"If-Modified-Since later", []string{"If-Modified-Since", w.simTime(v.Modified + int64(time.Hour)).UTC().Format(http.TimeFormat)}, 304},
			{"If-Modified-Since earlier", []string{"If-Modified-Since", w.simTime(v.Modified - int64(time.Hour)).UTC().Format(http.TimeFormat)}, 200},
			{"If-None-Match wins over If-Modified-Since", []string{"If-None-Match", `"nope"`, "If-Modified-Since", lm}, 200},
		}
		for _, c := range cases {
			if got := get(w, u, c.header...).StatusCode; got != c.want {
				t.Errorf("%s: status %d, want %d", c.name, got, c.want)
			}
		}
		clock.Set(time.Duration(v.Next))
		r2 := get(w, u, "If-None-Match", etag)
		if r2.StatusCode != 200 || r2.Header.Get("ETag") == etag {
			t.Errorf("after a change: status %d etag %q, want 200 and a new ETag", r2.StatusCode, r2.Header.Get("ETag"))
		}
		if got := get(w, u, "If-Modified-Since", lm).StatusCode; got != 200 {
			t.Errorf("after a change, If-Modified-Since old date: %d, want 200", got)
		}
	})

	t.Run("absent", func(t *testing.T) {
		clock.Set(0)
		u, _ := pageOn(find(w, Absent, false))
		r := get(w, u, "If-Modified-Since", w.simTime(int64(100*365*day)).UTC().Format(http.TimeFormat))
		if r.StatusCode != 200 || r.Header.Get("ETag") != "" || r.Header.Get("Last-Modified") != "" {
			t.Errorf("status %d etag %q last-modified %q, want 200 without validators", r.StatusCode, r.Header.Get("ETag"), r.Header.Get("Last-Modified"))
		}
	})

	t.Run("wrong", func(t *testing.T) {
		si := find(w, Wrong, false)
		s := &w.sites[si]
		clock.Set(0)
		u, v := pageOn(si)
		r := get(w, u)
		lm := r.Header.Get("Last-Modified")
		if want := w.simTime(s.lastDeploy(0)).UTC().Format(http.TimeFormat); lm != want {
			t.Fatalf("Last-Modified %q, want the last deploy %q", lm, want)
		}
		// The content changes before the next deploy: the wrong
		// validators still say "not modified".
		next := s.lastDeploy(0) + s.deploy
		if v.Next < next {
			clock.Set(time.Duration(v.Next))
			if got := get(w, u, "If-Modified-Since", lm).StatusCode; got != 304 {
				t.Errorf("changed page before a deploy: %d, want a wrong 304", got)
			}
		}
		// After a deploy the validators change though the content may not.
		clock.Set(time.Duration(next))
		if got := get(w, u, "If-Modified-Since", lm).StatusCode; got != 200 {
			t.Errorf("after a deploy: %d, want 200", got)
		}
	})

	t.Run("gzip", func(t *testing.T) {
		clock.Set(0)
		u, _ := pageOn(find(w, Honest, true))
		r := get(w, u, "Accept-Encoding", "gzip")
		etag := r.Header.Get("ETag")
		if r.Header.Get("Content-Encoding") != "gzip" || !strings.HasSuffix(etag, `-gz"`) {
			t.Fatalf("Content-Encoding %q ETag %q, want gzip and a -gz tag", r.Header.Get("Content-Encoding"), etag)
		}
		plain := get(w, u).Header.Get("ETag")
		for _, tag := range []string{etag, plain} {
			if got := get(w, u, "Accept-Encoding", "gzip", "If-None-Match", tag).StatusCode; got != 304 {
				t.Errorf("If-None-Match %s: %d, want 304", tag, got)
			}
		}
		if r := get(w, u, "Accept-Encoding", "gzip;q=0"); r.Header.Get("Content-Encoding") != "" {
			t.Errorf("gzip;q=0 still gzipped")
		}
	})
}

// Evaluate agrees with freshness and age computed by brute force from the
// change times: a copy fetched at f is fresh at T if no change happened in
// (f, T], else its age is T minus the first change after f (or the death).
func TestEvaluateMatchesBruteForce(t *testing.T) {
	w, _ := newTestWeb(t, func(c *Config) { c.Hosts, c.PagesPerHost = 10, 50 })
	r := splitmix.NewStream(5)
	T := int64(60 * day)
	var copies []Copy
	var fresh int
	var ageSum float64
	for k := 0; k < 500; k++ {
		si, slot := int32(r.IntN(10)), int32(r.IntN(50))
		f := int64(r.Float64() * float64(T))
		v := w.VersionAt(si, slot, f)
		copies = append(copies, Copy{URL: w.URL(si, slot, v.Gen), Version: v.Version})
		_, died := w.lifetime(si, slot, v.Gen)
		stale := int64(math.MaxInt64)
		if ts := w.ChangeTimes(si, slot, v.Gen, f+1, T+1); len(ts) > 0 {
			stale = ts[0]
		}
		stale = min(stale, died)
		if stale > T {
			fresh++
		} else {
			ageSum += float64(T - stale)
		}
	}
	q := w.Evaluate(time.Duration(T), copies)
	if q.Pages != 500 || q.Fresh != fresh {
		t.Errorf("pages %d fresh %d, brute force 500 and %d", q.Pages, q.Fresh, fresh)
	}
	if want := time.Duration(ageSum / 500); absDur(q.MeanAge-want) > time.Microsecond {
		t.Errorf("mean age %v, brute force %v", q.MeanAge, want)
	}
	if q := w.Evaluate(0, []Copy{{URL: "http://nowhere.test/", Version: 0}}); q.Unknown != 1 || q.Pages != 0 {
		t.Errorf("unknown URL: %+v", q)
	}
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// Truth reports dead URLs as dead, with the live URL of their slot.
func TestTruthOfDeadPage(t *testing.T) {
	w, _ := newTestWeb(t, nil)
	for si := int32(0); si < int32(w.NumSites()); si++ {
		for slot := int32(1); slot < int32(w.PagesPerSite()); slot++ {
			_, died := w.lifetime(si, slot, 0)
			if died > int64(200*day) {
				continue
			}
			url := w.URL(si, slot, 0)
			p, err := w.Truth(url, time.Duration(died))
			if err != nil {
				t.Fatal(err)
			}
			if p.Alive || p.Replaced != w.URL(si, slot, 1) {
				t.Fatalf("%s after its death: alive %v replaced by %q", url, p.Alive, p.Replaced)
			}
			if r := get(w, url); r.StatusCode != 200 && died > 0 {
				// The web's clock is at 0, when the page was alive.
				t.Fatalf("%s at time 0: %d", url, r.StatusCode)
			}
			return
		}
	}
	t.Fatal("no page dies within 200 days")
}

// URLs and paths round-trip, and non-canonical forms are refused.
func TestLookupRoundTrip(t *testing.T) {
	w, _ := newTestWeb(t, nil)
	for si := int32(0); si < int32(w.NumSites()); si++ {
		for slot := int32(0); slot < int32(w.PagesPerSite()); slot++ {
			for _, gen := range []int32{0, 3} {
				if gen > 0 && w.sites[si].permanent(slot) {
					continue
				}
				u := w.URL(si, slot, gen)
				s2, sl2, g2, err := w.Lookup(u)
				if err != nil || s2 != si || sl2 != slot || g2 != gen {
					t.Fatalf("Lookup(%q) = %d %d %d %v", u, s2, sl2, g2, err)
				}
			}
		}
	}
	base := "http://" + w.SiteName(0)
	for _, p := range []string{"/x", "/0.html", "/computer/01.html", "/computer/5-0.html", "/computer/5-x.html", "/nope/", "/a/b/99999.html", ""} {
		if _, _, _, err := w.Lookup(base + p); err == nil && p != "" {
			t.Errorf("Lookup accepted %q", p)
		}
	}
}

// New refuses configurations that make no sense, naming the field.
func TestConfigErrors(t *testing.T) {
	bad := []func(*Config){
		func(c *Config) { c.Hosts = 0 },
		func(c *Config) { c.Speed = 0 },
		func(c *Config) { c.IntraSite = 1.5 },
		func(c *Config) { c.ParetoAlpha = 1 },
		func(c *Config) { c.Faults.ServerError = 2 },
		func(c *Config) { c.Validators.Absent, c.Validators.Wrong = 0.7, 0.7 },
	}
	for i, m := range bad {
		cfg := DefaultConfig()
		m(&cfg)
		if _, err := New(cfg, nil); err == nil {
			t.Errorf("bad config %d accepted", i)
		}
	}
}
