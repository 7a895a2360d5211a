package simweb

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/freshcrawl/freshcrawl/internal/clock"
	"github.com/freshcrawl/freshcrawl/internal/simweb/trap"
	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// ServeHTTP serves the virtual hosts of the web. The host is taken from the
// Host header (or from an absolute request URI, so simweb also works as an
// HTTP proxy for the .test zone).
func (w *Web) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	host := strings.ToLower(stripPort(r.Host))
	si, ok := w.byName[host]
	if !ok {
		http.Error(rw, "simweb: no such host: "+host, http.StatusMisdirectedRequest)
		return
	}
	path := r.URL.EscapedPath()
	w.audit.Begin(si, path, r.UserAgent())
	defer w.audit.End(si)
	h := rw.Header()
	h["Server"] = serverHeader
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(rw, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	now := int64(w.clock.Now())
	h["Date"] = []string{w.httpDate(now)}

	kind, slow, status := w.transient(si, w.reqs[si].Add(1)-1)
	if slow && !clock.Sleep(r.Context(), w.cfg.Faults.SlowDelay) {
		return
	}
	switch kind {
	case transientReset:
		resetConn(rw)
		return
	case transientServerError:
		http.Error(rw, "simweb: injected server error", status)
		return
	case transientTooMany:
		h.Set("Retry-After", strconv.Itoa(int((w.cfg.Faults.RetryAfter+time.Second-1)/time.Second)))
		http.Error(rw, "simweb: too many requests", http.StatusTooManyRequests)
		return
	}

	s := &w.sites[si]
	switch {
	case path == "/robots.txt":
		w.serveRobots(rw, s)
	case strings.HasPrefix(path, "/sitemap"):
		w.serveSitemap(rw, r, si, path, now)
	case strings.HasPrefix(path, "/calendar/") && s.trap:
		trap.Calendar(rw, path)
	case strings.HasPrefix(path, "/go/"), strings.HasPrefix(path, "/loop/"):
		trap.Redirect(rw, path)
	case strings.HasPrefix(path, "/big/") && w.cfg.Faults.Oversize > 0:
		trap.Oversize(rw, r, w.cfg.Faults.OversizeBytes)
	case strings.HasPrefix(path, "/bomb/") && w.cfg.Faults.Bomb > 0:
		w.bomb.ServeHTTP(rw, r)
	default:
		w.servePage(rw, r, si, path, now)
	}
}

// resetConn closes the client's connection with a TCP RST.
func resetConn(rw http.ResponseWriter) {
	hj, ok := rw.(http.Hijacker)
	if !ok {
		http.Error(rw, "simweb: connection reset", http.StatusInternalServerError)
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	// A *net.TCPConn, or an in-memory connection that imitates one.
	if tc, ok := conn.(interface{ SetLinger(sec int) error }); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

var gzipPool = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return zw
}}

// servePage serves one page with validators and conditional GET
// (RFC 9110 §13: If-None-Match takes precedence over If-Modified-Since).
func (w *Web) servePage(rw http.ResponseWriter, r *http.Request, si int32, path string, now int64) {
	s := &w.sites[si]
	slot, gen, ok := s.parsePath(path)
	if !ok {
		http.NotFound(rw, r)
		return
	}
	in, c := w.state(si, slot, now)
	if in.gen != gen || now < in.born {
		http.NotFound(rw, r) // a page that died, or is not born yet
		return
	}
	modified := in.lastModified(c)
	g := s.first + slot
	latin1 := w.sticky(g, stickyCharset, w.cfg.Faults.Charset)
	zip := s.gzip && acceptsGzip(r)

	h := rw.Header()
	var etag string
	var lastMod int64
	switch s.validators {
	case Honest:
		etag = entityTag(splitmix.Hash2(in.key^tagVersion, uint64(c.idx)), zip)
		lastMod = modified
	case Wrong:
		d := s.lastDeploy(now)
		etag = entityTag(splitmix.Hash3(w.cfg.Seed^tagVersion, uint64(g), uint64(d)), zip)
		lastMod = d
	}
	if etag != "" {
		h["Etag"] = []string{etag}
	}
	if s.validators != Absent {
		h["Last-Modified"] = []string{w.simTime(lastMod).UTC().Format(http.TimeFormat)}
	}
	if s.gzip {
		h["Vary"] = varyHeader
	}
	if NotModified(r, etag, w.simTime(lastMod), s.validators != Absent) {
		rw.WriteHeader(http.StatusNotModified)
		return
	}

	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	body := w.render((*bp)[:0], page{
		si: si, slot: slot, in: &in, version: c.idx, modified: modified,
		malformed: w.sticky(g, stickyMalformed, w.cfg.Faults.Malformed), latin1: latin1,
	})
	*bp = body
	if latin1 {
		h["Content-Type"] = htmlNoCharset // the charset is only in the meta tag
	} else {
		h["Content-Type"] = htmlUTF8
	}
	writeBody(rw, body, zip)
}

// Header values shared by every response (net/http only reads them).
var (
	serverHeader  = []string{"simweb"}
	varyHeader    = []string{"Accept-Encoding"}
	htmlUTF8      = []string{"text/html; charset=utf-8"}
	htmlNoCharset = []string{"text/html"}
	gzipHeader    = []string{"gzip"}
)

// entityTag formats a strong ETag from a hash; the gzipped representation
// gets its own tag (RFC 9110 §8.8.3.3).
func entityTag(h uint64, zip bool) string {
	var b [24]byte
	buf := append(b[:0], '"')
	const hexDigits = "0123456789abcdef"
	for shift := 60; shift >= 0; shift -= 4 {
		buf = append(buf, hexDigits[h>>uint(shift)&15])
	}
	if zip {
		buf = append(buf, "-gz"...)
	}
	return string(append(buf, '"'))
}

// httpDate is a formatted Date header and the simulated second it is for.
type httpDate struct {
	sec int64
	s   string
}

// httpDate formats simulated time ns as an HTTP date, reusing the string
// while the second does not change.
func (w *Web) httpDate(ns int64) string {
	sec := ns / 1e9
	if d := w.date.Load(); d != nil && d.sec == sec {
		return d.s
	}
	d := &httpDate{sec: sec, s: w.simTime(sec * 1e9).UTC().Format(http.TimeFormat)}
	w.date.Store(d)
	return d.s
}

var outPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeBody writes a body, gzipped if asked.
func writeBody(rw http.ResponseWriter, body []byte, zip bool) {
	h := rw.Header()
	if !zip {
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
		_, _ = rw.Write(body)
		return
	}
	out := outPool.Get().(*bytes.Buffer)
	out.Reset()
	zw := gzipPool.Get().(*gzip.Writer)
	zw.Reset(out)
	_, _ = zw.Write(body)
	_ = zw.Close()
	gzipPool.Put(zw)
	h["Content-Encoding"] = gzipHeader
	h["Content-Length"] = []string{strconv.Itoa(out.Len())}
	_, _ = rw.Write(out.Bytes())
	outPool.Put(out)
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		if q, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			v, err := strconv.ParseFloat(q, 64)
			return err == nil && v > 0
		}
		return true
	}
	return false
}

// NotModified evaluates If-None-Match and If-Modified-Since for a GET.
func NotModified(r *http.Request, etag string, lastMod time.Time, hasLastMod bool) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		for _, tag := range strings.Split(inm, ",") {
			tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
			if tag == "*" || etag != "" && (tag == etag || strings.Replace(tag, `-gz"`, `"`, 1) == strings.Replace(etag, `-gz"`, `"`, 1)) {
				return true
			}
		}
		return false
	}
	if ims := r.Header.Get("If-Modified-Since"); ims != "" && hasLastMod {
		t, err := http.ParseTime(ims)
		return err == nil && !lastMod.Truncate(time.Second).After(t)
	}
	return false
}

// lastDeploy is the time of the last deploy of a site at or before t: what
// sites with wrong validators stamp on every page.
func (s *site) lastDeploy(t int64) int64 {
	k := (t - s.phase) / s.deploy
	if t-s.phase < 0 && (t-s.phase)%s.deploy != 0 {
		k--
	}
	return s.phase + k*s.deploy
}

func (w *Web) serveRobots(rw http.ResponseWriter, s *site) {
	switch s.robots {
	case RobotsNotFound:
		http.Error(rw, "not found", http.StatusNotFound)
		return
	case RobotsServerError:
		http.Error(rw, "simweb: robots.txt unavailable", http.StatusInternalServerError)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# robots.txt for %s\n\nUser-agent: %s\nDisallow: /\n\nUser-agent: *\n", s.name, badBot)
	for _, r := range s.rules {
		if r.allow {
			fmt.Fprintf(&b, "Allow: %s\n", r.prefix)
		} else {
			fmt.Fprintf(&b, "Disallow: %s\n", r.prefix)
		}
	}
	if s.crawlDelay > 0 {
		fmt.Fprintf(&b, "Crawl-delay: %d\n", s.crawlDelay)
	}
	if u := s.sitemapURL(); u != "" {
		fmt.Fprintf(&b, "\nSitemap: %s\n", u)
	}
	rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
	writeBody(rw, []byte(b.String()), false)
}
