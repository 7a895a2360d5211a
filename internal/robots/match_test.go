package robots

import (
	"strings"
	"testing"
)

// TestGooglePathMatching is the table "URL matching based on path values"
// of Google's "How Google interprets the robots.txt specification"
// (developers.google.com/search/docs/crawling-indexing/robots/robots_txt):
// each pattern with the paths it lists as matching and not matching.
func TestGooglePathMatching(t *testing.T) {
	tests := []struct {
		pattern  string
		match    []string
		notMatch []string
	}{
		{"/", []string{"/", "/a", "/a/b?c=d"}, nil},
		{"/*", []string{"/", "/a", "/a/b?c=d"}, nil},
		{"/$", []string{"/"}, []string{"/a", "/?lang=en"}},
		{"/fish",
			[]string{"/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.php?id=anything"},
			[]string{"/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"}},
		{"/fish*",
			[]string{"/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.php?id=anything"},
			[]string{"/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"}},
		{"/fish/",
			[]string{"/fish/", "/fish/?id=anything", "/fish/salmon.htm"},
			[]string{"/fish", "/fish.html", "/animals/fish/", "/Fish/Salmon.asp"}},
		{"/*.php",
			[]string{"/index.php", "/filename.php", "/folder/filename.php", "/folder/filename.php?parameters", "/folder/any.php.file.html", "/filename.php/"},
			[]string{"/", "/windows.PHP"}},
		{"/*.php$",
			[]string{"/filename.php", "/folder/filename.php"},
			[]string{"/filename.php?parameters", "/filename.php/", "/filename.php5", "/windows.PHP"}},
		{"/fish*.php",
			[]string{"/fish.php", "/fishheads/catfish.php?parameters"},
			[]string{"/Fish.PHP"}},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			g := Parse([]byte("User-agent: *\nDisallow: " + tt.pattern + "\n")).Group("x")
			for _, p := range tt.match {
				if g.Allowed(p) {
					t.Errorf("%q should match %q", tt.pattern, p)
				}
			}
			for _, p := range tt.notMatch {
				if !g.Allowed(p) {
					t.Errorf("%q should not match %q", tt.pattern, p)
				}
			}
		})
	}
}

// TestPrecedence: the longest rule wins, Allow wins a tie. Sources: the
// table "Order of precedence for rules" of Google's robots.txt page, RFC 9309
// §2.2.2, and the temoto deviation of go-ecosystem.md §1 (a tie went to
// Disallow there).
func TestPrecedence(t *testing.T) {
	tests := []struct {
		name, source, rules, path string
		want                      bool
	}{
		{"longer allow", "Google", "allow: /p\ndisallow: /", "/page", true},
		{"equal rules: allow", "Google", "allow: /folder\ndisallow: /folder", "/folder/page", true},
		{"longer wildcard disallow", "Google", "allow: /page\ndisallow: /*.htm", "/page.htm", false},
		{"equal length with wildcard: allow", "Google", "allow: /page\ndisallow: /*.ph", "/page.php5", true},
		{"anchored root allow", "Google", "allow: /$\ndisallow: /", "/", true},
		{"anchored root allow does not reach down", "Google", "allow: /$\ndisallow: /", "/page.htm", false},
		{"tie: allow, whatever the order", "RFC 9309 §2.2.2; temoto deviation", "disallow: /x\nallow: /x", "/x", true},
		{"tie: allow, allow first", "RFC 9309 §2.2.2; temoto deviation", "allow: /x\ndisallow: /x", "/x", true},
		{"tie of equivalent spellings: allow", "RFC 9309 §2.2.2", "disallow: /~a\nallow: /%7Ea", "/~a", true},
		{"tie of equivalent spellings: allow, reversed", "RFC 9309 §2.2.2", "disallow: /%7ea\nallow: /~a", "/%7Ea", true},
		{"longer disallow after allow", "RFC 9309 §2.2.2", "allow: /a\ndisallow: /a/b", "/a/b/c", false},
		{"length counts octets, not matched text", "RFC 9309 §2.2.2", "allow: /a*\ndisallow: /ab", "/abc", true},
		{"order in file does not matter", "RFC 9309 §2.2.2", "disallow: /a/b\nallow: /a", "/a/b/c", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Logf("source: %s", tt.source)
			g := Parse([]byte("user-agent: *\n" + tt.rules + "\n")).Group("x")
			if got := g.Allowed(tt.path); got != tt.want {
				t.Errorf("rules %q, path %q: allowed %v, want %v", tt.rules, tt.path, got, tt.want)
			}
		})
	}
}

// TestPercentEncoding checks pattern against path under RFC 9309 §2.2.2
// (figure 4, the encoding table) and §2.2.3 (figure 6, '*' and '$' written
// as escapes), plus the temoto deviation of go-ecosystem.md §1.
func TestPercentEncoding(t *testing.T) {
	tests := []struct {
		name, source, pattern, path string
		match                       bool
	}{
		{"query as is", "RFC 9309 fig. 4 row 1", "/foo/bar?baz=quz", "/foo/bar?baz=quz", true},
		{"UTF-8 pattern, encoded path", "RFC 9309 fig. 4 row 3", "/foo/bar/\u30c4", "/foo/bar/%E3%83%84", true},
		{"encoded pattern, encoded path", "RFC 9309 fig. 4 row 4", "/foo/bar/%E3%83%84", "/foo/bar/%E3%83%84", true},
		{"encoded pattern, UTF-8 path", "RFC 9309 §2.2.2", "/foo/bar/%E3%83%84", "/foo/bar/\u30c4", true},
		{"encoded unreserved pattern", "RFC 9309 fig. 4 row 5", "/foo/bar/%62%61%7A", "/foo/bar/baz", true},
		{"encoded unreserved path", "RFC 9309 §2.2.2", "/foo/bar/baz", "/foo/bar/%62%61%7a", true},
		{"tilde, encoded pattern", "temoto deviation", "/%7Efoo", "/~foo", true},
		{"tilde, encoded path", "temoto deviation", "/~foo", "/%7Efoo", true},
		{"tilde, lower-case hex", "RFC 3986 §2.1", "/%7efoo", "/%7Efoo", true},
		{"escaped slash is not a slash", "RFC 9309 §2.2.2 (reserved stays encoded)", "/a%2fb", "/a/b", false},
		{"slash is not an escaped slash", "RFC 9309 §2.2.2", "/a/b", "/a%2Fb", false},
		{"escaped slash, either case", "RFC 3986 §2.1", "/a%2fb", "/a%2Fb", true},
		{"escaped star matches a literal star", "RFC 9309 fig. 6", "/path/file-with-a-%2A.html", "/path/file-with-a-*.html", true},
		{"escaped star matches itself", "RFC 9309 fig. 6", "/path/file-with-a-%2A.html", "/path/file-with-a-%2a.html", true},
		{"escaped star is no wildcard", "RFC 9309 fig. 6", "/path/file-with-a-%2A.html", "/path/file-with-a-x.html", false},
		{"escaped dollar matches a literal dollar", "RFC 9309 fig. 6", "/path/foo-%24", "/path/foo-$", true},
		{"escaped dollar is no anchor", "RFC 9309 fig. 6", "/path/foo-%24", "/path/foo-", false},
		{"escaped dollar, more after", "RFC 9309 fig. 6", "/path/foo-%24", "/path/foo-$/x", true},
		{"dollar inside a pattern is literal", "Google's matcher", "/a$b", "/a$b", true},
		{"dollar inside a pattern is literal, escaped path", "Google's matcher", "/a$b", "/a%24b", true},
		{"dollar inside a pattern anchors nothing", "Google's matcher", "/a$b", "/a", false},
		{"space in pattern", "RFC 3986: a space is sent as %20", "/a b", "/a%20b", true},
		{"lone percent", "freshcrawl: a stray '%' reads as %25", "/100%", "/100%25", true},
		{"lone percent, both", "freshcrawl", "/100%", "/100%", true},
		{"short escape at end", "freshcrawl", "/a%4", "/a%254", true},
		{"double encoding is not decoded twice", "RFC 3986 §2.4", "/%2541", "/A", false},
		{"double encoding matches itself", "RFC 3986 §2.4", "/%2541", "/%2541", true},
		{"case of letters still matters", "RFC 9309 §2.2.2", "/%41", "/a", false},
		{"braces are escaped alike", "RFC 3986 (not allowed in a URI)", "/{x}", "/%7Bx%7D", true},
		{"wildcard spans escapes", "RFC 9309 §2.2.3", "/*%E3%83%84", "/dir/\u30c4", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Logf("source: %s", tt.source)
			g := Parse([]byte("User-agent: *\nDisallow: " + tt.pattern + "\n")).Group("x")
			if got := !g.Allowed(tt.path); got != tt.match {
				t.Errorf("pattern %q, path %q: match %v, want %v", tt.pattern, tt.path, got, tt.match)
			}
		})
	}
}

func TestCanonPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "/"},
		{"?q=1", "/?q=1"},
		{"a", "/a"},
		{"/plain/path?x=1&y=2", "/plain/path?x=1&y=2"},
		{"/%7e%7E%41%2f%2F", "/~~A%2F%2F"},
		{"/%", "/%25"},
		{"/%zz", "/%25zz"},
		{"/*$", "/%2A%24"},
		{"/\u30c4", "/%E3%83%84"},
		{"/a b\t", "/a%20b%09"},
		{"/%e3%83%84", "/%E3%83%84"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := canonPath(tt.in)
			if got != tt.want {
				t.Errorf("canonPath(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := canonPath(got); again != got {
				t.Errorf("canonPath is not idempotent: %q → %q", got, again)
			}
		})
	}
}

func TestCompileRule(t *testing.T) {
	tests := []struct {
		pattern, text string
		segs          []string
		anchored      bool
	}{
		{"/a", "/a", []string{"/a"}, false},
		{"/a$", "/a$", []string{"/a"}, true},
		{"/a*b", "/a*b", []string{"/a", "b"}, false},
		{"*.gif$", "*.gif$", []string{"", ".gif"}, true},
		{"/a**", "/a**", []string{"/a", "", ""}, false},
		{"/%7E$$", "/~%24$", []string{"/~%24"}, true},
		{"$", "$", []string{""}, true},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			r, ok := compileRule(tt.pattern, false)
			if !ok {
				t.Fatal("not compiled")
			}
			if r.text != tt.text || r.anchored != tt.anchored || len(r.segs) != len(tt.segs) {
				t.Fatalf("got text %q anchored %v segs %q; want %q %v %q", r.text, r.anchored, r.segs, tt.text, tt.anchored, tt.segs)
			}
			for i := range r.segs {
				if r.segs[i] != tt.segs[i] {
					t.Errorf("segs = %q, want %q", r.segs, tt.segs)
				}
			}
		})
	}
	if _, ok := compileRule("", true); ok {
		t.Error("an empty pattern compiled")
	}
}

// TestMatchAdversarial: a pattern of many wildcards against a long path
// that almost matches must not backtrack. Greedy matching makes one pass per
// segment; this would take hours with naive backtracking.
func TestMatchAdversarial(t *testing.T) {
	pattern := "/" + strings.Repeat("a*", 2000) + "b"
	path := "/" + strings.Repeat("a", 50000)
	g := Parse([]byte("User-agent: *\nDisallow: " + pattern + "\n")).Group("x")
	if !g.Allowed(path) {
		t.Error("matched a path without a 'b'")
	}
	if g.Allowed(path + "b") {
		t.Error("did not match a path ending in 'b'")
	}
}

// TestMustEscape checks the bit sets of mustEscape against the set written
// out by hand.
func TestMustEscape(t *testing.T) {
	for c := range 256 {
		want := c <= ' ' || c >= 0x7f || strings.ContainsRune("\"<>\\^`{|}*$", rune(c))
		if got := mustEscape(byte(c)); got != want {
			t.Errorf("mustEscape(%#x) = %v, want %v", c, got, want)
		}
		if got := needsCanon(string([]byte{byte(c)})); got != (want || c == '%') {
			t.Errorf("needsCanon(%#x) = %v, want %v", c, got, want || c == '%')
		}
	}
}
