package fetch

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
)

// The reference implementations: what WireHeader and WireRequest were
// before they wrote the block themselves, through fmt and net/http's own
// header writer.
func refWireHeader(r *Response) []byte {
	var b strings.Builder
	proto := r.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	fmt.Fprintf(&b, "%s %d %s\r\n", proto, r.Status, http.StatusText(r.Status))
	r.Header.WriteSubset(&b, map[string]bool{"Transfer-Encoding": true})
	b.WriteString("\r\n")
	return []byte(b.String())
}

func refWireRequest(r *Response) []byte {
	var b strings.Builder
	target, host := "/", ""
	if i := strings.Index(r.URL, "://"); i >= 0 {
		host = r.URL[i+3:]
		if j := strings.IndexByte(host, '/'); j >= 0 {
			target, host = host[j:], host[:j]
		}
	}
	fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: %s\r\n", target, host)
	r.RequestHeader.Write(&b)
	b.WriteString("\r\n")
	return []byte(b.String())
}

// randomHeader draws a header from keys that are valid, invalid or
// excluded and values with spaces, tabs, CR and LF anywhere.
func randomHeader(rng *rand.Rand) http.Header {
	keys := []string{"Content-Type", "Etag", "Set-Cookie", "Transfer-Encoding", "X-A", "x-lower", "Bad Key", "", "K:v", "Ü"}
	chars := []string{"a", "b", " ", "\t", "\r", "\n", "\r\n", ":", "é", ";q=0.9"}
	h := http.Header{}
	for range rng.IntN(8) {
		k := keys[rng.IntN(len(keys))]
		for range 1 + rng.IntN(3) {
			var v strings.Builder
			for range rng.IntN(12) {
				v.WriteString(chars[rng.IntN(len(chars))])
			}
			h[k] = append(h[k], v.String())
		}
	}
	return h
}

// TestWireBlocks checks WireHeader and WireRequest byte for byte against
// the reference implementations above on 5,000 random headers, status
// codes and URLs.
func TestWireBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	protos := []string{"", "HTTP/1.1", "HTTP/1.0", "HTTP/2.0"}
	urls := []string{"http://a.example", "http://a.example/", "https://b.example:8443/x/y?q=1&r=%20#f", "http://[::1]:8080/p"}
	for i := range 5000 {
		r := &Response{
			URL: urls[rng.IntN(len(urls))], Status: []int{200, 301, 304, 404, 299, 999}[rng.IntN(6)],
			Proto: protos[rng.IntN(len(protos))], Header: randomHeader(rng), RequestHeader: randomHeader(rng),
		}
		if got, want := r.WireHeader(), refWireHeader(r); !bytes.Equal(got, want) {
			t.Fatalf("case %d: WireHeader\n%q\nwant\n%q", i, got, want)
		}
		if got, want := r.WireRequest(), refWireRequest(r); !bytes.Equal(got, want) {
			t.Fatalf("case %d: WireRequest\n%q\nwant\n%q", i, got, want)
		}
	}
}
