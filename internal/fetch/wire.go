package fetch

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// WireHeader rebuilds the response's status line and header block, as a
// WARC response record holds them. Transfer-Encoding is left out: net/http
// has removed the chunking, so the body kept is not chunked.
func (r *Response) WireHeader() []byte {
	proto := r.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	text := http.StatusText(r.Status)
	b := make([]byte, 0, len(proto)+len(text)+8+headerSize(r.Header)+2)
	b = append(b, proto...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(r.Status), 10)
	b = append(b, ' ')
	b = append(b, text...)
	b = append(b, "\r\n"...)
	b = appendHeader(b, r.Header, "Transfer-Encoding")
	return append(b, "\r\n"...)
}

// WireRequest rebuilds the request line and header block that were sent.
func (r *Response) WireRequest() []byte {
	target, host := "/", urlx.Authority(r.URL)
	if i := strings.Index(r.URL, "://"); i >= 0 {
		if j := strings.IndexByte(r.URL[i+3:], '/'); j >= 0 {
			target = r.URL[i+3+j:]
		}
	}
	b := make([]byte, 0, len(target)+len(host)+27+headerSize(r.RequestHeader)+2)
	b = append(b, "GET "...)
	b = append(b, target...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, host...)
	b = append(b, "\r\n"...)
	b = appendHeader(b, r.RequestHeader, "")
	return append(b, "\r\n"...)
}

// headerSize is the length of h written out, "Key: value\r\n" a value,
// which appendHeader never exceeds. Sizing the block by it makes it one
// allocation instead of a growing builder's several.
func headerSize(h http.Header) int {
	n := 0
	for k, vs := range h {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

// appendHeader appends h but the key skip to b as http.Header's
// WriteSubset writes it, byte for byte (TestAppendHeader holds it to
// that): keys sorted, invalid keys dropped, each value on a line of its
// own with CR and LF turned to spaces and the ends trimmed. WriteSubset
// itself wants an io.Writer, which would cost the block a second
// allocation and an indirect call a string.
func appendHeader(b []byte, h http.Header, skip string) []byte {
	keys := make([]string, 0, 32)
	for k := range h {
		if k != skip && httpguts.ValidHeaderFieldName(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			b = append(b, k...)
			b = append(b, ": "...)
			b = appendValue(b, strings.Trim(v, " \t\r\n"))
			b = append(b, "\r\n"...)
		}
	}
	return b
}

// appendValue appends v with CR and LF turned to spaces, so that a value
// cannot end its line early.
func appendValue(b []byte, v string) []byte {
	if !strings.ContainsAny(v, "\r\n") {
		return append(b, v...)
	}
	for i := range len(v) {
		if c := v[i]; c == '\r' || c == '\n' {
			b = append(b, ' ')
		} else {
			b = append(b, c)
		}
	}
	return b
}

// RemoteIP is the IP address the response came from.
func (r *Response) RemoteIP() string {
	addr := r.RemoteAddr
	if i := strings.LastIndexByte(addr, ':'); i >= 0 {
		addr = addr[:i]
	}
	return strings.Trim(addr, "[]")
}
