package simweb

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// benchWriter is a minimal http.ResponseWriter: it keeps the headers and the
// status and counts the body bytes, so a benchmark measures the handler and
// not a recorder's buffer.
type benchWriter struct {
	h      http.Header
	status int
	n      int64
}

func (w *benchWriter) Header() http.Header { return w.h }
func (w *benchWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
func (w *benchWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.n += int64(len(p))
	return len(p), nil
}

func (w *benchWriter) reset() {
	clear(w.h)
	w.status, w.n = 0, 0
}

// benchWeb builds a 100 × 1000 web on a fixed clock (one simulated day in)
// and a fixed list of requests for every 10th live page: 10,000 URLs over
// all hosts, ordered so that consecutive requests go to different hosts.
func benchWeb(b *testing.B, gzip bool) (*Web, []*http.Request) {
	b.Helper()
	cfg := DefaultConfig()
	cfg.Hosts, cfg.PagesPerHost = 100, 1000
	clock := &ManualClock{}
	clock.Set(24 * time.Hour)
	w, err := New(cfg, clock)
	if err != nil {
		b.Fatal(err)
	}
	var urls []string
	i := 0
	w.Snapshot(clock.Now(), func(url string, v Version) {
		if i%10 == 0 {
			urls = append(urls, url)
		}
		i++
	})
	// A stride coprime to the length spreads consecutive requests over hosts.
	step := 7919
	for gcd(step, len(urls)) != 1 {
		step += 2
	}
	reqs := make([]*http.Request, len(urls))
	for k, j := 0, 0; k < len(urls); k, j = k+1, (j+step)%len(urls) {
		r := httptest.NewRequest(http.MethodGet, urls[j], nil)
		r.Header.Set("User-Agent", "simweb-bench/1.0")
		if gzip {
			r.Header.Set("Accept-Encoding", "gzip")
		}
		reqs[k] = r
	}
	return w, reqs
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func benchServe(b *testing.B, gzip bool) {
	w, reqs := benchWeb(b, gzip)
	rw := &benchWriter{h: make(http.Header)}
	// Warm the per-slot caches once, as a long-running server has them.
	for _, r := range reqs {
		rw.reset()
		w.ServeHTTP(rw, r)
		if rw.status != http.StatusOK {
			b.Fatalf("%s: status %d", r.URL, rw.status)
		}
	}
	var bytes, n int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		rw.reset()
		w.ServeHTTP(rw, reqs[i%len(reqs)])
		bytes += rw.n
		n++
	}
	b.ReportMetric(float64(bytes)/float64(n), "B/resp")
}

// BenchmarkServePage serves pages without gzip, one goroutine.
func BenchmarkServePage(b *testing.B) { benchServe(b, false) }

// BenchmarkServePageGzip serves pages to a client that accepts gzip.
func BenchmarkServePageGzip(b *testing.B) { benchServe(b, true) }

// BenchmarkServePageParallel serves pages from GOMAXPROCS goroutines, which
// shows contention on shared state (the audit lock, the slot locks).
func BenchmarkServePageParallel(b *testing.B) {
	w, reqs := benchWeb(b, false)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		rw := &benchWriter{h: make(http.Header)}
		i := 0
		for pb.Next() {
			rw.reset()
			w.ServeHTTP(rw, reqs[i%len(reqs)])
			i++
		}
	})
}
