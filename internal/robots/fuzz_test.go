package robots

import (
	"strings"
	"testing"
)

// FuzzParse parses arbitrary bytes and matches an arbitrary path for an
// arbitrary agent. It checks that nothing panics, /robots.txt is always
// allowed, decisions are deterministic and do not change when the path is
// given in canonical form, and, for groups small enough to check quickly,
// that the decision agrees with the brute-force reference.
func FuzzParse(f *testing.F) {
	seeds := []struct{ body, agent, path string }{
		{rfcSimple, "foobot", "/example/page.html"},
		{rfcSimple, "otherbot", "/a.gif"},
		{"User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n", "foobot", "/example/page/disallowed.gif"},
		{"user-agent: *\nallow: /$\ndisallow: /\n", "x", "/"},
		{"user-agent: *\ndisallow: /*.php$\n", "x", "/a.php?b"},
		{"\xef\xbb\xbfUser-agent: *\r\nDisallow: /%7Efoo\r\n", "x", "/~foo"},
		{"Disallow: /\nUser-agent: *\nCrawl-delay: 2.5\nSitemap: https://example.com/s.xml\n", "x", "/a"},
		{"User-agent: a\nUser-agent: b\nDisallow: /x*y$\n\nUser-agent: a\nAllow: /x%2A\n", "a", "/x*y"},
		{"User-agent *\nDisallow /%\nAllow: $\nDisallow: *\n", "", "%"},
		{"user-agent: *\ndisallow: /" + strings.Repeat("a*", 50) + "b\n", "x", "/" + strings.Repeat("a", 200)},
	}
	for _, s := range seeds {
		f.Add([]byte(s.body), s.agent, s.path)
	}
	f.Fuzz(func(t *testing.T, body []byte, agent, path string) {
		file := Parse(body)
		g := file.Group(agent)
		if g == nil {
			t.Fatal("Group returned nil")
		}
		if !g.Allowed("/robots.txt") {
			t.Fatal("/robots.txt disallowed")
		}
		allowed := g.Allowed(path)
		if g.Allowed(path) != allowed {
			t.Fatal("Allowed is not deterministic")
		}
		if Parse(body).Group(agent).Allowed(path) != allowed {
			t.Fatal("Parse is not deterministic")
		}
		c := canonPath(path)
		if canonPath(c) != c {
			t.Fatalf("canonPath not idempotent: %q → %q → %q", path, c, canonPath(c))
		}
		if g.Allowed(c) != allowed {
			t.Fatalf("path %q and its canonical form %q decided differently", path, c)
		}
		if d, ok := g.CrawlDelay(); d < 0 || !ok && d != 0 {
			t.Fatalf("CrawlDelay() = %v, %v", d, ok)
		}
		for _, s := range file.Sitemaps() {
			if !strings.HasPrefix(strings.ToLower(s), "http") {
				t.Fatalf("sitemap %q is not an http(s) URL", s)
			}
		}
		checkAgainstReference(t, g, path)
	})
}

// checkAgainstReference compares g's decision for path with the reference,
// built from the canonical text of g's rules. That text is already
// canonical, so this checks matching and precedence, not canonicalisation
// (which TestAgainstReference covers from raw patterns).
func checkAgainstReference(t *testing.T, g *Group, path string) {
	n := 0
	for _, set := range g.sets {
		n += len(set)
	}
	if n > 64 || len(path) > 1024 {
		return // the reference compiles a regexp per rule: too slow for fuzzing
	}
	var ref []refRule
	for _, set := range g.sets {
		for _, r := range set {
			rr, ok := refCompile(r.text, r.allow)
			if !ok || rr.length != len(r.text) {
				t.Fatalf("canonical text %q is not a fixed point of the reference", r.text)
			}
			ref = append(ref, rr)
		}
	}
	wantAllow, wantLen := refDecide(ref, path)
	gotAllow, gotLen := decision(g, path)
	if gotAllow != wantAllow || gotLen != wantLen {
		t.Fatalf("path %q: allowed %v by a rule of length %d; reference: %v, %d", path, gotAllow, gotLen, wantAllow, wantLen)
	}
}
