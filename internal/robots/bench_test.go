package robots

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchRobots builds a robots.txt whose "*" group has n rules shaped like
// those of large real sites: directory prefixes, query-parameter wildcards,
// file-type anchors, and Allow exceptions. It also returns paths to ask
// about, about half of which some rule matches.
func benchRobots(n int) (body string, paths []string) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"admin", "search", "cart", "account", "tag", "feed", "print", "api", "static", "user",
		"wiki", "images", "archive", "help", "login", "share", "comments", "category", "author", "page"}
	word := func() string { return words[r.IntN(len(words))] }
	var b strings.Builder
	b.WriteString("# benchmark fixture\nUser-agent: otherbot\nDisallow: /\n\nUser-agent: *\n")
	for i := range n {
		var p string
		switch i % 6 {
		case 0, 1:
			p = fmt.Sprintf("/%s%d/", word(), i)
		case 2:
			p = fmt.Sprintf("/*?%s%d=", word(), i)
		case 3:
			p = fmt.Sprintf("/%s/*.%s%d$", word(), word(), i)
		case 4:
			p = fmt.Sprintf("/%s%d/*/%s", word(), i, word())
		case 5:
			p = fmt.Sprintf("/%s%d/%%7E%s", word(), i-5, word())
		}
		verb := "Disallow"
		if i%5 == 4 {
			verb = "Allow"
		}
		fmt.Fprintf(&b, "%s: %s\n", verb, p)
	}
	b.WriteString("Sitemap: https://example.com/sitemap.xml\n")
	for range 1000 {
		i := r.IntN(n)
		switch r.IntN(4) {
		case 0:
			paths = append(paths, fmt.Sprintf("/%s%d/x/%s?id=%d", word(), i, word(), r.IntN(1000)))
		case 1:
			paths = append(paths, fmt.Sprintf("/%s/%s-%d.html?%s%d=1", word(), word(), r.IntN(1000), word(), i))
		case 2:
			paths = append(paths, fmt.Sprintf("/%s/%s/%s%d", word(), word(), word(), r.IntN(1000)))
		case 3:
			paths = append(paths, fmt.Sprintf("/%s%d/~%s/caf%%C3%%A9", word(), i, word()))
		}
	}
	return b.String(), paths
}

// BenchmarkAllowed measures one decision for a crawler bound by a "*"
// group of 10, 100 or 1000 rules.
func BenchmarkAllowed(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		body, paths := benchRobots(n)
		g := Parse([]byte(body)).Group("freshcrawl/0.1")
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				g.Allowed(paths[i%len(paths)])
				i++
			}
		})
	}
}

// BenchmarkAllowedAdversarial: 500 wildcards against a 10 KB path that
// almost matches.
func BenchmarkAllowedAdversarial(b *testing.B) {
	g := Parse([]byte("User-agent: *\nDisallow: /" + strings.Repeat("a*", 500) + "b\n")).Group("x")
	path := "/" + strings.Repeat("a", 10000)
	b.ReportAllocs()
	for b.Loop() {
		g.Allowed(path)
	}
}

// BenchmarkParse parses a file of 1000 rules (about 30 KB).
func BenchmarkParse(b *testing.B) {
	body, _ := benchRobots(1000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		Parse([]byte(body))
	}
}
