package fetch

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

// testWeb serves a small simweb on loopback and returns a fetcher that
// reaches its hosts through a "*.test" resolve rule.
func testWeb(t *testing.T, mutate func(*simweb.Config), fc Config) (*simweb.Web, *Fetcher) {
	t.Helper()
	cfg := simweb.DefaultConfig()
	cfg.Hosts, cfg.PagesPerHost = 6, 30
	if mutate != nil {
		mutate(&cfg)
	}
	web, err := simweb.New(cfg, &simweb.ManualClock{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(web)
	t.Cleanup(srv.Close)
	fc.AllowPrivate = true
	fc.Resolve = append(fc.Resolve, ResolveRule{Pattern: "*.test", Addr: srv.Listener.Addr().String()})
	f := New(fc)
	t.Cleanup(f.Close)
	return web, f
}

func honestHost(t *testing.T, web *simweb.Web, gzip bool) string {
	for _, h := range web.Hosts() {
		if h.Validators == "honest" && h.Gzip == gzip {
			return h.Name
		}
	}
	t.Fatalf("no honest host with gzip=%v", gzip)
	return ""
}

func TestConditionalGET(t *testing.T) {
	web, f := testWeb(t, func(c *simweb.Config) { c.Hosts = 12 }, Config{})
	ctx := context.Background()
	for _, gzip := range []bool{false, true} {
		u := "http://" + honestHost(t, web, gzip) + "/"
		r, err := f.Fetch(ctx, Request{URL: u})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != 200 || !bytes.Contains(r.Body, []byte("<title>")) {
			t.Fatalf("gzip=%v: status %d body %.60q", gzip, r.Status, r.Body)
		}
		if enc := r.Header.Get("Content-Encoding"); gzip != (enc == "gzip") || gzip && bytes.Equal(r.Raw, r.Body) {
			t.Errorf("gzip=%v: Content-Encoding %q; raw and decoded bodies equal: %v", gzip, enc, bytes.Equal(r.Raw, r.Body))
		}
		etag, lm := r.Header.Get("ETag"), r.Header.Get("Last-Modified")
		for _, req := range []Request{{URL: u, ETag: etag}, {URL: u, LastModified: lm}} {
			r2, err := f.Fetch(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if !r2.NotModified() || len(r2.Raw) != 0 {
				t.Errorf("conditional GET %+v: status %d, %d body bytes", req, r2.Status, len(r2.Raw))
			}
			if got := r2.RequestHeader.Get("If-None-Match") + r2.RequestHeader.Get("If-Modified-Since"); got == "" {
				t.Errorf("no validator sent for %+v", req)
			}
		}
	}
}

func TestRedirectNotFollowed(t *testing.T) {
	web, f := testWeb(t, func(c *simweb.Config) { c.Faults.Redirect = 1 }, Config{})
	host := web.SiteName(0)
	r, err := f.Fetch(context.Background(), Request{URL: "http://" + host + "/go/2/"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != http.StatusMovedPermanently || r.Location != "http://"+host+"/go/1/" {
		t.Errorf("status %d location %q, want 301 to the next hop", r.Status, r.Location)
	}
}

func TestLimits(t *testing.T) {
	ctx := context.Background()
	t.Run("body", func(t *testing.T) {
		web, f := testWeb(t, func(c *simweb.Config) { c.Faults.Oversize, c.Faults.OversizeBytes = 1, 5<<20 }, Config{MaxBodyBytes: 1 << 20})
		r, err := f.Fetch(ctx, Request{URL: "http://" + web.SiteName(0) + "/big/1.html"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Truncated != "length" || len(r.Raw) != 1<<20 {
			t.Errorf("truncated %q after %d bytes, want length after 1 MiB", r.Truncated, len(r.Raw))
		}
	})
	t.Run("gzip bomb", func(t *testing.T) {
		web, f := testWeb(t, func(c *simweb.Config) { c.Faults.Bomb, c.Faults.BombBytes = 1, 64<<20 }, Config{MaxDecodedBytes: 2 << 20})
		r, err := f.Fetch(ctx, Request{URL: "http://" + web.SiteName(0) + "/bomb/1.html"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Truncated != "length" || len(r.Body) != 2<<20 || !errors.Is(r.DecodeError, errDecodedTooLarge) {
			t.Errorf("truncated %q, %d decoded bytes, error %v; want the 2 MiB limit", r.Truncated, len(r.Body), r.DecodeError)
		}
	})
	t.Run("time", func(t *testing.T) {
		web, f := testWeb(t, func(c *simweb.Config) { c.Faults.Slow, c.Faults.SlowDelay = 1, 2*time.Second }, Config{Timeout: 100 * time.Millisecond})
		start := time.Now()
		_, err := f.Fetch(ctx, Request{URL: "http://" + web.SiteName(0) + "/"})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("slow server: error %v, want a deadline", err)
		}
		if d := time.Since(start); d > 1500*time.Millisecond {
			t.Errorf("fetch took %v despite a 100 ms timeout", d)
		}
	})
	t.Run("headers", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Big", strings.Repeat("a", 100<<10))
		}))
		defer srv.Close()
		f := New(Config{AllowPrivate: true, MaxHeaderBytes: 16 << 10})
		defer f.Close()
		if _, err := f.Fetch(ctx, Request{URL: srv.URL}); err == nil {
			t.Error("a 100 KiB header was accepted with a 16 KiB limit")
		}
	})
	t.Run("reset", func(t *testing.T) {
		web, f := testWeb(t, func(c *simweb.Config) { c.Faults.Reset = 1 }, Config{})
		if _, err := f.Fetch(ctx, Request{URL: "http://" + web.SiteName(0) + "/"}); err == nil {
			t.Error("a reset connection gave no error")
		}
	})
}

// Loopback and private addresses are refused unless allowed, whether
// literal or reached through a name, and the check is on the address
// actually dialled.
func TestPrivateAddressesRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	ctx := context.Background()
	f := New(Config{Resolve: []ResolveRule{{Pattern: "inside.example", Addr: srv.Listener.Addr().String()}}})
	defer f.Close()
	for _, u := range []string{srv.URL, "http://inside.example/", "http://[::1]:1/", "http://0.0.0.0:1/"} {
		if _, err := f.Fetch(ctx, Request{URL: u}); !errors.Is(err, ErrPrivate) {
			t.Errorf("%s: error %v, want ErrPrivate", u, err)
		}
	}
	for _, u := range []string{"ftp://example.com/", "file:///etc/passwd", "javascript:alert(1)"} {
		if _, err := f.Fetch(ctx, Request{URL: u}); !errors.Is(err, ErrScheme) {
			t.Errorf("%s: error %v, want ErrScheme", u, err)
		}
	}
	allowed := New(Config{AllowPrivate: true})
	defer allowed.Close()
	if r, err := allowed.Fetch(ctx, Request{URL: srv.URL}); err != nil || r.Status != 200 {
		t.Errorf("with AllowPrivate: %v", err)
	}
}

// A Dial given in the Config is what connects, behind the address guard:
// it is never asked for a private address unless they are allowed, and it
// gets the address the resolve rules chose.
func TestDialBehindGuard(t *testing.T) {
	var dialed []string
	dial := func(ctx context.Context, network, address string) (net.Conn, error) {
		dialed = append(dialed, address)
		return nil, errors.New("no network here")
	}
	rules := []ResolveRule{{Pattern: "*.test", Addr: "127.0.0.1:8080"}}
	f := New(Config{Resolve: rules, Dial: dial})
	defer f.Close()
	ctx := context.Background()
	if _, err := f.Fetch(ctx, Request{URL: "http://a.test/"}); !errors.Is(err, ErrPrivate) {
		t.Errorf("error %v, want ErrPrivate", err)
	}
	if len(dialed) != 0 {
		t.Errorf("Dial was asked for %v although private addresses are not allowed", dialed)
	}
	allowed := New(Config{Resolve: rules, Dial: dial, AllowPrivate: true})
	defer allowed.Close()
	if _, err := allowed.Fetch(ctx, Request{URL: "http://a.test/"}); err == nil {
		t.Error("a fetch through a Dial that fails succeeded")
	}
	if len(dialed) != 1 || dialed[0] != "127.0.0.1:8080" {
		t.Errorf("Dial was asked for %v, want [127.0.0.1:8080]", dialed)
	}
}

func TestPublic(t *testing.T) {
	tests := []struct {
		addr   string
		public bool
	}{
		{"8.8.8.8", true}, {"93.184.216.34", true}, {"2606:2800:220:1::1", true},
		{"127.0.0.1", false}, {"127.8.9.10", false}, {"10.1.2.3", false}, {"172.16.0.1", false}, {"172.31.255.255", false},
		{"172.32.0.1", true}, {"192.168.1.1", false}, {"169.254.169.254", false}, {"100.64.0.1", false},
		{"0.0.0.0", false}, {"224.0.0.1", false}, {"255.255.255.255", false},
		{"::1", false}, {"::", false}, {"fe80::1", false}, {"fd00::1", false}, {"ff02::1", false},
		{"::ffff:127.0.0.1", false}, {"::ffff:8.8.8.8", true},
	}
	for _, tt := range tests {
		if got := Public(netip.MustParseAddr(tt.addr)); got != tt.public {
			t.Errorf("Public(%s) = %v, want %v", tt.addr, got, tt.public)
		}
	}
}

func TestParseResolve(t *testing.T) {
	r, err := ParseResolve("*.Test=127.0.0.1:8080")
	if err != nil || !r.match("h1-com.test") || r.match("test") || r.match("h1-com.test.evil") {
		t.Errorf("wildcard rule %+v, %v", r, err)
	}
	exact, err := ParseResolve("a.example=[::1]:80")
	if err != nil || !exact.match("a.example") || exact.match("b.a.example") {
		t.Errorf("exact rule %+v, %v", exact, err)
	}
	for _, bad := range []string{"a.example", "=1.2.3.4:80", "a.example=1.2.3.4", "a.*.example=1.2.3.4:80"} {
		if _, err := ParseResolve(bad); err == nil {
			t.Errorf("ParseResolve(%q) accepted", bad)
		}
	}
}

func TestDecode(t *testing.T) {
	text := []byte(strings.Repeat("deflate me ", 100))
	var z, raw bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(text)
	zw.Close()
	fw, _ := flate.NewWriter(&raw, flate.BestSpeed)
	fw.Write(text)
	fw.Close()
	for name, enc := range map[string][]byte{"zlib deflate": z.Bytes(), "raw deflate": raw.Bytes()} {
		got, err := decode(enc, "deflate", 1<<20)
		if err != nil || !bytes.Equal(got, text) {
			t.Errorf("%s: %v, %d bytes", name, err, len(got))
		}
	}
	if _, err := decode([]byte("x"), "br", 10); err == nil {
		t.Error("unsupported encoding accepted")
	}
	if _, err := decode([]byte("\x1f\x8b garbage"), "gzip", 10); err == nil {
		t.Error("corrupt gzip accepted")
	}
}

// TestNoSilentRetry resets a kept-alive connection as the second request
// arrives. net/http would resend an idempotent GET on a new connection at
// once — a second request to the host with no gap, and a failure the
// crawler never sees. Fetch must report the failure and the server must
// see exactly the two requests made.
func TestNoSilentRetry(t *testing.T) {
	var mu sync.Mutex
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		n := requests
		mu.Unlock()
		if len(r.TransferEncoding) > 0 || r.ContentLength != 0 || r.Header.Get("Content-Length") != "" {
			t.Errorf("GET carries a body: Transfer-Encoding %v, Content-Length %d", r.TransferEncoding, r.ContentLength)
		}
		if n == 2 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close() // no answer at all: the client sees the connection drop
			}
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	f := New(Config{AllowPrivate: true})
	defer f.Close()
	if _, err := f.Fetch(context.Background(), Request{URL: srv.URL + "/a"}); err != nil {
		t.Fatal(err)
	}
	_, err := f.Fetch(context.Background(), Request{URL: srv.URL + "/b"})
	if err == nil {
		t.Error("a dropped connection was not reported")
	}
	time.Sleep(50 * time.Millisecond) // a resent request would have arrived by now
	mu.Lock()
	defer mu.Unlock()
	if requests != 2 {
		t.Errorf("server saw %d requests, want 2 (net/http resent one by itself)", requests)
	}
}

// TestRefused checks the start-up check of seeds: the first URL whose host
// resolves (by a rule or as a literal) only to refused addresses is named,
// public ones and unparsable ones pass, and AllowPrivate refuses nothing.
func TestRefused(t *testing.T) {
	cfg := Config{Resolve: []ResolveRule{{Pattern: "a.test", Addr: "10.1.2.3:80"}, {Pattern: "b.test", Addr: "93.184.216.34:80"}}}
	ctx := context.Background()
	for _, tt := range []struct {
		urls []string
		want string
	}{
		{[]string{"http://b.test/", "http://a.test/x", "http://127.0.0.1:9/"}, "http://a.test/x"},
		{[]string{"http://[::1]:8080/"}, "http://[::1]:8080/"},
		{[]string{"http://b.test/", "http://93.184.216.34/", "::bad"}, ""},
	} {
		got, addr, ok := cfg.Refused(ctx, tt.urls)
		if got != tt.want || ok != (tt.want != "") || ok && Public(addr) {
			t.Errorf("Refused(%q) = %q, %v, %v; want %q", tt.urls, got, addr, ok, tt.want)
		}
	}
	cfg.AllowPrivate = true
	if got, _, ok := cfg.Refused(ctx, []string{"http://a.test/"}); ok {
		t.Errorf("with AllowPrivate: %q refused", got)
	}
}
