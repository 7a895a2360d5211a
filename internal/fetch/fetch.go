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
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"maps"
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
	cfg Config
	tr  *http.Transport
	// header is the request header of a fetch that is not conditional,
	// built once and shared, read-only, by every such request and its
	// Response.RequestHeader.
	header http.Header
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
		DialContext:            d.dialRemote,
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
	header := http.Header{
		"User-Agent":      {cfg.UserAgent},
		"Accept":          {"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"},
		"Accept-Encoding": {"gzip, deflate"},
	}
	return &Fetcher{cfg: cfg, tr: tr, header: header}
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
	URL    string
	Status int
	Proto  string
	Header http.Header
	// RequestHeader is what was sent, for the WARC request record. It may
	// be shared with other Responses and must not be modified.
	RequestHeader http.Header
	Raw           []byte // body as transferred: Content-Encoding kept, chunking removed
	Body          []byte // body with Content-Encoding undone; with DecodeError, what could be decoded
	Truncated     string // "" or why the body stops early (WARC-Truncated values): "length", "time", "disconnect"
	DecodeError   error  // why Body is nil although Raw is not
	Location      string // absolute redirect target of a 3xx
	RemoteAddr    string // ip:port the response came from
	Started       time.Time
	Duration      time.Duration

	pooled uint8 // bit 0: Raw, bit 1: Body is a pooled buffer
}

// NotModified reports a 304 answer to a conditional GET.
func (r *Response) NotModified() bool { return r.Status == http.StatusNotModified }

// exchange is one fetch's Response and the trace hook that fills in its
// RemoteAddr, allocated together: net/http's own allocations a page are
// some fifty, and Fetch's are kept to a handful.
type exchange struct {
	resp  Response
	trace httptrace.ClientTrace
}

func (x *exchange) gotConn(info httptrace.GotConnInfo) {
	c := info.Conn
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	if rc, ok := c.(*remoteConn); ok {
		x.resp.RemoteAddr = rc.remote
		return
	}
	x.resp.RemoteAddr = c.RemoteAddr().String()
}

// remoteConn is a connection that keeps its remote address as text: every
// request on it records the address, and formatting it anew cost three
// allocations a page.
type remoteConn struct {
	net.Conn
	remote string
}

// dialRemote dials as DialContext does and wraps the connection in a
// remoteConn.
func (d *dialer) dialRemote(ctx context.Context, network, address string) (net.Conn, error) {
	c, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return &remoteConn{Conn: c, remote: c.RemoteAddr().String()}, nil
}

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
	x := &exchange{resp: Response{URL: r.URL, RequestHeader: f.requestHeader(r)}}
	x.trace.GotConn = x.gotConn
	out := &x.resp
	ctx = httptrace.WithClientTrace(ctx, &x.trace)
	// Built by hand rather than by http.NewRequest, which would parse the
	// URL again; Host is what NewRequest makes of it.
	req := (&http.Request{
		Method: http.MethodGet, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: out.RequestHeader, Host: strings.TrimSuffix(u.Host, ":"),
		// net/http sends a GET again at once, on a new connection, when a
		// reused one is reset or closed before the answer: the host gets
		// two requests with no delay between them, and the crawler never
		// learns of the first failure, so it neither backs off nor logs it.
		// A request whose body cannot be rewound is not sent again. The
		// body is empty, so the request on the wire is the same; the
		// identity transfer coding says so to net/http, which would
		// otherwise probe the body for a byte in a goroutine of its own,
		// with a timer, on every request.
		Body: noRewind{}, TransferEncoding: identity,
	}).WithContext(ctx)
	out.Started = f.cfg.Now()
	resp, err := f.roundTrip(req)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", r.URL, err)
	}
	defer resp.Body.Close()
	out.Status, out.Proto, out.Header = resp.StatusCode, resp.Proto, resp.Header
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
	out.Duration = f.cfg.Now().Sub(out.Started)
	return out, nil
}

// identity is the TransferEncoding of a request whose body is empty.
var identity = []string{"identity"}

// requestHeader is the header block r is sent with: the Fetcher's shared
// one, or for a conditional GET a copy with the validators added.
func (f *Fetcher) requestHeader(r Request) http.Header {
	if r.ETag == "" && r.LastModified == "" {
		return f.header
	}
	h := make(http.Header, len(f.header)+2)
	maps.Copy(h, f.header)
	if r.ETag != "" {
		h["If-None-Match"] = []string{r.ETag}
	}
	if r.LastModified != "" {
		h["If-Modified-Since"] = []string{r.LastModified}
	}
	return h
}

// roundTrip sends req on the transport itself. http.Client would add a
// copy of the header, of the URL and a redirect loop that is never
// followed; what of it a GET without cookies still needs is kept here:
// credentials in the URL become basic authentication, errors are
// *url.Error as the client's are, and a redirect the client would follow
// with a Location it cannot parse is an error.
func (f *Fetcher) roundTrip(req *http.Request) (*http.Response, error) {
	uerr := func(err error) error {
		s, user := req.URL.String(), req.URL.User
		if _, ok := user.Password(); ok {
			s = strings.Replace(s, user.String()+"@", user.Username()+":***@", 1)
		}
		return &url.Error{Op: "Get", URL: s, Err: err}
	}
	if user := req.URL.User; user != nil {
		password, _ := user.Password()
		req.Header = req.Header.Clone()
		req.SetBasicAuth(user.Username(), password)
	}
	resp, err := f.tr.RoundTrip(req)
	if err != nil {
		if tlsErr, ok := err.(tls.RecordHeaderError); ok && string(tlsErr.RecordHeader[:]) == "HTTP/" {
			err = http.ErrSchemeMismatch
		}
		return nil, uerr(err)
	}
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther:
		if loc := resp.Header.Get("Location"); loc != "" {
			if _, err := req.URL.Parse(loc); err != nil {
				resp.Body.Close()
				return nil, uerr(fmt.Errorf("failed to parse Location header %q: %v", loc, err))
			}
		}
	}
	return resp, nil
}

// noRewind is an empty request body net/http cannot rewind, which keeps
// it from retrying the request by itself.
type noRewind struct{}

func (noRewind) Read([]byte) (int, error) { return 0, io.EOF }
func (noRewind) Close() error             { return nil }

// WriteTo spares net/http's copy of the body the 32 KiB buffer io.Copy
// would allocate to find it empty.
func (noRewind) WriteTo(io.Writer) (int64, error) { return 0, nil }

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
	buf, n, err := readInto(getBuffer(want), &io.LimitedReader{R: r, N: limit + 1})
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
// (nil at EOF). r is a *io.LimitedReader, not an io.Reader, so that it
// can stay on the caller's stack.
func readInto(buf []byte, r *io.LimitedReader) ([]byte, int64, error) {
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

// buffers holds the buffers, boxes their empty *[]byte holders: a box
// goes back and forth between them, so giving a buffer back allocates
// nothing.
var buffers, boxes sync.Pool // of *[]byte

// getBuffer returns an empty buffer of at least n bytes' capacity.
func getBuffer(n int) []byte {
	if p, _ := buffers.Get().(*[]byte); p != nil {
		if b := *p; cap(b) >= n {
			*p = nil
			boxes.Put(p)
			return b[:0]
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
	p, _ := boxes.Get().(*[]byte)
	if p == nil {
		p = new([]byte)
	}
	*p = b[:0]
	buffers.Put(p)
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
	buf, n, err := readInto(getBuffer(int(min(4*int64(len(raw)), limit)+bytes.MinRead)), &io.LimitedReader{R: r, N: limit + 1})
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
