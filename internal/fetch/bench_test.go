package fetch

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// benchPage is an HTML page of about 18 KB, the size of a page of Debian's
// rust-doc, the crawl the fetcher was profiled on.
var benchPage = func() []byte {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html><head><title>std::vec::Vec</title></head><body>\n")
	for i := 0; b.Len() < 18<<10; i++ {
		b.WriteString(`<p><a href="/doc/std/vec/struct.Vec.html#method.` + strconv.Itoa(i) +
			`">method ` + strconv.Itoa(i) + "</a> returns the items of the vector in order.</p>\n")
	}
	b.WriteString("</body></html>\n")
	return b.Bytes()
}()

// benchServer serves body on 127.0.0.1 with the headers nginx sends for a
// static file: a Content-Length, validators, keep-alive.
func benchServer(b *testing.B, body []byte, encoding string) *httptest.Server {
	b.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h["Server"] = []string{"nginx/1.22.1"}
		h["Content-Type"] = []string{"text/html"}
		h["Last-Modified"] = []string{"Mon, 02 Jan 2006 15:04:05 GMT"}
		h["Etag"] = []string{`"63b2f3a5-4800"`}
		if encoding != "" {
			h["Content-Encoding"] = []string{encoding}
		}
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
		_, _ = w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkFetch fetches an 18 KB page over a kept-alive HTTP/1.1 loopback
// connection and builds the header blocks of its WARC records, as the
// crawler does for each page. The server runs in the same process, so
// ns/op includes its share; allocs/op is the steadier figure.
func BenchmarkFetch(b *testing.B) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(benchPage)
	_ = zw.Close()
	tests := []struct {
		name     string
		body     []byte
		encoding string
	}{
		{"plain", benchPage, ""},
		{"gzip", gz.Bytes(), "gzip"},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			srv := benchServer(b, tt.body, tt.encoding)
			f := New(Config{AllowPrivate: true})
			b.Cleanup(f.Close)
			u := srv.URL + "/doc/std/vec/struct.Vec.html"
			ctx := context.Background()
			b.SetBytes(int64(len(benchPage)))
			b.ReportAllocs()
			for b.Loop() {
				r, err := f.Fetch(ctx, Request{URL: u})
				if err != nil {
					b.Fatal(err)
				}
				if r.Status != http.StatusOK || len(r.Body) != len(benchPage) || r.Truncated != "" {
					b.Fatalf("status %d, %d of %d bytes, truncated %q", r.Status, len(r.Body), len(benchPage), r.Truncated)
				}
				if len(r.WireHeader()) == 0 || !strings.HasPrefix(string(r.WireRequest()), "GET /doc/") {
					b.Fatal("no WARC header blocks")
				}
				r.Release()
			}
		})
	}
}
