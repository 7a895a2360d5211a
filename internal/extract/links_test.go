package extract

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

const page = "http://a.example/dir/page.html"

// links runs Links on an HTML string served as UTF-8 from page, and
// checks that the reference algorithm agrees.
func links(t *testing.T, html string, opts Options) Result {
	t.Helper()
	res, err := checkFast(t, []byte(html), page, "text/html; charset=utf-8", opts)
	if err != nil {
		t.Fatalf("Links: %v", err)
	}
	return res
}

func a(url, anchor string) Link { return Link{URL: url, Anchor: anchor, Kind: KindA} }

func checkLinks(t *testing.T, got, want []Link) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		var b strings.Builder
		for _, l := range got {
			fmt.Fprintf(&b, "\n\t%s %q %q nofollow=%v", l.Kind, l.URL, l.Anchor, l.Nofollow)
		}
		t.Errorf("links:%s\nwant %v", b.String(), want)
	}
}

func TestLinksKinds(t *testing.T) {
	tests := []struct {
		name, html string
		want       []Link
	}{
		{"a", `<a href="/x">X</a>`, []Link{a("http://a.example/x", "X")}},
		{"area", `<map><area href="/m" alt="Map  region" shape=rect></map>`,
			[]Link{{URL: "http://a.example/m", Anchor: "Map region", Kind: KindArea}}},
		{"frame", `<frameset><frame src="left.html"><frame src="/right.html"></frameset>`,
			[]Link{{URL: "http://a.example/dir/left.html", Kind: KindFrame}, {URL: "http://a.example/right.html", Kind: KindFrame}}},
		{"iframe", `<iframe src="https://video.example/embed/1">fallback <a href="/no">no</a></iframe><a href=/yes>yes</a>`,
			[]Link{{URL: "https://video.example/embed/1", Kind: KindIFrame}, a("http://a.example/yes", "yes")}},
		{"canonical", `<link rel="canonical" href="/dir/page">`, []Link{{URL: "http://a.example/dir/page", Kind: KindCanonical}}},
		{"canonical in capitals", `<LINK REL="Alternate CANONICAL" HREF="/dir/page">`, []Link{{URL: "http://a.example/dir/page", Kind: KindCanonical}}},
		{"canonical by character reference", `<link rel="&#99;anonical" href="/dir/page">`, []Link{{URL: "http://a.example/dir/page", Kind: KindCanonical}}},
		{"other link rels ignored", `<link rel=stylesheet href=/s.css><link rel=alternate href=/feed><link href=/none>`, nil},
		{"img src ignored", `<img src="/i.png"><script src="/s.js"></script>`, nil},
		{"a without href", `<a name="top">Top</a><a href="/x">X</a>`, []Link{a("http://a.example/x", "X")}},
		{"svg xlink:href", `<svg><a xlink:href="/svg">S</a></svg>`, []Link{a("http://a.example/svg", "S")}},
		{"xlink:href in capitals", `<svg><A XLINK:HREF="/svg" HREF="/h">S</A></svg>`, []Link{a("http://a.example/h", "S")}},
		{"rel after href", `<a class=c href="/x" title=t REL="NoFollow">X</a>`,
			[]Link{{URL: "http://a.example/x", Anchor: "X", Kind: KindA, Nofollow: true}}},
		{"empty href", `<a href="">self</a>`, nil},
		{"fragment only", `<a href="#top">top</a><a href="page.html#s">same page, named</a>`,
			[]Link{a("http://a.example/dir/page.html", "same page, named")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkLinks(t, links(t, tt.html, Options{}).Links, tt.want)
		})
	}
}

func TestLinksRelative(t *testing.T) {
	html := `<a href="x.html">1</a><a href="./y/">2</a><a href="../up.html">3</a><a href="/root">4</a>
<a href="//cdn.example/lib">5</a><a href="?q=1">6</a><a href="https://b.example:443/s?a=1#f">7</a>
<a href="HTTP://B.EXAMPLE/%7Euser">8</a><a href="../../../../x">9</a>`
	want := []Link{
		a("http://a.example/dir/x.html", "1"), a("http://a.example/dir/y/", "2"), a("http://a.example/up.html", "3"),
		a("http://a.example/root", "4"), a("http://cdn.example/lib", "5"), a("http://a.example/dir/page.html?q=1", "6"),
		a("https://b.example/s?a=1", "7"), a("http://b.example/~user", "8"), a("http://a.example/x", "9"),
	}
	checkLinks(t, links(t, html, Options{}).Links, want)
}

func TestLinksBase(t *testing.T) {
	tests := []struct {
		name, html, base string
		want             []Link
	}{
		{"relative base", `<base href="/other/"><a href="x">x</a>`, "http://a.example/other/",
			[]Link{a("http://a.example/other/x", "x")}},
		{"absolute base", `<base href="https://b.example/d/"><a href="x">x</a><a href="/y">y</a>`, "https://b.example/d/",
			[]Link{a("https://b.example/d/x", "x"), a("https://b.example/y", "y")}},
		{"base applies to earlier links", `<a href="x">x</a><base href="/late/">`, "http://a.example/late/",
			[]Link{a("http://a.example/late/x", "x")}},
		{"first base wins", `<base href="/one/"><base href="/two/"><a href="x">x</a>`, "http://a.example/one/",
			[]Link{a("http://a.example/one/x", "x")}},
		{"base without href skipped", `<base target="_blank"><base href="/two/"><a href="x">x</a>`, "http://a.example/two/",
			[]Link{a("http://a.example/two/x", "x")}},
		{"unusable base falls back", `<base href="javascript:void(0)"><a href="x">x</a>`, page,
			[]Link{a("http://a.example/dir/x", "x")}},
		{"fragment resolves against base", `<base href="/b/"><a href="#top">top</a>`, "http://a.example/b/",
			[]Link{a("http://a.example/b/", "top")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := links(t, tt.html, Options{})
			if res.Base != tt.base {
				t.Errorf("Base = %q, want %q", res.Base, tt.base)
			}
			checkLinks(t, res.Links, tt.want)
		})
	}
}

func TestLinksNofollow(t *testing.T) {
	html := `<a href="/f">follow</a><a rel="NoFollow noopener" href="/n">nf</a><a rel="nofollowing" href="/g">g</a>
<area href="/an" rel=nofollow alt=an>`
	nf := Link{URL: "http://a.example/n", Anchor: "nf", Kind: KindA, Nofollow: true}
	an := Link{URL: "http://a.example/an", Anchor: "an", Kind: KindArea, Nofollow: true}
	checkLinks(t, links(t, html, Options{}).Links, []Link{a("http://a.example/f", "follow"), nf, a("http://a.example/g", "g"), an})
	checkLinks(t, links(t, html, Options{HonorNofollow: true}).Links, []Link{a("http://a.example/f", "follow"), a("http://a.example/g", "g")})

	// A page whose robots meta tag says nofollow keeps its canonical but
	// loses its links when nofollow is honoured.
	page := `<link rel=canonical href=/c><meta name=robots content=nofollow><a href="/x">x</a>`
	res := links(t, page, Options{HonorNofollow: true})
	if len(res.Links) != 0 || res.Canonical != "http://a.example/c" || !res.Robots.NoFollow {
		t.Errorf("honoured meta nofollow: %+v", res)
	}
	if res := links(t, page, Options{}); len(res.Links) != 2 {
		t.Errorf("meta nofollow not honoured: %d links, want 2", len(res.Links))
	}
}

func TestMetaRobots(t *testing.T) {
	tests := []struct {
		html  string
		agent string
		want  Robots
	}{
		{`<meta name="robots" content="noindex, nofollow">`, "", Robots{NoIndex: true, NoFollow: true}},
		{`<META NAME="ROBOTS" CONTENT="NOINDEX">`, "", Robots{NoIndex: true}},
		{`<meta name=robots content="index,follow">`, "", Robots{}},
		{`<meta name=robots content=none>`, "", Robots{NoIndex: true, NoFollow: true}},
		{`<meta name="freshcrawl" content="nofollow">`, "", Robots{NoFollow: true}},
		{`<meta name="googlebot" content="noindex">`, "", Robots{}},
		{`<meta name="mybot" content="noindex">`, "mybot", Robots{NoIndex: true}},
		{`<meta name="freshcrawl" content="noindex">`, "mybot", Robots{}},
		{`<meta name=robots content="noarchive"><meta name=freshcrawl content="noindex">`, "", Robots{NoIndex: true}},
		{`<meta content="noindex">`, "", Robots{}},
		{`<body><p>late <meta name=robots content="nofollow noindex">`, "", Robots{NoIndex: true, NoFollow: true}},
	}
	for _, tt := range tests {
		if got := links(t, tt.html, Options{Agent: tt.agent}).Robots; got != tt.want {
			t.Errorf("%s (agent %q): Robots = %+v, want %+v", tt.html, tt.agent, got, tt.want)
		}
	}
}

func TestCanonicalLink(t *testing.T) {
	tests := []struct{ html, want string }{
		{`<link rel="canonical" href="https://a.example/Page?id=1#x">`, "https://a.example/Page?id=1"},
		{`<link rel=canonical href="other.html"><link rel=canonical href="/second">`, "http://a.example/dir/other.html"},
		{`<link rel="Canonical Alternate" href="/c">`, "http://a.example/c"},
		{`<link rel=canonical href="javascript:x"><link rel=canonical href="/valid">`, "http://a.example/valid"},
		{`<link rel=canonical>`, ""},
		{`<base href="/b/"><link rel=canonical href="c">`, "http://a.example/b/c"},
	}
	for _, tt := range tests {
		if got := links(t, tt.html, Options{}).Canonical; got != tt.want {
			t.Errorf("%s: Canonical = %q, want %q", tt.html, got, tt.want)
		}
	}
}

// TestLinksMalformed feeds broken markup of the kinds found in the wild.
func TestLinksMalformed(t *testing.T) {
	tests := []struct {
		name, html string
		want       []Link
	}{
		{"unquoted and uppercase", `<UL><LI><A HREF=/one.html>One</A><LI><A HREF=two.html TARGET=_top>Two</A></UL>`,
			[]Link{a("http://a.example/one.html", "One"), a("http://a.example/dir/two.html", "Two")}},
		{"single quotes", `<a href='/q'>q</a>`, []Link{a("http://a.example/q", "q")}},
		{"unclosed a", `<p><a href="/1">first<p><a href="/2">second`,
			[]Link{a("http://a.example/1", "first"), a("http://a.example/2", "second")}},
		{"unclosed li closes the anchor", "<ul><li><a href=/1>one\n<li>plain text\n<li><a href=/2>two</ul>",
			[]Link{a("http://a.example/1", "one"), a("http://a.example/2", "two")}},
		{"nested a", `<a href="/outer">out <a href="/inner">in</a> after</a>`,
			[]Link{a("http://a.example/outer", "out"), a("http://a.example/inner", "in")}},
		{"missing closing quote", "<a href=\"/x>broken</a>\n<a href=\"/y\">fine</a>",
			[]Link{a("http://a.example/x%3Ebroken%3C/a%3E%3Ca%20href=", "fine")}},
		{"attribute without value", `<a download href="/file.zip" hidden>file</a>`, []Link{a("http://a.example/file.zip", "file")}},
		{"duplicate href keeps the first", `<a href="/first" href="/second">d</a>`, []Link{a("http://a.example/first", "d")}},
		{"no space between attributes", `<a class="c"href="/x">x</a>`, []Link{a("http://a.example/x", "x")}},
		{"stray less-than", `<p>3 < 4 and <a href="/lt">lt</a> & so on`, []Link{a("http://a.example/lt", "lt")}},
		{"mis-nested formatting", `<b><a href="/m"><i>bold italic</b></i></a>`, []Link{a("http://a.example/m", "bold italic")}},
		{"comment hides links", `<!-- <a href="/hidden">h</a> --><a href="/shown">s</a>`, []Link{a("http://a.example/shown", "s")}},
		{"unterminated comment", `<a href="/before">b</a><!-- <a href="/in">`, []Link{a("http://a.example/before", "b")}},
		{"script hides links", `<script>var s = '<a href="/js">';</script><a href="/real">r</a>`, []Link{a("http://a.example/real", "r")}},
		{"script text not anchor text", `<a href="/x">before<script>x()</script> after</a>`, []Link{a("http://a.example/x", "before after")}},
		{"noscript links found", `<noscript><a href="/ns">no script</a><img src=x></noscript>`, []Link{a("http://a.example/ns", "no script")}},
		{"noframes links found", `<noframes><a href="/nf">no frames</a></noframes>`, []Link{a("http://a.example/nf", "no frames")}},
		{"textarea and title hide links", `<title><a href="/t">t</a></title><textarea><a href="/ta"></textarea>`, nil},
		{"self-closing a", `<a href="/sc"/>text`, []Link{a("http://a.example/sc", "text")}},
		{"garbage before doctype", "\x00\xff<!DOCTYPE html><a href=/g>g</a>", []Link{a("http://a.example/g", "g")}},
		{"truncated tag at EOF", `<a href="/ok">ok</a><a href="/cut`, []Link{a("http://a.example/ok", "ok")}},
		{"newlines inside tag", "<a\nhref\n=\n\"/nl\"\n>nl</a>", []Link{a("http://a.example/nl", "nl")}},
		{"cdata outside foreign content", `<![CDATA[<a href="/cd">]]><a href="/after">after</a>`, []Link{a("http://a.example/after", "after")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkLinks(t, links(t, tt.html, Options{}).Links, tt.want)
		})
	}
}

func TestLinksHrefSyntax(t *testing.T) {
	tests := []struct{ name, href, want string }{
		{"entity in query", `/s?a=1&amp;b=2`, "http://a.example/s?a=1&b=2"},
		{"numeric entity", `/x&#47;y`, "http://a.example/x/y"},
		{"bare ampersand", `/s?a=1&b=2`, "http://a.example/s?a=1&b=2"},
		{"entity without semicolon", `/s?a=1&copy=2`, "http://a.example/s?a=1&copy=2"},
		{"surrounding whitespace", " \n\t/w \n", "http://a.example/w"},
		{"inner newline removed", "/a\nb", "http://a.example/ab"},
		{"inner space encoded", "/a b", "http://a.example/a%20b"},
		{"non-ASCII", "/café", "http://a.example/caf%C3%A9"},
		{"backslashes", `\\b.example\p`, "http://b.example/p"},
		{"userinfo dropped", "http://user:pw@b.example/", "http://b.example/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkLinks(t, links(t, `<a href="`+tt.href+`">x</a>`, Options{}).Links, []Link{a(tt.want, "x")})
		})
	}
}

func TestLinksSchemesDropped(t *testing.T) {
	for _, href := range []string{
		"javascript:void(0)", "JavaScript:alert(1)", " javascript:x()", "java\nscript:x()", "java&#10;script:x()",
		"mailto:a@b.example", "data:text/html,<p>hi", "tel:+15551234", "ftp://f.example/", "file:///etc/passwd",
		"about:blank", "blob:http://a.example/1", "ws://a.example/", "http://", "http://a b/",
	} {
		if res := links(t, `<a href="`+href+`">x</a>`, Options{}); len(res.Links) != 0 {
			t.Errorf("href %q gave %v", href, res.Links)
		}
	}
}

func TestAnchorText(t *testing.T) {
	tests := []struct {
		name, html, want string
		max              int
	}{
		{"whitespace collapsed", "<a href=/x>\n  Hello,\t\t<b>big</b>\n world  </a>", "Hello, big world", 0},
		{"entities", `<a href=/x>Tom &amp; Jerry &lt;3 &eacute;t&eacute;</a>`, "Tom & Jerry <3 été", 0},
		{"image alt", `<a href=/x><img src=i.png alt="Logo">Home</a>`, "Logo Home", 0},
		{"bounded", `<a href=/x>abcdefghij</a>`, "abcde", 5},
		{"bounded at a space", `<a href=/x>abcd efgh</a>`, "abcd", 5},
		{"bounded inside a rune", `<a href=/x>abcdé</a>`, "abcd", 5},
		{"bounded across tokens", `<a href=/x>abc<b>def</b>ghi</a>`, "abcdef", 6},
		{"invalid UTF-8", "<a href=/x>a\xffb</a>", "a\uFFFDb", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := links(t, tt.html, Options{MaxAnchor: tt.max})
			if len(res.Links) != 1 || res.Links[0].Anchor != tt.want {
				t.Fatalf("links %+v, want anchor %q", res.Links, tt.want)
			}
		})
	}
}

func TestLinksLimits(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "<a href=\"/l%d\">link %d</a>\n", i, i)
	}
	html := b.String()

	res := links(t, html, Options{})
	if len(res.Links) != 100 || res.Truncated {
		t.Fatalf("default limits: %d links, truncated %v", len(res.Links), res.Truncated)
	}
	res = links(t, html, Options{MaxLinks: 10})
	if len(res.Links) != 10 || !res.Truncated || res.Links[9].URL != "http://a.example/l9" {
		t.Errorf("MaxLinks 10: %d links, truncated %v", len(res.Links), res.Truncated)
	}
	// The first 300 bytes hold the start tags of as many links as `">`
	// occurs in them.
	res = links(t, html, Options{MaxBytes: 300})
	if want := strings.Count(html[:300], `">`); len(res.Links) != want || !res.Truncated {
		t.Errorf("MaxBytes 300: %d links, truncated %v; want %d", len(res.Links), res.Truncated, want)
	}
	// Exactly the page's size is not a truncation.
	res = links(t, html, Options{MaxBytes: int64(len(html))})
	if len(res.Links) != 100 || res.Truncated {
		t.Errorf("MaxBytes = size: %d links, truncated %v", len(res.Links), res.Truncated)
	}
	// Dropped hrefs do not count against MaxLinks.
	res = links(t, strings.Repeat(`<a href="javascript:x()">j</a>`, 50)+html, Options{MaxLinks: 100})
	if len(res.Links) != 100 || res.Truncated {
		t.Errorf("javascript links counted: %d links, truncated %v", len(res.Links), res.Truncated)
	}
	// An href too long to be a URL is dropped.
	res = links(t, `<a href="/`+strings.Repeat("x", urlx.MaxInput)+`">long</a><a href=/s>s</a>`, Options{})
	checkLinks(t, res.Links, []Link{a("http://a.example/s", "s")})
}

func TestLinksCharset(t *testing.T) {
	// "Café crème" and an href with é, in windows-1252, declared only by a
	// meta tag in the page.
	latin1 := "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\"></head>" +
		"<body><a href=\"/caf\xe9\">Caf\xe9 cr\xe8me \x80 \x93 na\xefve</a></body></html>"
	res, err := Links(strings.NewReader(latin1), page, "text/html", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Link{a("http://a.example/caf%C3%A9", "Café crème € “ naïve")} // 0x80 is €, 0x93 “ in windows-1252
	checkLinks(t, res.Links, want)
	if res.Charset != "windows-1252" {
		t.Errorf("Charset = %q", res.Charset)
	}

	tests := []struct {
		name, ct, body, charset, anchor string
	}{
		{"meta charset", "text/html", "<meta charset=iso-8859-1><a href=/x>\xe9t\xe9</a>", "windows-1252", "été"},
		{"header wins over meta", "text/html; charset=utf-8", "<meta charset=windows-1252><a href=/x>\xc3\xa9t\xc3\xa9</a>", "utf-8", "été"},
		{"header charset", "text/html; charset=ISO-8859-15", "<a href=/x>\xa4</a>", "iso-8859-15", "€"},
		{"UTF-8 BOM", "text/html; charset=windows-1252", "\xef\xbb\xbf<a href=/x>\xc3\xa9</a>", "utf-8", "é"},
		{"UTF-16LE BOM", "", "\xff\xfe<\x00a\x00 \x00h\x00r\x00e\x00f\x00=\x00/\x00x\x00>\x00\xe9\x00<\x00/\x00a\x00>\x00", "utf-16le", "é"},
		{"undeclared UTF-8", "text/html", "<a href=/x>\xc3\xa9</a>", "utf-8", "é"},
		{"undeclared, not UTF-8", "text/html", "<a href=/x>\xe9t\xe9</a>", "windows-1252", "été"},
		{"undeclared, ASCII start", "", "<!--" + strings.Repeat("a", 1100) + "--><a href=/x>\xc3\xa9</a>", "utf-8", "é"},
		{"shift_jis", "text/html; charset=shift_jis", "<a href=/x>\x93\xfa\x96\x7b</a>", "shift_jis", "日本"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Links(strings.NewReader(tt.body), page, tt.ct, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Charset != tt.charset || len(res.Links) != 1 || res.Links[0].Anchor != tt.anchor || res.Links[0].URL != "http://a.example/x" {
				t.Errorf("charset %q, links %+v; want %q, anchor %q", res.Charset, res.Links, tt.charset, tt.anchor)
			}
		})
	}
}

// TestLinksQueryEncoding checks that the non-ASCII text of a query is
// encoded in the page's encoding and that of a path in UTF-8, as browsers
// do (WHATWG URL, "encoding" of the basic URL parser). The expected bytes
// are from the encodings' tables: é is E9 in windows-1252; 日本 is 93 FA
// 96 7B in Shift_JIS, and 7B is '{', which the canonical form escapes.
func TestLinksQueryEncoding(t *testing.T) {
	tests := []struct {
		name, ct, body, want string
	}{
		{"windows-1252 query", "text/html; charset=windows-1252", "<a href=\"/caf\xe9?q=caf\xe9#caf\xe9\">x</a>", "http://a.example/caf%C3%A9?q=caf%E9"},
		{"unmappable in windows-1252", "text/html; charset=windows-1252", "<a href=\"/s?q=&#256;&amp;r=1\">x</a>", "http://a.example/s?q=&%23256;&r=1"},
		{"shift_jis query", "text/html; charset=shift_jis", "<a href=\"/s?q=\x93\xfa\x96\x7b\">x</a>", "http://a.example/s?q=%93%FA%96%7B"},
		{"UTF-8 query", "text/html; charset=utf-8", "<a href=\"/s?q=caf\xc3\xa9\">x</a>", "http://a.example/s?q=caf%C3%A9"},
		{"UTF-16 page uses UTF-8", "", "\xff\xfe<\x00a\x00 \x00h\x00r\x00e\x00f\x00=\x00?\x00\xe9\x00>\x00x\x00", "http://a.example/dir/page.html?%C3%A9"},
		{"ASCII query untouched", "text/html; charset=windows-1252", "<a href=\"/s?a=1&amp;b=%41 c\">x</a>", "http://a.example/s?a=1&b=A%20c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Links(strings.NewReader(tt.body), page, tt.ct, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkLinks(t, res.Links, []Link{a(tt.want, "x")})
		})
	}
}

func TestLinksErrors(t *testing.T) {
	if _, err := Links(strings.NewReader("<a href=x>x</a>"), "/relative", "", Options{}); !errors.Is(err, urlx.ErrInvalid) {
		t.Errorf("relative page URL: err = %v", err)
	}
	if _, err := Links(strings.NewReader("<a href=x>x</a>"), "ftp://a.example/", "", Options{}); !errors.Is(err, urlx.ErrScheme) {
		t.Errorf("ftp page URL: err = %v", err)
	}
	// A read error after some links returns them and the error.
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader(`<a href="/1">1</a>`+strings.Repeat(" ", 2000)), &errReader{boom})
	res, err := Links(r, page, "", Options{})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want %v", err, boom)
	}
	checkLinks(t, res.Links, []Link{a("http://a.example/1", "1")})
}

type errReader struct{ err error }

func (e *errReader) Read([]byte) (int, error) { return 0, e.err }

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindA: "a", KindArea: "area", KindFrame: "frame", KindIFrame: "iframe", KindCanonical: "link-canonical", 99: "Kind(99)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

// TestAnchorInvalidUTF8Bound is the case FuzzLinks found: invalid UTF-8 in
// a UTF-8 page becomes U+FFFD, three bytes for one, and the anchor must
// still keep to MaxAnchor.
func TestAnchorInvalidUTF8Bound(t *testing.T) {
	res := links(t, "<a href=/x>\xff"+strings.Repeat("0", 70)+"</a>", Options{MaxAnchor: 64})
	if want := "\uFFFD" + strings.Repeat("0", 61); len(res.Links) != 1 || res.Links[0].Anchor != want {
		t.Errorf("links %+v, want anchor %q", res.Links, want)
	}
}
