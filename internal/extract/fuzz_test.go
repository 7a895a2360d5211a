package extract

import (
	"bytes"
	"testing"
	"unicode/utf8"

	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

var fuzzContentTypes = []string{"", "text/html", "text/html; charset=utf-8", "text/html; charset=windows-1252", "text/html; charset=utf-16le", "text/html; charset=shift_jis"}

// FuzzLinks checks that Links never panics, stays within its bounds,
// returns only canonical URLs and valid UTF-8 anchors, and agrees with the
// reference algorithm.
func FuzzLinks(f *testing.F) {
	seeds := []string{
		benchString(),
		`<base href="/b/"><link rel=canonical href=c><meta name=robots content="noindex,nofollow"><a href=x rel=nofollow>x</a>`,
		"<UL><LI><A HREF=/one.html>One</A><LI><A HREF=two.html TARGET=_top>Two</UL>",
		`<noscript><a href="/ns">n</a></noscript><iframe src=//f.example/></iframe><area href=/m alt=m><frame src=f>`,
		"<meta charset=windows-1252><a href=/caf\xe9>caf\xe9</a>",
		"\xff\xfe<\x00a\x00 \x00h\x00r\x00e\x00f\x00=\x00x\x00>\x00",
		`<a href="javascript:x()">j</a><a href="#t">t</a><a href="  /s  ">s</a><a href="/a?b=1&amp;c=2">e</a><svg><a xlink:href=/v>v</a></svg>`,
		"<script><a href=/s></script><title><a href=/t></title><plaintext><a href=/p>",
	}
	for i, s := range seeds {
		f.Add([]byte(s), uint8(i))
	}
	f.Fuzz(func(t *testing.T, body []byte, ct uint8) {
		for _, honor := range []bool{false, true} {
			opts := Options{MaxLinks: 50, MaxAnchor: 64, MaxBytes: 1 << 16, HonorNofollow: honor}
			res, err := checkFast(t, body, "http://a.example/d/p.html", fuzzContentTypes[int(ct)%len(fuzzContentTypes)], opts)
			if err != nil {
				t.Fatal(err) // nothing in body can make a reader over memory fail
			}
			if len(res.Links) > opts.MaxLinks {
				t.Fatalf("%d links > %d", len(res.Links), opts.MaxLinks)
			}
			checkCanonicalURL(t, res.Base)
			if res.Canonical != "" {
				checkCanonicalURL(t, res.Canonical)
			}
			for _, l := range res.Links {
				checkCanonicalURL(t, l.URL)
				if len(l.Anchor) > opts.MaxAnchor || !utf8.ValidString(l.Anchor) {
					t.Fatalf("anchor %q", l.Anchor)
				}
				if l.Kind < KindA || l.Kind > KindCanonical || honor && (l.Nofollow || res.Robots.NoFollow) {
					t.Fatalf("link %+v (robots %+v)", l, res.Robots)
				}
			}
		}
	})
}

func checkCanonicalURL(t *testing.T, u string) {
	t.Helper()
	if c, err := urlx.Canonical(u); err != nil || c != u {
		t.Fatalf("URL %q is not canonical: %q, %v", u, c, err)
	}
}

// FuzzSitemap checks that Sitemap never panics, keeps to its entry limit,
// and returns only canonical URLs.
func FuzzSitemap(f *testing.F) {
	seeds := []string{
		urlset,
		`<sitemapindex><sitemap><loc>http://a.example/s1.xml</loc><lastmod>2005-01</lastmod></sitemap></sitemapindex>`,
		"http://a.example/1\nhttp://a.example/2\r\nnot a url\n",
		`<?xml version="1.0" encoding="ISO-8859-1"?><urlset><url><loc>http://a.example/caf` + "\xe9" + `</loc></url></urlset>`,
		`<urlset><url><loc>http://a.example/1</loc></url><url <loc>`,
		`<rss><channel><link>http://a.example/</link></channel></rss>`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
		f.Add([]byte(gz(f, s)))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		const limit = 20
		res, err := Sitemap(bytes.NewReader(body), "", limit)
		if n := len(res.URLs) + len(res.Sitemaps); n > limit {
			t.Fatalf("%d entries > %d", n, limit)
		}
		if err == nil && res.Kind == 0 {
			t.Fatalf("no error and no kind: %+v", res)
		}
		for _, e := range append(res.URLs, res.Sitemaps...) {
			checkCanonicalURL(t, e.Loc)
			if !e.LastMod.IsZero() && e.LastMod.Location().String() != "UTC" {
				t.Fatalf("lastmod %v not UTC", e.LastMod)
			}
		}
	})
}

func benchString() string { return string(benchPage()) }
