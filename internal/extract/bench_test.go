package extract

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// benchPage returns a page like the ones crawlers see most: about 10 KB
// of HTML with a head of meta tags, styles and a script, navigation,
// paragraphs of text and 20 links, relative and absolute, some with query
// strings and entities.
func benchPage() []byte {
	var b bytes.Buffer
	b.WriteString(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Quarterly report on river levels | Example News</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="Measurements of river levels across the region, with charts and commentary.">
<link rel="stylesheet" href="/static/css/site.css?v=3"><link rel="canonical" href="https://news.example.com/2026/04/river-levels.html">
<style>body{font-family:sans-serif;margin:0 auto;max-width:50em}.nav a{padding:0 1em}</style>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());</script>
</head><body><header class="site"><nav class="nav"><ul>
`)
	nav := []string{"/", "/world/", "/region/", "/science/", "/sport/", "/about/contact.html"}
	for _, h := range nav {
		fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a></li>\n", h, strings.Trim(h, "/"))
	}
	b.WriteString("</ul></nav></header>\n<main><article><h1>Quarterly report on river levels</h1>\n")
	words := strings.Fields(`the river rose steadily through the spring as snowmelt from the upper valleys reached the
		gauging stations measurements taken every fifteen minutes show a peak in late april followed by a slow decline
		hydrologists attribute the early peak to a warm march and note that levels remain within the historical range`)
	links := []string{
		"river-levels-charts.html", "../03/rainfall.html", "/data/stations.csv", "https://hydro.example.org/gauges?id=17&amp;unit=cm",
		"https://www.example.net/maps/valley", "/2026/01/winter-report.html", "?page=2", "#methods",
		"https://archive.example.com/reports/2025/q1.pdf", "/tags/hydrology", "//cdn.example.com/img/chart1.png", "/authors/j-smith",
		"mailto:desk@news.example.com", "/2026/04/river-levels.html?print=1",
	}
	for p, w := 0, 0; b.Len() < 9400; p++ {
		b.WriteString("<p>")
		for i := 0; i < 60; i++ {
			b.WriteString(words[w%len(words)])
			b.WriteByte(' ')
			w++
		}
		if p < len(links) {
			fmt.Fprintf(&b, "See <a href=\"%s\" class=\"ref\">%s</a>.", links[p], words[p])
		}
		b.WriteString("</p>\n")
	}
	b.WriteString("</article></main><footer><p>&copy; 2026 Example News. <a href=\"/privacy\" rel=\"nofollow\">Privacy</a></p></footer></body></html>\n")
	return b.Bytes()
}

// BenchmarkLinks measures link extraction from a realistic 10 KB page.
func BenchmarkLinks(b *testing.B) {
	page := benchPage()
	res, err := Links(bytes.NewReader(page), "https://news.example.com/2026/04/river-levels.html", "text/html; charset=utf-8", Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("page %d bytes, %d links", len(page), len(res.Links))
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Links(bytes.NewReader(page), "https://news.example.com/2026/04/river-levels.html", "text/html; charset=utf-8", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSitemap measures reading a full sitemap: 50,000 URLs with
// lastmod, as simweb and most CMSs write them, about 4.5 MB.
func BenchmarkSitemap(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for i := 0; i < DefaultSitemapLimit; i++ {
		fmt.Fprintf(&buf, "<url><loc>http://h17-com.test/docs/%d.html</loc><lastmod>2026-01-%02dT10:00:00Z</lastmod></url>\n", i, 1+i%28)
	}
	buf.WriteString("</urlset>\n")
	page := buf.Bytes()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Sitemap(bytes.NewReader(page), "application/xml", 0)
		if err != nil || len(res.URLs) != DefaultSitemapLimit {
			b.Fatal(len(res.URLs), err)
		}
	}
}

// rustDocPages are the pages of testdata/rustdoc with the URLs they have
// at doc.rust-lang.org: a module index, an item page dense with trait
// links, and a chapter of the book.
var rustDocPages = []struct{ file, url string }{
	{"std-fs-index.html", "https://doc.rust-lang.org/1.63.0/std/fs/index.html"},
	{"std-num-struct.TryFromIntError.html", "https://doc.rust-lang.org/1.63.0/std/num/struct.TryFromIntError.html"},
	{"book-ch04-01-what-is-ownership.html", "https://doc.rust-lang.org/1.63.0/book/ch04-01-what-is-ownership.html"},
}

// BenchmarkLinksRustDoc measures link extraction from real pages, served
// as nginx serves them (Content-Type text/html, no charset), the pages a
// profile of a crawl of Debian's rust-doc showed Links spending its time
// on.
func BenchmarkLinksRustDoc(b *testing.B) {
	benchRustDoc(b, func(b *testing.B, page []byte, url string) {
		if _, err := Links(bytes.NewReader(page), url, "text/html", Options{}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkLinksFloorRustDoc runs golang.org/x/net/html's Tokenizer alone
// over the pages of BenchmarkLinksRustDoc, reading no token: the floor
// under Links, which tokenises every byte of a page with it.
func BenchmarkLinksFloorRustDoc(b *testing.B) {
	benchRustDoc(b, func(_ *testing.B, page []byte, _ string) {
		z := html.NewTokenizer(bytes.NewReader(page))
		for z.Next() != html.ErrorToken {
		}
	})
}

// benchRustDoc runs one sub-benchmark of op per page of rustDocPages.
func benchRustDoc(b *testing.B, op func(b *testing.B, page []byte, url string)) {
	for _, p := range rustDocPages {
		page, err := os.ReadFile(filepath.Join("testdata", "rustdoc", p.file))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(strings.TrimSuffix(p.file, ".html"), func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			b.ReportAllocs()
			for b.Loop() {
				op(b, page, p.url)
			}
		})
	}
}
