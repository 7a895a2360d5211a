package fetch

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// WireHeader rebuilds the response's status line and header block, as a
// WARC response record holds them. Transfer-Encoding is left out: net/http
// has removed the chunking, so the body kept is not chunked.
func (r *Response) WireHeader() []byte {
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

// WireRequest rebuilds the request line and header block that were sent.
func (r *Response) WireRequest() []byte {
	var b strings.Builder
	target, host := "/", urlx.Authority(r.URL)
	if i := strings.Index(r.URL, "://"); i >= 0 {
		if j := strings.IndexByte(r.URL[i+3:], '/'); j >= 0 {
			target = r.URL[i+3+j:]
		}
	}
	fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: %s\r\n", target, host)
	r.RequestHeader.Write(&b)
	b.WriteString("\r\n")
	return []byte(b.String())
}

// RemoteIP is the IP address the response came from.
func (r *Response) RemoteIP() string {
	addr := r.RemoteAddr
	if i := strings.LastIndexByte(addr, ':'); i >= 0 {
		addr = addr[:i]
	}
	return strings.Trim(addr, "[]")
}
