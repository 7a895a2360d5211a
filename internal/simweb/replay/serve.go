package replay

import (
	"bytes"
	"html"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/history"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/simweb/words"
	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// ServeHTTP serves the hosts, routed by the Host header as simweb's are:
// robots.txt (allow all), the index page at /, /sitemap.xml, and the pages
// live at the current instant; every request is audited for politeness.
func (s *Server) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	name := strings.ToLower(r.Host)
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	si, ok := s.byName[strings.TrimSuffix(name, ".")]
	if !ok {
		http.Error(rw, "replay: no such host: "+name, http.StatusMisdirectedRequest)
		return
	}
	path := r.URL.EscapedPath()
	s.audit.Begin(si, path, r.UserAgent())
	defer s.audit.End(si)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		rw.Header().Set("Allow", "GET, HEAD")
		http.Error(rw, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	now := s.clock.Now()
	t := s.Instant(now)
	rw.Header().Set("Date", unix(t).Format(http.TimeFormat))
	h := &s.hosts[si]
	switch path {
	case "/robots.txt":
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		rw.Write([]byte("User-agent: *\nAllow: /\n\nSitemap: http://" + h.name + "/sitemap.xml\n"))
	case "/sitemap.xml":
		s.serveSitemap(rw, h, t)
	case "/":
		st := h.index.At(t)
		s.serveVersion(rw, r, st, splitmix.Hash2(uint64(si), uint64(st.Version)), func(b []byte) []byte {
			return s.renderIndex(b, si, st, t)
		})
	default:
		i := s.page(si, path)
		if i < 0 {
			http.NotFound(rw, r)
			return
		}
		st := s.h.Pages[i].At(t)
		if !st.Exists {
			http.NotFound(rw, r) // not created yet, or deleted
			return
		}
		s.serveVersion(rw, r, st, splitmix.Hash2(keyHash(s.h.Pages[i].Key), uint64(st.Version)), func(b []byte) []byte {
			return s.renderPage(b, si, i, st, t)
		})
	}
}

// serveVersion answers a GET of a live version: honest validators from the
// version's hash and time, 304 to a conditional GET it satisfies, else the
// body render makes.
func (s *Server) serveVersion(rw http.ResponseWriter, r *http.Request, st history.State, hash uint64, render func([]byte) []byte) {
	etag := `"` + strconv.FormatUint(hash, 16) + `"`
	mod := unix(st.Since)
	hd := rw.Header()
	hd.Set("ETag", etag)
	hd.Set("Last-Modified", mod.Format(http.TimeFormat))
	if simweb.NotModified(r, etag, mod, true) {
		rw.WriteHeader(http.StatusNotModified)
		return
	}
	body := render(make([]byte, 0, 4096))
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	rw.Write(body)
}

// keyHash is a page's key as a number, the seed of its text.
func keyHash(key string) uint64 {
	h := uint64(14695981039346656037) // FNV-1a
	for i := 0; i < len(key); i++ {
		h = (h ^ uint64(key[i])) * 1099511628211
	}
	return h
}

// appendHead appends the top of a page: the title, the simweb meta tag
// that names the version (simweb.VersionOf reads it back) and the version
// line.
func appendHead(b []byte, title string, si int32, st history.State) []byte {
	title = html.EscapeString(title)
	b = append(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"...)
	b = append(b, title...)
	b = append(b, "</title>\n<meta name=\"simweb\" content=\"host="...)
	b = strconv.AppendInt(b, int64(si), 10)
	b = append(b, " version="...)
	b = strconv.AppendUint(b, uint64(st.Version), 10)
	b = append(b, "\">\n</head>\n<body>\n<h1>"...)
	b = append(b, title...)
	b = append(b, "</h1>\n<p class=\"updated\">Version "...)
	b = strconv.AppendUint(b, uint64(st.Version), 10)
	b = append(b, ", updated "...)
	b = unix(st.Since).AppendFormat(b, time.DateTime)
	return append(b, " UTC.</p>\n"...)
}

func appendLink(b []byte, href, text string) []byte {
	b = append(b, "<li><a href=\""...)
	b = append(b, html.EscapeString(href)...)
	b = append(b, "\">"...)
	b = append(b, html.EscapeString(text)...)
	return append(b, "</a></li>\n"...)
}

// renderPage renders page i of host si as it is at t: text that changes
// with the version, and links to the host's index and to the previous and
// next page of the host live at t.
func (s *Server) renderPage(b []byte, si int32, i int, st history.State, t int64) []byte {
	key := s.h.Pages[i].Key
	b = appendHead(b, key, si, st)
	seed := splitmix.Hash2(keyHash(key), uint64(st.Version))
	b = append(b, "<p>"...)
	b = s.corpus.AppendWords(b, int(seed%words.CorpusWords), 80+int(seed>>32%120))
	b = append(b, "</p>\n<ul class=\"links\">\n"...)
	b = appendLink(b, "/", "Index")
	h := &s.hosts[si]
	for j := i - 1; j >= h.first; j-- {
		if s.h.Pages[j].At(t).Exists {
			b = appendLink(b, pathOf(s.h.Pages[j].Key), "Previous: "+s.h.Pages[j].Key)
			break
		}
	}
	for j := i + 1; j < h.first+h.n; j++ {
		if s.h.Pages[j].At(t).Exists {
			b = appendLink(b, pathOf(s.h.Pages[j].Key), "Next: "+s.h.Pages[j].Key)
			break
		}
	}
	return append(b, "</ul>\n</body>\n</html>\n"...)
}

// renderIndex renders host si's index page at t: a link to every page live
// on the host.
func (s *Server) renderIndex(b []byte, si int32, st history.State, t int64) []byte {
	h := &s.hosts[si]
	b = appendHead(b, "Index of "+h.name, si, st)
	b = append(b, "<ul class=\"links\">\n"...)
	for j := h.first; j < h.first+h.n; j++ {
		if s.h.Pages[j].At(t).Exists {
			b = appendLink(b, pathOf(s.h.Pages[j].Key), s.h.Pages[j].Key)
		}
	}
	return append(b, "</ul>\n</body>\n</html>\n"...)
}

// serveSitemap serves a host's sitemap: every page live at t, with the
// time its live version appeared as lastmod.
func (s *Server) serveSitemap(rw http.ResponseWriter, h *host, t int64) {
	var b bytes.Buffer
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
	for j := h.first; j < h.first+h.n; j++ {
		if st := s.h.Pages[j].At(t); st.Exists {
			b.WriteString("<url><loc>http://" + h.name + html.EscapeString(pathOf(s.h.Pages[j].Key)) + "</loc><lastmod>")
			b.WriteString(unix(st.Since).Format(time.RFC3339) + "</lastmod></url>\n")
		}
	}
	b.WriteString("</urlset>\n")
	rw.Header().Set("Content-Type", "application/xml")
	rw.Write(b.Bytes())
}
