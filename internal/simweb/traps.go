package simweb

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// serveCalendar serves the infinite calendar of a trap host: every day has
// a page linking to the previous and next day, the next month and the next
// year, so a crawler without URL-space defences never runs out of URLs.
func (w *Web) serveCalendar(rw http.ResponseWriter, path string) {
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
		b.WriteString("<li><a href=\"" + calendarPath(n.t) + "\">" + n.text + "</a></li>\n")
	}
	b.WriteString("</ul>\n</body></html>\n")
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	writeBody(rw, b.Bytes(), false)
}

// maxHops bounds the redirect chains simweb will describe.
const maxHops = 100

// serveRedirect serves /go/N/<path>, a chain of N redirects ending at
// <path>, and /loop/a|b/<id>, two URLs that redirect to each other.
func (w *Web) serveRedirect(rw http.ResponseWriter, path string) {
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
	if err != nil || n < 1 || n > maxHops {
		http.Error(rw, "not found", http.StatusNotFound)
		return
	}
	loc := "/" + target
	if n > 1 {
		loc = "/go/" + strconv.Itoa(n-1) + "/" + target
	}
	rw.Header().Set("Location", loc)
	rw.WriteHeader(http.StatusMovedPermanently)
}

// serveOversize streams a body of OversizeBytes with no Content-Length, so
// only a client that bounds what it reads is safe from it.
func (w *Web) serveOversize(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	chunk := bytes.Repeat([]byte("<p>All work and no play makes a very large page.</p>\n"), 600)
	left := w.cfg.Faults.OversizeBytes
	for left > 0 && r.Context().Err() == nil {
		n := min(left, int64(len(chunk)))
		if _, err := rw.Write(chunk[:n]); err != nil {
			return
		}
		left -= n
	}
}

// serveBomb serves a small gzip body that inflates to exactly BombBytes: a
// chain of identical gzip members of 1 MiB of spaces each, and one shorter
// member for the remainder (gzip readers read concatenated members as one
// stream, RFC 1952 §2.2).
func (w *Web) serveBomb(rw http.ResponseWriter) {
	w.bombOne.Do(func() {
		member := func(n int64) []byte {
			var b bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
			_, _ = zw.Write(bytes.Repeat([]byte{' '}, int(n)))
			_ = zw.Close()
			return b.Bytes()
		}
		size := w.cfg.Faults.BombBytes
		w.bombGz = bytes.Repeat(member(1<<20), int(size>>20))
		if rest := size & (1<<20 - 1); rest > 0 || size == 0 {
			w.bombGz = append(w.bombGz, member(rest)...)
		}
	})
	h := rw.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Encoding", "gzip")
	h.Set("Content-Length", strconv.Itoa(len(w.bombGz)))
	_, _ = rw.Write(w.bombGz)
}
