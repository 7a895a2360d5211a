package robots

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// check is one question to a robots.txt file: may agent fetch path?
type check struct {
	agent, path string
	want        bool
}

func runChecks(t *testing.T, robotstxt string, checks []check) {
	t.Helper()
	f := Parse([]byte(robotstxt))
	for _, c := range checks {
		if got := f.Group(c.agent).Allowed(c.path); got != c.want {
			t.Errorf("agent %q path %q: allowed %v, want %v", c.agent, c.path, got, c.want)
		}
	}
}

// rfcSimple is the file of RFC 9309 §5.1, figure and all: the "EOF" line
// that closes the figure is not a field and must be ignored.
const rfcSimple = `User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF
`

func TestRFC9309Examples(t *testing.T) {
	tests := []struct {
		name, source, robotstxt string
		checks                  []check
	}{
		{
			name: "simple", source: "RFC 9309 §5.1", robotstxt: rfcSimple,
			checks: []check{
				// foobot: its own group only; the longer Allows beat "Disallow:/".
				{"foobot", "/example/page.html", true},
				{"foobot", "/example/allowed.gif", true},
				{"foobot", "/example/other.html", false},
				{"foobot", "/publications/", false},
				{"foobot", "/", false},
				{"FooBot/2.1", "/example/page.html", true},
				// barbot and bazbot share one group.
				{"barbot", "/example/page.html", false},
				{"bazbot", "/example/page.html", false},
				{"barbot", "/example/other.html", true},
				{"bazbot", "/image.gif", true},
				// quxbot: an empty group at the end of the file allows all.
				{"quxbot", "/example/page.html", true},
				{"quxbot", "/image.gif", true},
				// Everyone else obeys "*".
				{"otherbot", "/image.gif", false},
				{"otherbot", "/a/b/image.gif", false},
				{"otherbot", "/image.gif?size=2", true}, // '$' ends the match
				{"otherbot", "/example/", false},
				{"otherbot", "/example/x.html", false},
				{"otherbot", "/publications/", true},
				{"otherbot", "/publications/x.gif", true}, // /publications/ is longer than *.gif$
				{"otherbot", "/", true},
				{"", "/example/", false},
			},
		},
		{
			name: "longest match", source: "RFC 9309 §5.2 (with erratum 7124)",
			robotstxt: "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n",
			checks: []check{
				{"foobot", "/example/page/", true},
				{"foobot", "/example/page/allowed.gif", true},
				{"foobot", "/example/page/disallowed.gif", false},
			},
		},
		{
			name: "end anchor", source: "RFC 9309 §2.2.3, figure 5",
			robotstxt: "User-agent: *\nDisallow: /\nAllow: /this/path/exactly$\n",
			checks: []check{
				{"x", "/this/path/exactly", true},
				{"x", "/this/path/exactly/not", false},
			},
		},
		{
			name: "wildcard", source: "RFC 9309 §2.2.3, figure 5",
			robotstxt: "User-agent: *\nDisallow: /\nAllow: /this/*/exactly\n",
			checks: []check{
				{"x", "/this/a/b/exactly", true},
				{"x", "/this/exactly", false},
			},
		},
		{
			name: "robots.txt always allowed", source: "RFC 9309 §2.2.2",
			robotstxt: "User-agent: *\nDisallow: /\nDisallow: /robots.txt\n",
			checks: []check{
				{"x", "/robots.txt", true},
				{"x", "/%72obots.txt", true}, // the same URI once %72 is decoded
				{"x", "/robots.txt?x=1", false},
				{"x", "/", false},
			},
		},
		{
			name: "empty disallow matches nothing", source: "RFC 9309 §2.2.2",
			robotstxt: "User-agent: *\nDisallow:\nDisallow:   \n",
			checks:    []check{{"x", "/", true}, {"x", "/a", true}},
		},
		{
			name: "product token matching is case-insensitive", source: "RFC 9309 §2.2.1",
			robotstxt: "User-agent: FreshCrawl\nDisallow: /\n",
			checks: []check{
				{"freshcrawl/0.1 (+https://example.com/bot)", "/a", false},
				{"FRESHCRAWL", "/a", false},
				{"freshcrawler/1.0", "/a", true}, // a longer token is another crawler
				{"fresh/1.0", "/a", true},
			},
		},
		{
			name: "no group and no star group allows all", source: "RFC 9309 §2.2.1",
			robotstxt: "User-agent: otherbot\nDisallow: /\n",
			checks:    []check{{"freshcrawl/0.1", "/a", true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Logf("source: %s", tt.source)
			runChecks(t, tt.robotstxt, tt.checks)
		})
	}
}

// TestGoogleGrouping covers the grouping examples of Google's "How Google
// interprets the robots.txt specification" (developers.google.com/search/
// docs/crawling-indexing/robots/robots_txt), sections "Grouping of lines and
// rules" and "Order of precedence for user agents".
func TestGoogleGrouping(t *testing.T) {
	tests := []struct {
		name, robotstxt string
		checks          []check
	}{
		{
			name: "groups of one and of several agents",
			robotstxt: "user-agent: a\ndisallow: /c\n\nuser-agent: b\ndisallow: /d\n\n" +
				"user-agent: e\nuser-agent: f\ndisallow: /g\n\nuser-agent: h\n",
			checks: []check{
				{"a", "/c", false}, {"a", "/d", true},
				{"b", "/d", false}, {"b", "/c", true},
				{"e", "/g", false}, {"f", "/g", false}, {"e", "/c", true},
				{"h", "/c", true}, {"h", "/g", true},
			},
		},
		{
			name: "groups for the same agent are merged",
			robotstxt: "user-agent: googlebot-news\ndisallow: /fish\n\nuser-agent: *\ndisallow: /carrots\n\n" +
				"user-agent: googlebot-news\ndisallow: /shrimp\n",
			checks: []check{
				{"googlebot-news", "/fish", false},
				{"googlebot-news", "/shrimp", false},
				{"googlebot-news", "/carrots", true}, // the "*" group does not apply
				{"otherbot", "/carrots", false},
				{"otherbot", "/fish", true},
			},
		},
		{
			name: "longest match across merged groups",
			robotstxt: "user-agent: a\nallow: /p\n\nuser-agent: b\ndisallow: /\n\n" +
				"user-agent: a\ndisallow: /\nallow: /x/y\n\nuser-agent: a\ndisallow: /x\n",
			checks: []check{
				{"a", "/page", true}, {"a", "/other", false},
				{"a", "/x/z", false}, {"a", "/x/y", true},
			},
		},
		{
			name: "a tie across merged groups goes to allow, in either order",
			robotstxt: "user-agent: a\ndisallow: /t\n\nuser-agent: a\nallow: /t\n\n" +
				"user-agent: b\nallow: /t\n\nuser-agent: b\ndisallow: /t\n",
			checks: []check{{"a", "/t", true}, {"b", "/t", true}},
		},
		{
			name: "a sitemap line does not end the user-agent lines",
			robotstxt: "user-agent: a\nsitemap: https://example.com/sitemap.xml\n\n" +
				"user-agent: b\ndisallow: /\n",
			checks: []check{{"a", "/x", false}, {"b", "/x", false}, {"c", "/x", true}},
		},
		{
			name: "the specific group wins over the star group, wherever they stand",
			robotstxt: "user-agent: googlebot-news\ndisallow: /news\n\nuser-agent: *\ndisallow: /all\n\n" +
				"user-agent: googlebot\ndisallow: /web\n",
			checks: []check{
				{"googlebot-news", "/news", false}, {"googlebot-news", "/web", true}, {"googlebot-news", "/all", true},
				{"googlebot", "/web", false}, {"googlebot", "/news", true},
				{"otherbot", "/all", false}, {"otherbot", "/web", true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runChecks(t, tt.robotstxt, tt.checks) })
	}
}

func TestParseSyntax(t *testing.T) {
	tests := []struct {
		name, source, robotstxt string
		checks                  []check
	}{
		{
			name: "rule before the first user-agent is ignored", source: "temoto deviation (go-ecosystem.md §1); Google's parser",
			robotstxt: "Disallow: /early\nUser-agent: *\nDisallow: /late\n",
			checks:    []check{{"x", "/early", true}, {"x", "/late", false}},
		},
		{
			name: "byte order mark", source: "RFC 9309 §2.2 (UTF-8 file); Google skips the BOM",
			robotstxt: "\xef\xbb\xbfUser-agent: *\nDisallow: /a\n",
			checks:    []check{{"x", "/a", false}, {"x", "/b", true}},
		},
		{
			name: "comments", source: "RFC 9309 §2.2.3",
			robotstxt: "# header\nUser-agent: * # everyone\nDisallow: /a # not /b\n#Disallow: /c\n",
			checks:    []check{{"x", "/a", false}, {"x", "/b", true}, {"x", "/c", true}},
		},
		{
			name: "field names in any case, whitespace anywhere", source: "RFC 9309 §2.1 (ABNF is case-insensitive, *WS)",
			robotstxt: "  USER-AGENT\t:  *  \n\tdisALLOW :\t/a\t\n ALLOW: /a/b \n",
			checks:    []check{{"x", "/a", false}, {"x", "/a/b", true}},
		},
		{
			name: "CR, LF and CRLF line ends", source: "RFC 9309 §2.1 (NL)",
			robotstxt: "User-agent: *\rDisallow: /cr\r\nDisallow: /crlf\nDisallow: /lf",
			checks:    []check{{"x", "/cr", false}, {"x", "/crlf", false}, {"x", "/lf", false}, {"x", "/ok", true}},
		},
		{
			name: "missing colon", source: "Google's parser (robots.cc GetKeyAndValueFrom)",
			robotstxt: "User-agent *\nDisallow /a\nDisallow /b /c\n",
			checks:    []check{{"x", "/a", false}, {"x", "/b", true}, {"x", "/b%20/c", true}},
		},
		{
			name: "misspelt field names", source: "Google's parser (robots.cc)",
			robotstxt: "useragent: *\ndissallow: /a\ndisalow: /b\n",
			checks:    []check{{"x", "/a", false}, {"x", "/b", false}},
		},
		{
			name: "garbage lines are skipped", source: "RFC 9309 §2.2 (parse what can be parsed); Google",
			robotstxt: "<html>\nUser-agent: *\n{\"json\": 1}\n:\nDisallow: /a\nfoo: bar\n\x00\xff\n",
			checks:    []check{{"x", "/a", false}, {"x", "/b", true}},
		},
		{
			name: "star followed by text is no star", source: "Google's parser",
			robotstxt: "User-agent: *bot\nDisallow: /\n",
			checks:    []check{{"x", "/a", true}, {"bot", "/a", true}},
		},
		{
			name: "a token with a version in robots.txt", source: "Google's parser (ExtractUserAgent)",
			robotstxt: "User-agent: freshcrawl/0.1\nDisallow: /\n",
			checks:    []check{{"freshcrawl", "/a", false}},
		},
		{
			name: "user-agent after rules opens a new group", source: "RFC 9309 §2.1",
			robotstxt: "User-agent: a\nDisallow: /a\nUser-agent: b\nDisallow: /b\n",
			checks:    []check{{"a", "/a", false}, {"a", "/b", true}, {"b", "/a", true}, {"b", "/b", false}},
		},
		{
			name: "crawl-delay ends the user-agent lines", source: "freshcrawl: Crawl-delay is a group member",
			robotstxt: "User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow: /\n",
			checks:    []check{{"a", "/x", true}, {"b", "/x", false}},
		},
		{
			name: "same agent named twice in one group", source: "RFC 9309 §2.2.1",
			robotstxt: "User-agent: a\nUser-agent: A\nDisallow: /x\n",
			checks:    []check{{"a", "/x", false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Logf("source: %s", tt.source)
			runChecks(t, tt.robotstxt, tt.checks)
		})
	}
}

// TestParseSizeCap checks the 500 KiB limit of RFC 9309 §2.5 (temoto read an
// 839 KB file whole, go-ecosystem.md §1).
func TestParseSizeCap(t *testing.T) {
	head := "User-agent: *\nDisallow: /before\n"
	pad := func(n int) string { // comment and blank lines totalling n bytes
		var b strings.Builder
		for rem := n; rem > 0; rem = n - b.Len() {
			if k := min(rem, 100); k == 1 {
				b.WriteString("\n")
			} else {
				b.WriteString("#" + strings.Repeat("x", k-2) + "\n")
			}
		}
		return b.String()
	}
	tests := []struct {
		name       string
		body       string
		path       string
		wantAllow  bool
		wantLength int // of the body, to check the fixture
	}{
		{
			name: "rule wholly inside the cap is obeyed",
			body: head + pad(MaxSize-len(head)-len("Disallow: /last\n")) + "Disallow: /last\n",
			path: "/last", wantAllow: false, wantLength: MaxSize,
		},
		{
			name: "rule after the cap is ignored",
			body: head + pad(MaxSize-len(head)) + "Disallow: /after\n",
			path: "/after", wantAllow: true, wantLength: MaxSize + len("Disallow: /after\n"),
		},
		{
			name: "rule cut by the cap is dropped, not truncated",
			// Cut after "Allow: /private/": kept, the truncated Allow would
			// outweigh "Disallow: /private" and open all of /private/.
			body: head + "Disallow: /private\n" + pad(MaxSize-len(head)-len("Disallow: /private\n")-len("Allow: /private/")) + "Allow: /private/x\n",
			path: "/private/y", wantAllow: false, wantLength: MaxSize - len("Allow: /private/") + len("Allow: /private/x\n"),
		},
		{
			name: "rules before the cap survive",
			body: head + pad(MaxSize),
			path: "/before", wantAllow: false, wantLength: len(head) + MaxSize,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.body) != tt.wantLength {
				t.Fatalf("fixture is %d bytes, want %d", len(tt.body), tt.wantLength)
			}
			if got := Parse([]byte(tt.body)).Group("x").Allowed(tt.path); got != tt.wantAllow {
				t.Errorf("Allowed(%q) = %v, want %v", tt.path, got, tt.wantAllow)
			}
		})
	}
}

func TestCrawlDelay(t *testing.T) {
	tests := []struct {
		name, robotstxt, agent string
		want                   time.Duration
		wantOK                 bool
	}{
		{"integer", "User-agent: *\nCrawl-delay: 10\n", "x", 10 * time.Second, true},
		{"decimal", "User-agent: *\nCrawl-delay: 0.5\n", "x", 500 * time.Millisecond, true},
		{"leading dot", "User-agent: *\nCrawl-delay: .25\n", "x", 250 * time.Millisecond, true},
		{"trailing dot", "User-agent: *\nCrawl-delay: 3.\n", "x", 3 * time.Second, true},
		{"zero", "User-agent: *\ncrawl-delay: 0\n", "x", 0, true},
		{"negative ignored", "User-agent: *\nCrawl-delay: -5\n", "x", 0, false},
		{"plus sign ignored", "User-agent: *\nCrawl-delay: +5\n", "x", 0, false},
		{"exponent ignored", "User-agent: *\nCrawl-delay: 1e3\n", "x", 0, false},
		{"words ignored", "User-agent: *\nCrawl-delay: 10 seconds\n", "x", 0, false},
		{"garbage ignored", "User-agent: *\nCrawl-delay: soon\n", "x", 0, false},
		{"inf ignored", "User-agent: *\nCrawl-delay: inf\n", "x", 0, false},
		{"two dots ignored", "User-agent: *\nCrawl-delay: 1.2.3\n", "x", 0, false},
		{"empty ignored", "User-agent: *\nCrawl-delay:\n", "x", 0, false},
		{"huge clamps", "User-agent: *\nCrawl-delay: 1" + strings.Repeat("0", 400) + "\n", "x", time.Duration(1<<63 - 1), true},
		{"garbage does not hide a good value", "User-agent: *\nCrawl-delay: x\nCrawl-delay: 2\n", "x", 2 * time.Second, true},
		{"longest of several", "User-agent: *\nCrawl-delay: 2\nCrawl-delay: 7\nCrawl-delay: 3\n", "x", 7 * time.Second, true},
		{"longest of merged groups", "User-agent: a\nCrawl-delay: 4\n\nUser-agent: b\nDisallow:\n\nUser-agent: a\nCrawl-delay: 9\n", "a", 9 * time.Second, true},
		{"per group", "User-agent: a\nCrawl-delay: 4\n\nUser-agent: *\nCrawl-delay: 1\n", "a", 4 * time.Second, true},
		{"star group's delay does not leak", "User-agent: a\nDisallow: /x\n\nUser-agent: *\nCrawl-delay: 1\n", "a", 0, false},
		{"before any user-agent ignored", "Crawl-delay: 5\nUser-agent: *\nDisallow: /\n", "x", 0, false},
		{"none", "User-agent: *\nDisallow: /\n", "x", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Parse([]byte(tt.robotstxt)).Group(tt.agent).CrawlDelay()
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("CrawlDelay() = %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// TestGroupDelay: the gap is the crawler's floor, or a longer Crawl-delay
// up to the ceiling; a group without one, or no group, gives the floor.
func TestGroupDelay(t *testing.T) {
	g := func(s string) *Group { return Parse([]byte(s)).Group("x") }
	tests := []struct {
		g    *Group
		want time.Duration
	}{
		{g("User-agent: *\nCrawl-delay: 5\n"), 5 * time.Second},
		{g("User-agent: *\nCrawl-delay: 0.1\n"), time.Second},
		{g("User-agent: *\nCrawl-delay: 600\n"), time.Minute},
		{g("User-agent: *\nDisallow: /\n"), time.Second},
		{nil, time.Second},
	}
	for i, tt := range tests {
		if got := tt.g.Delay(time.Second, time.Minute); got != tt.want {
			t.Errorf("case %d: Delay = %v, want %v", i, got, tt.want)
		}
	}
}

// TestSitemaps: RFC 9309 §2.2.4 allows other records such as Sitemap; they
// belong to the file, not to a group (Google: "sitemap ... isn't tied to any
// specific user agent").
func TestSitemaps(t *testing.T) {
	body := `Sitemap: https://example.com/before-any-group.xml
User-agent: a
Sitemap: http://example.com/in-group.xml
Disallow: /x
sitemap:https://cdn.example.net/s.xml.gz # comment
Sitemap: /relative.xml
Sitemap: ftp://example.com/s.xml
Sitemap: https://example.com/before-any-group.xml
SITEMAP: HTTPS://EXAMPLE.COM/UPPER.XML
Site-map: https://example.com/typo.xml
Sitemap:
`
	want := []string{
		"https://example.com/before-any-group.xml",
		"http://example.com/in-group.xml",
		"https://cdn.example.net/s.xml.gz",
		"HTTPS://EXAMPLE.COM/UPPER.XML",
		"https://example.com/typo.xml",
	}
	f := Parse([]byte(body))
	if got := f.Sitemaps(); !slices.Equal(got, want) {
		t.Errorf("Sitemaps() = %q, want %q", got, want)
	}
	// The sitemap line inside the group did not end it.
	if f.Group("a").Allowed("/x") {
		t.Error("Disallow after a Sitemap line inside a group was lost")
	}
	// Sitemaps returns a copy.
	f.Sitemaps()[0] = "changed"
	if f.Sitemaps()[0] != want[0] {
		t.Error("Sitemaps() exposes the File's slice")
	}
}

func TestProductToken(t *testing.T) {
	tests := []struct{ ua, want string }{
		{"freshcrawl/0.1 (+https://example.com/bot)", "freshcrawl"},
		{"FreshCrawl", "freshcrawl"},
		{"  freshcrawl 0.1", "freshcrawl"},
		{"googlebot-news", "googlebot-news"},
		{"my_bot2/3", "my_bot2"},
		{"Mozilla/5.0 (compatible; freshcrawl/0.1)", "mozilla"},
		{"", ""},
		{"/1.0", ""},
	}
	for _, tt := range tests {
		t.Run(tt.ua, func(t *testing.T) {
			if got := ProductToken(tt.ua); got != tt.want {
				t.Errorf("ProductToken(%q) = %q, want %q", tt.ua, got, tt.want)
			}
		})
	}
}

func TestNilAndEmpty(t *testing.T) {
	var f *File
	if !f.Group("x").Allowed("/a") {
		t.Error("nil File disallows")
	}
	if f.Sitemaps() != nil {
		t.Error("nil File has sitemaps")
	}
	var g *Group
	if !g.Allowed("/a") {
		t.Error("nil Group disallows")
	}
	if _, ok := g.CrawlDelay(); ok {
		t.Error("nil Group has a crawl delay")
	}
	for _, body := range []string{"", "\xef\xbb\xbf", "\n\n", "# only a comment"} {
		if g := Parse([]byte(body)).Group("x"); g == nil || !g.Allowed("/") {
			t.Errorf("Parse(%q): want a non-nil group that allows all", body)
		}
	}
}
