package urlx

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAgainstWHATWG compares the parser with the complete WHATWG parser
// (see checkOracle) on 20,000 URLs and references built at random from
// the pieces parsers get wrong: schemes with and without slashes,
// backslashes, userinfo, hosts of every kind, ports, dot segments in all
// their spellings, escapes, queries and fragments. The generator is
// seeded, so the test is deterministic; FuzzCanonical explores further.
func TestAgainstWHATWG(t *testing.T) {
	pieces := [][]string{
		{"", "", "http:", "https:", "HTTP:", "hTtPs:", "ftp:", "javascript:", "g:", "a1+.-:"},
		{"", "", "/", "//", "///", `\`, `\\`, `/\`, "////"},
		{"", "", "u@", "u:p@", "@", "a@b@", "u:@", ":p@", "%40@"},
		{"", "a", "a.example", "A.Example.", "www.h17-com.test", "1.2.3.4", "0x7f.1", "127.1", "4294967295", "[::1]", "[2001:DB8::1]",
			"bücher.example", "xn--bcher-kva.example", "exa%6Dple.com", "a..b", ".a", "a_b.c", "1.2.3.04", "0.0.0.0x", "a.1", "a.0x", "%", "a b", "a{b}"},
		{"", "", ":", ":80", ":443", ":8080", ":0", ":65535", ":65536", ":00080", ":x"},
		{"", "/", "/a", "/a/b", "/a/./b", "/a/../b", "/..", "/.", "/%2e/", "/%2E%2e", "/.%2e/x", "a", "./a", "../a", "../../../a", ".", "..",
			"/a//b", `/a\b`, "/%7e%7E", "/%2f", "/%zz", "/%", "/é", "/a b", "/<>", "/a;p", "/a:b", "g:h"},
		{"", "", "?", "?a=1&b=2", "?q=a b", "?%7e", "?'", "?a/./b", `?\`, "?é", "?#"},
		{"", "", "#", "#f", "#a/../b", "#?x"},
	}
	bases := []string{"http://a/b/c/d;p?q", "https://h17-com.test:8443/x/", "http://a.example/"}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for _, p := range pieces {
			b.WriteString(p[r.IntN(len(p))])
		}
		in := b.String()
		checkOracle(t, "", in)
		checkOracle(t, bases[r.IntN(len(bases))], in)
	}
}

// TestDottedQuad checks the IPv4 shortcut of parseAuthority: the hosts it
// takes must be those the WHATWG parser returns unchanged, and the URLs
// built on them and on their near misses must match the oracle.
func TestDottedQuad(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"127.0.0.1", true}, {"0.0.0.0", true}, {"255.255.255.255", true}, {"10.20.30.40", true}, {"1.2.3.4", true},
		{"256.1.1.1", false}, {"1.2.3.256", false}, {"1.2.3.04", false}, {"01.2.3.4", false}, {"0.00.0.0", false},
		{"1.2.3", false}, {"1.2.3.4.5", false}, {"1.2.3.4.", false}, {"1..3.4", false}, {".1.2.3", false},
		{"1.2.3.4a", false}, {"1000.1.1.1", false}, {"0x7f.0.0.1", false}, {"1.2.3.-4", false}, {"", false},
	}
	for _, tt := range tests {
		if got := dottedQuad(tt.host); got != tt.want {
			t.Errorf("dottedQuad(%q) = %v, want %v", tt.host, got, tt.want)
		}
		for _, port := range []string{"", ":80", ":8080", ":x"} {
			checkOracle(t, "", "http://"+tt.host+port+"/a?b")
			checkOracle(t, "http://a.example/", "//"+tt.host+port+"/a")
		}
	}
}
