package simweb

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// sitemapChunk is the number of URLs per child sitemap of an index (the
// protocol allows 50,000; smaller children exercise the index path).
const sitemapChunk = 1000

// sitemapURL is the sitemap a site advertises in robots.txt, or "".
func (s *site) sitemapURL() string {
	switch {
	case s.sitemap == SitemapNone:
		return ""
	case s.sitemapFmt == sitemapText:
		return "http://" + s.name + "/sitemap.txt"
	}
	return "http://" + s.name + "/sitemap.xml"
}

// sitemapFormatOf is the format of a site's sitemap for a uniform draw u:
// text above 1 − text, else a urlset or an index (TestSitemapFormatDefault).
func sitemapFormatOf(u, text float64) int {
	if u >= 1-text {
		return sitemapText
	}
	return sitemapXML + int(2*u/(1-text)) // sitemapIndex above half
}

func (s *site) sitemapFormat() int {
	if s.sitemapFmt == sitemapXML && s.pages > 50000 {
		return sitemapIndex
	}
	return s.sitemapFmt
}

// serveSitemap serves /sitemap.xml (a urlset or an index), the gzipped
// children /sitemap-N.xml.gz, and /sitemap.txt. They list the pages alive
// now outside private directories; lastmod is honest, or on sites with
// wrong sitemaps the date of the last deploy.
func (w *Web) serveSitemap(rw http.ResponseWriter, r *http.Request, si int32, path string, now int64) {
	s := &w.sites[si]
	format := s.sitemapFormat()
	if s.sitemap == SitemapNone {
		http.NotFound(rw, r)
		return
	}
	var b bytes.Buffer
	switch {
	case path == "/sitemap.txt" && format == sitemapText:
		w.eachSitemapPage(si, 0, s.pages, now, func(u string, _ int64) {
			b.WriteString(u)
			b.WriteByte('\n')
		})
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
	case path == "/sitemap.xml" && format == sitemapXML:
		w.writeURLSet(&b, si, 0, s.pages, now)
		rw.Header().Set("Content-Type", "application/xml")
	case path == "/sitemap.xml" && format == sitemapIndex:
		b.WriteString(xmlHeader + "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
		for i := 0; i*sitemapChunk < int(s.pages); i++ {
			b.WriteString("<sitemap><loc>http://" + s.name + "/sitemap-" + strconv.Itoa(i+1) + ".xml.gz</loc></sitemap>\n")
		}
		b.WriteString("</sitemapindex>\n")
		rw.Header().Set("Content-Type", "application/xml")
	case format == sitemapIndex && strings.HasPrefix(path, "/sitemap-") && strings.HasSuffix(path, ".xml.gz"):
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(path, "/sitemap-"), ".xml.gz"))
		lo := (n - 1) * sitemapChunk
		if err != nil || n < 1 || lo >= int(s.pages) {
			http.NotFound(rw, r)
			return
		}
		var x bytes.Buffer
		w.writeURLSet(&x, si, int32(lo), int32(min(lo+sitemapChunk, int(s.pages))), now)
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write(x.Bytes())
		_ = zw.Close()
		rw.Header().Set("Content-Type", "application/gzip")
	default:
		http.NotFound(rw, r)
		return
	}
	writeBody(rw, b.Bytes(), false)
}

const xmlHeader = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"

func (w *Web) writeURLSet(b *bytes.Buffer, si, lo, hi int32, now int64) {
	b.WriteString(xmlHeader + "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
	w.eachSitemapPage(si, lo, hi, now, func(u string, lastmod int64) {
		b.WriteString("<url><loc>")
		b.WriteString(u)
		b.WriteString("</loc><lastmod>")
		b.WriteString(w.simTime(lastmod).UTC().Format(time.RFC3339))
		b.WriteString("</lastmod></url>\n")
	})
	b.WriteString("</urlset>\n")
}

func (w *Web) eachSitemapPage(si, lo, hi int32, now int64, fn func(u string, lastmod int64)) {
	s := &w.sites[si]
	for slot := lo; slot < hi; slot++ {
		if c := s.clusterOf(slot); c >= 0 && s.clusters[c].private {
			continue
		}
		v := w.VersionAt(si, slot, now)
		lastmod := v.Modified
		if s.sitemap == SitemapWrong {
			lastmod = s.lastDeploy(now)
		}
		fn("http://"+s.name+s.path(slot, v.Gen), lastmod)
	}
}
