// Package trap serves the hostile resources the synthetic web (package
// simweb) links to when its faults are turned on: what a crawler must
// survive to be safe by default (DESIGN.md §4). An infinite calendar, whose
// every day links to more days; redirect chains and loops; a body with no
// end in sight; and a gzip bomb. Each is a pure function of its path and
// sizes, so a crawl that meets them is as reproducible as the rest of the
// web.
package trap

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CalendarPath returns the path of the calendar's page for day t.
func CalendarPath(t time.Time) string {
	return "/calendar/" + t.Format(time.DateOnly) + ".html"
}

// Calendar serves the infinite calendar's page at path (CalendarPath of a
// day): every day has a page linking to the previous and next day, the
// next month and the next year, so a crawler without URL-space defences
// never runs out of URLs.
func Calendar(rw http.ResponseWriter, path string) {
	date, ok := strings.CutSuffix(strings.TrimPrefix(path, "/calendar/"), ".html")
	t, err := time.Parse(time.DateOnly, date)
	if !ok || err != nil {
		http.Error(rw, "not found", http.StatusNotFound)
		return
	}
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Events on " + date + "</title></head><body>\n")
	b.WriteString("<h1>Events on " + date + "</h1>\n<p>No events are scheduled.</p>\n<ul>\n")
	for _, n := range []struct {
		t    time.Time
		text string
	}{{t.AddDate(0, 0, -1), "Previous day"}, {t.AddDate(0, 0, 1), "Next day"}, {t.AddDate(0, 1, 0), "Next month"}, {t.AddDate(1, 0, 0), "Next year"}} {
		b.WriteString("<li><a href=\"" + CalendarPath(n.t) + "\">" + n.text + "</a></li>\n")
	}
	b.WriteString("</ul>\n</body></html>\n")
	h := rw.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h["Content-Length"] = []string{strconv.Itoa(b.Len())}
	_, _ = rw.Write(b.Bytes())
}

// MaxHops bounds the redirect chains Redirect will describe.
const MaxHops = 100

// RedirectPath returns the path of a chain of hops redirects that ends at
// target (a path).
func RedirectPath(hops int, target string) string { return "/go/" + strconv.Itoa(hops) + target }

// LoopPath returns the path of one end of the redirect loop id.
func LoopPath(id string) string { return "/loop/a/" + id }

// Redirect serves /go/N/<path>, a chain of N redirects ending at <path>,
// and /loop/a|b/<id>, two URLs that redirect to each other.
func Redirect(rw http.ResponseWriter, path string) {
	if rest, ok := strings.CutPrefix(path, "/loop/"); ok {
		side, id, _ := strings.Cut(rest, "/")
		other := map[string]string{"a": "b", "b": "a"}[side]
		if other == "" || id == "" {
			http.Error(rw, "not found", http.StatusNotFound)
			return
		}
		rw.Header().Set("Location", "/loop/"+other+"/"+id)
		rw.WriteHeader(http.StatusFound)
		return
	}
	rest := strings.TrimPrefix(path, "/go/")
	num, target, _ := strings.Cut(rest, "/")
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 || n > MaxHops {
		http.Error(rw, "not found", http.StatusNotFound)
		return
	}
	loc := "/" + target
	if n > 1 {
		loc = RedirectPath(n-1, loc)
	}
	rw.Header().Set("Location", loc)
	rw.WriteHeader(http.StatusMovedPermanently)
}

// Oversize streams a body of size bytes with no Content-Length, so only a
// client that bounds what it reads is safe from it.
func Oversize(rw http.ResponseWriter, r *http.Request, size int64) {
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	chunk := bytes.Repeat([]byte("<p>All work and no play makes a very large page.</p>\n"), 600)
	left := size
	for left > 0 && r.Context().Err() == nil {
		n := min(left, int64(len(chunk)))
		if _, err := rw.Write(chunk[:n]); err != nil {
			return
		}
		left -= n
	}
}

// Bomb is a small gzip body that inflates to exactly Size bytes, built on
// its first request: a chain of identical gzip members of 1 MiB of spaces
// each, and one shorter member for the remainder (gzip readers read
// concatenated members as one stream, RFC 1952 §2.2). It is safe for
// concurrent use.
type Bomb struct {
	Size int64
	once sync.Once
	gz   []byte
}

// ServeHTTP serves the bomb.
func (b *Bomb) ServeHTTP(rw http.ResponseWriter, _ *http.Request) {
	b.once.Do(func() {
		member := func(n int64) []byte {
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			_, _ = zw.Write(bytes.Repeat([]byte{' '}, int(n)))
			_ = zw.Close()
			return buf.Bytes()
		}
		b.gz = bytes.Repeat(member(1<<20), int(b.Size>>20))
		if rest := b.Size & (1<<20 - 1); rest > 0 || b.Size == 0 {
			b.gz = append(b.gz, member(rest)...)
		}
	})
	h := rw.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Encoding", "gzip")
	h.Set("Content-Length", strconv.Itoa(len(b.gz)))
	_, _ = rw.Write(b.gz)
}
