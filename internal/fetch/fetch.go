// Package fetch downloads one URL politely bounded: conditional GET,
// gzip and deflate, limits on body, decoded size, headers and time, no
// redirect following (each hop is a request of its own, scheduled by the
// crawler), and no private, loopback or link-local addresses unless
// allowed, checked on the resolved address of every connection.
package fetch

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
)

// ErrScheme is returned for URLs that are not http or https.
var ErrScheme = errors.New("only http and https URLs are fetched")

// DefaultUserAgent identifies the crawler.
const DefaultUserAgent = "freshcrawl/0.1 (+https://github.com/freshcrawl/freshcrawl)"

// Config configures a Fetcher. Zero values take the documented defaults.
type Config struct {
	UserAgent       string        // default DefaultUserAgent
	Timeout         time.Duration // whole request, body included; default 30 s
	MaxBodyBytes    int64         // bytes read from the wire; default 10 MiB
	MaxDecodedBytes int64         // bytes after Content-Encoding is undone; default 50 MiB
	MaxHeaderBytes  int64         // response header block; default 64 KiB
	MaxConnsPerHost int           // default 1: one request in flight per host
	AllowPrivate    bool          // allow loopback, private and link-local addresses
	Resolve         []ResolveRule // fixed addresses for host names, tried before DNS
	Resolver        *net.Resolver // default net.DefaultResolver
	Now             func() time.Time
	// Dial connects to an address the resolve rules and the address
	// guard have passed; nil means a net.Dialer. Tests give an in-memory
	// network (internal/memnet).
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
}

func (c *Config) defaults() {
	if c.UserAgent == "" {
		c.UserAgent = DefaultUserAgent
	}
	if c.Timeout == 0 {
		c.Timeout = 30 * time.Second
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = 10 << 20
	}
	if c.MaxDecodedBytes == 0 {
		c.MaxDecodedBytes = 50 << 20
	}
	if c.MaxHeaderBytes == 0 {
		c.MaxHeaderBytes = 64 << 10
	}
	if c.MaxConnsPerHost == 0 {
		c.MaxConnsPerHost = 1
	}
	if c.Resolver == nil {
		c.Resolver = net.DefaultResolver
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Fetcher fetches URLs. It is safe for concurrent use.
type Fetcher struct {
	cfg    Config
	client *http.Client
	tr     *http.Transport
}

// New returns a Fetcher with a transport tuned for crawling many hosts.
func New(cfg Config) *Fetcher {
	cfg.defaults()
	d := &dialer{
		net:          net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second},
		resolver:     cfg.Resolver,
		rules:        cfg.Resolve,
		allowPrivate: cfg.AllowPrivate,
		dial:         cfg.Dial,
	}
	if d.dial == nil {
		d.dial = d.net.DialContext
	}
	tr := &http.Transport{
		DialContext:            d.DialContext,
		MaxConnsPerHost:        cfg.MaxConnsPerHost,
		MaxIdleConnsPerHost:    cfg.MaxConnsPerHost,
		MaxIdleConns:           4096,
		IdleConnTimeout:        60 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  cfg.Timeout,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: cfg.MaxHeaderBytes,
		DisableCompression:     true, // we ask for gzip ourselves and keep the raw bytes for WARC
		ForceAttemptHTTP2:      true,
	}
	return &Fetcher{
		cfg: cfg,
		tr:  tr,
		client: &http.Client{
			Transport:     tr,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

// Close releases idle connections.
func (f *Fetcher) Close() { f.tr.CloseIdleConnections() }

// Request is one fetch. ETag and LastModified, from the previous fetch of
// the URL, make it a conditional GET.
type Request struct {
	URL          string
	ETag         string
	LastModified string
}

// Response is what a fetch returned.
type Response struct {
	URL           string
	Status        int
	Proto         string
	Header        http.Header
	RequestHeader http.Header // what was sent, for the WARC request record
	Raw           []byte      // body as transferred: Content-Encoding kept, chunking removed
	Body          []byte      // body with Content-Encoding undone; with DecodeError, what could be decoded
	Truncated     string      // "" or why the body stops early (WARC-Truncated values): "length", "time", "disconnect"
	DecodeError   error       // why Body is nil although Raw is not
	Location      string      // absolute redirect target of a 3xx
	RemoteAddr    string      // ip:port the response came from
	Started       time.Time
	Duration      time.Duration

	pooled uint8 // bit 0: Raw, bit 1: Body is a pooled buffer
}

// NotModified reports a 304 answer to a conditional GET.
func (r *Response) NotModified() bool { return r.Status == http.StatusNotModified }

// Fetch performs one GET. Network errors, refused addresses and timeouts
// before the headers arrive are errors; a body cut short by a limit is a
// Response with Truncated set.
func (f *Fetcher) Fetch(ctx context.Context, r Request) (*Response, error) {
	u, err := url.Parse(r.URL)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", r.URL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("fetch %s: %w", r.URL, ErrScheme)
	}
	ctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	var remote string
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { remote = info.Conn.RemoteAddr().String() },
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", r.URL, err)
	}
	// net/http sends a GET again at once, on a new connection, when a
	// reused one is reset or closed before the answer: the host gets two
	// requests with no delay between them, and the crawler never learns of
	// the first failure, so it neither backs off nor logs it. A request
	// whose body cannot be rewound is not sent again. The body is empty,
	// so the request on the wire is the same.
	req.Body = noRewind{}
	h := req.Header
	h.Set("User-Agent", f.cfg.UserAgent)
	h.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	h.Set("Accept-Encoding", "gzip, deflate")
	if r.ETag != "" {
		h.Set("If-None-Match", r.ETag)
	}
	if r.LastModified != "" {
		h.Set("If-Modified-Since", r.LastModified)
	}
	start := f.cfg.Now()
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", r.URL, err)
	}
	defer resp.Body.Close()
	out := &Response{
		URL: r.URL, Status: resp.StatusCode, Proto: resp.Proto, Header: resp.Header,
		RequestHeader: h.Clone(), RemoteAddr: remote, Started: start,
	}
	if loc := resp.Header.Get("Location"); loc != "" && resp.StatusCode >= 300 && resp.StatusCode < 400 {
		if target, err := u.Parse(loc); err == nil {
			out.Location = target.String()
		}
	}
	out.Raw, out.Truncated = readBounded(resp.Body, f.cfg.MaxBodyBytes, resp.ContentLength)
	out.pooled = 1
	out.Body, out.DecodeError = decode(out.Raw, resp.Header.Get("Content-Encoding"), f.cfg.MaxDecodedBytes)
	if len(out.Body) > 0 && len(out.Raw) > 0 && &out.Body[0] != &out.Raw[0] {
		out.pooled |= 2
	}
	if errors.Is(out.DecodeError, errDecodedTooLarge) {
		out.Truncated = "length"
	}
	out.Duration = f.cfg.Now().Sub(start)
	return out, nil
}

// noRewind is an empty request body net/http cannot rewind, which keeps
// it from retrying the request by itself.
type noRewind struct{}

func (noRewind) Read([]byte) (int, error) { return 0, io.EOF }
func (noRewind) Close() error             { return nil }

// readBounded reads at most limit bytes; a body that is longer, or that
// stops with an error (a timeout, a reset), is returned truncated, with the
// reason in the words of WARC-Truncated. size, the Content-Length if known
// (else -1), sizes the buffer so that it is allocated once. The body is in
// a pooled buffer (see Response.Release).
func readBounded(r io.Reader, limit, size int64) ([]byte, string) {
	want := bytes.MinRead
	if size > 0 {
		want = int(min(size, limit) + bytes.MinRead)
	}
	buf, n, err := readInto(getBuffer(want), io.LimitReader(r, limit+1))
	switch {
	case n > limit:
		return buf[:limit], "length"
	case errors.Is(err, context.DeadlineExceeded):
		return buf, "time"
	case err != nil:
		return buf, "disconnect"
	}
	return buf, ""
}

// readInto appends r to buf until EOF or an error, as bytes.Buffer's
// ReadFrom does, and returns the slice, the bytes read and the error
// (nil at EOF).
func readInto(buf []byte, r io.Reader) ([]byte, int64, error) {
	var total int64
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // grow, amortised
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		total += int64(n)
		if err == io.EOF {
			return buf, total, nil
		}
		if err != nil {
			return buf, total, err
		}
	}
}

// Bodies are read into buffers of a pool, which Response.Release fills
// again: a crawler reads a page or two a millisecond, and allocating the
// buffers was a tenth of its allocation and more of its collection. Only
// buffers up to maxPooled are kept, so the pool holds no bomb's worth.
const maxPooled = 256 << 10

var buffers sync.Pool // of *[]byte

// getBuffer returns an empty buffer of at least n bytes' capacity.
func getBuffer(n int) []byte {
	if p, _ := buffers.Get().(*[]byte); p != nil {
		if cap(*p) >= n {
			return (*p)[:0]
		}
		buffers.Put(p)
	}
	return make([]byte, 0, max(n, 16<<10))
}

// putBuffer gives b back to the pool.
func putBuffer(b []byte) {
	if cap(b) == 0 || cap(b) > maxPooled {
		return
	}
	b = b[:0]
	buffers.Put(&b)
}

// Release gives r's body buffers back for later fetches to reuse. Raw and
// Body (and anything sliced from them) must not be used afterwards; they
// are set to nil. Calling Release is optional: a Response not released is
// collected as usual.
func (r *Response) Release() {
	if r.pooled&1 != 0 {
		putBuffer(r.Raw)
	}
	if r.pooled&2 != 0 {
		putBuffer(r.Body)
	}
	r.Raw, r.Body, r.pooled = nil, nil, 0
}

var errDecodedTooLarge = errors.New("decoded body exceeds the limit")

// gzipReaders keeps gzip readers for reuse: a new one allocates its
// decompressor's window and tables, which for a page of a few kilobytes
// costs more than decoding it.
var gzipReaders sync.Pool

// decode undoes Content-Encoding (gzip, x-gzip, deflate — zlib-wrapped or,
// as some servers send it, raw — and identity), reading at most limit
// bytes: a compression bomb stops there.
func decode(raw []byte, encoding string, limit int64) ([]byte, error) {
	encoding = strings.ToLower(strings.TrimSpace(encoding))
	var r io.Reader
	switch encoding {
	case "", "identity":
		if int64(len(raw)) > limit {
			return raw[:limit], errDecodedTooLarge
		}
		return raw, nil
	case "gzip", "x-gzip":
		zr, _ := gzipReaders.Get().(*gzip.Reader)
		var err error
		if zr == nil {
			zr, err = gzip.NewReader(bytes.NewReader(raw))
		} else {
			err = zr.Reset(bytes.NewReader(raw))
		}
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		defer gzipReaders.Put(zr)
		r = zr
	case "deflate":
		if zr, err := zlib.NewReader(bytes.NewReader(raw)); err == nil {
			r = zr
		} else {
			r = flate.NewReader(bytes.NewReader(raw))
		}
	default:
		return nil, fmt.Errorf("unsupported Content-Encoding %q", encoding)
	}
	// HTML inflates about four times; one buffer of that size saves the
	// copies of growing from small.
	buf, n, err := readInto(getBuffer(int(min(4*int64(len(raw)), limit)+bytes.MinRead)), io.LimitReader(r, limit+1))
	if n > limit {
		return buf[:limit], errDecodedTooLarge
	}
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return buf, fmt.Errorf("%s: %w", encoding, err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return buf, fmt.Errorf("%s: body ends early: %w", encoding, err)
	}
	return buf, nil
}
