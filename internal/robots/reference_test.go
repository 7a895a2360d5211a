package robots

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// This file holds a brute-force reference for the matcher, written apart
// from it: patterns become regular expressions, the canonical form is built
// with a regexp and fmt, and the decision is a full scan for the longest
// match. Tests and fuzzing check that the package agrees with it.

var refEscape = regexp.MustCompile(`%[0-9A-Fa-f]{2}`)

const refUnreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"

// refCanon is the canonical form of a literal run (RFC 9309 §2.2.2 as
// documented on rule): unreserved escapes decoded, other escapes in upper
// case, octets not allowed bare escaped.
func refCanon(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range refEscape.FindAllStringIndex(s, -1) {
		refBare(&b, s[last:m[0]])
		v, _ := strconv.ParseUint(s[m[0]+1:m[1]], 16, 8)
		if v < 0x80 && strings.IndexByte(refUnreserved, byte(v)) >= 0 {
			b.WriteByte(byte(v))
		} else {
			fmt.Fprintf(&b, "%%%02X", v)
		}
		last = m[1]
	}
	refBare(&b, s[last:])
	return b.String()
}

func refBare(b *strings.Builder, s string) {
	for _, c := range []byte(s) {
		if c > ' ' && c < 0x7f && !strings.ContainsRune("\"<>\\^`{|}*$%", rune(c)) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(b, "%%%02X", c)
		}
	}
}

type refRule struct {
	allow  bool
	length int
	re     *regexp.Regexp
}

// refCompile turns a raw pattern into a regexp over canonical paths. It
// reports false for the empty pattern.
func refCompile(raw string, allow bool) (refRule, bool) {
	if raw == "" {
		return refRule{}, false
	}
	anchored := strings.HasSuffix(raw, "$")
	raw = strings.TrimSuffix(raw, "$")
	parts := strings.Split(raw, "*")
	text, expr := "", "(?s)^"
	for i, p := range parts {
		if i > 0 {
			text += "*"
			expr += ".*"
		}
		text += refCanon(p)
		expr += regexp.QuoteMeta(refCanon(p))
	}
	if anchored {
		text += "$"
		expr += "$"
	}
	return refRule{allow: allow, length: len(text), re: regexp.MustCompile(expr)}, true
}

// refDecide returns whether path is allowed and the length of the deciding
// rule (-1 if none) by trying every rule.
func refDecide(rules []refRule, path string) (allowed bool, length int) {
	if path == "" || path[0] != '/' {
		path = "/" + path
	}
	p := refCanon(path)
	if p == "/robots.txt" {
		return true, -1
	}
	allowed, length = true, -1
	for _, r := range rules {
		if !r.re.MatchString(p) {
			continue
		}
		if r.length > length || r.length == length && r.allow {
			allowed, length = r.allow, r.length
		}
	}
	return allowed, length
}

// decision is what the package decides for path: allowed, and the length of
// the deciding rule (-1 if none).
func decision(g *Group, path string) (bool, int) {
	allowed := g.Allowed(path)
	p := canonPath(path)
	if p == "/robots.txt" {
		return allowed, -1
	}
	if r := g.decide(p); r != nil {
		return allowed, len(r.text)
	}
	return allowed, -1
}

// Pieces that random patterns and paths are made of: the operators, the
// escapes that change under canonicalisation, and plain text that lets
// patterns match often.
var (
	patternPieces = []string{"/", "/", "a", "b", "ab", "*", "*", "$", "%2A", "%24", "%61", "%7e", "~", "%2F", "%2f",
		"?", "=", "\u00e9", "%C3%A9", " ", "%", "%zz", ".", "-", "{"}
	pathPieces = []string{"/", "/", "a", "b", "ab", "*", "$", "%2A", "%2a", "%24", "%61", "A", "%7E", "~", "%2F",
		"?", "=", "\u00e9", "%c3%a9", "%20", " ", "%", "%z", ".", "-", "%7B"}
)

func randomString(r *rand.Rand, pieces []string, maxPieces int) string {
	var b strings.Builder
	for range r.IntN(maxPieces + 1) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// TestAgainstReference checks longest match and Allow-wins-ties against the
// brute-force reference on random rule sets and paths. Fixed seed: a failure
// reproduces.
func TestAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(9309, 2022))
	files, paths := 3000, 40
	if testing.Short() {
		files = 500
	}
	matched := 0
	for range files {
		var body strings.Builder
		var ref []refRule
		// The rules for "x" are spread over one to three groups, which the
		// parser must merge, between groups for another agent.
		body.WriteString("User-agent: x\n")
		for i := range 1 + r.IntN(6) {
			if i > 0 && r.IntN(3) == 0 {
				body.WriteString("\nUser-agent: other\nDisallow: /a\n\nUser-agent: X\n")
			}
			allow := r.IntN(2) == 0
			// Parse trims the value, so the reference sees it trimmed too.
			pat := strings.Trim(randomString(r, patternPieces, 6), " ")
			if r.IntN(4) > 0 {
				pat = "/" + pat
			}
			fmt.Fprintf(&body, "%s: %s\n", map[bool]string{true: "Allow", false: "Disallow"}[allow], pat)
			if rr, ok := refCompile(pat, allow); ok {
				ref = append(ref, rr)
			}
		}
		g := Parse([]byte(body.String())).Group("x")
		for range paths {
			path := randomString(r, pathPieces, 8)
			if r.IntN(8) > 0 {
				path = "/" + path
			}
			wantAllow, wantLen := refDecide(ref, path)
			gotAllow, gotLen := decision(g, path)
			if gotAllow != wantAllow || gotLen != wantLen {
				t.Fatalf("rules:\n%spath %q (canonical %q): allowed %v by a rule of length %d; reference: %v, %d",
					body.String(), path, canonPath(path), gotAllow, gotLen, wantAllow, wantLen)
			}
			if wantLen >= 0 {
				matched++
			}
		}
	}
	t.Logf("%d of %d random paths matched a rule", matched, files*paths)
	// A reference that never matches would prove nothing.
	if total := files * paths; matched < total/4 {
		t.Errorf("only %d of %d random paths matched a rule; the generator is too weak", matched, total)
	}
}

// TestReferenceItself pins the reference to hand-checked answers, so that
// the two implementations cannot agree on a shared mistake unnoticed.
func TestReferenceItself(t *testing.T) {
	tests := []struct {
		rules   []string // "+pattern" allows, "-pattern" disallows
		path    string
		allowed bool
		length  int
	}{
		{[]string{"+/p", "-/"}, "/page", true, 2},
		{[]string{"+/folder", "-/folder"}, "/folder/x", true, 7},
		{[]string{"+/page", "-/*.htm"}, "/page.htm", false, 6},
		{[]string{"+/$", "-/"}, "/", true, 2},
		{[]string{"-/%7Efoo"}, "/~foo", false, 5},
		{[]string{"-/a%2fb"}, "/a/b", true, -1},
		{[]string{"-/x%2A"}, "/x*", false, 5},
		{[]string{"-/"}, "/robots.txt", true, -1},
		{[]string{"-*.gif$"}, "/a.gif", false, 6},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.rules, " ")+" "+tt.path, func(t *testing.T) {
			var rules []refRule
			for _, s := range tt.rules {
				r, _ := refCompile(s[1:], s[0] == '+')
				rules = append(rules, r)
			}
			if a, l := refDecide(rules, tt.path); a != tt.allowed || l != tt.length {
				t.Errorf("reference: %v, %d; want %v, %d", a, l, tt.allowed, tt.length)
			}
		})
	}
}
