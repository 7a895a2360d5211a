package robots

import (
	"cmp"
	"slices"
	"strings"

	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// rule is a compiled Allow or Disallow line.
//
// Patterns and paths are compared in one canonical percent-encoded form
// (RFC 9309 §2.2.2, §2.2.3):
//   - %XX of an unreserved character (RFC 3986: letters, digits, "-._~") is
//     decoded, so /%7Efoo and /~foo are the same path;
//   - other escapes keep their escaped form with upper-case hex, so /a%2fb
//     equals /a%2Fb but not /a/b (these two are urlx.AppendNormalizedEscape,
//     as in canonical URLs);
//   - octets outside printable ASCII, the space, the characters RFC 3986
//     does not allow in a URI ("<>\^`{|} and the double quote), a '%' that
//     starts no escape, and a literal '*' or '$' are percent-encoded.
//
// A literal '*' or '$' therefore reads %2A or %24 in both, which is how
// RFC 9309 §2.2.3 says a rule names them, and in a canonical pattern a bare
// '*' is always the wildcard and a final bare '$' always the end anchor.
type rule struct {
	allow    bool
	anchored bool     // the pattern ends in '$'
	text     string   // the canonical pattern; its length is the rule's specificity
	segs     []string // the literal parts of text around each '*'; at least one
}

// compileRule compiles the value of an Allow or Disallow line. It reports
// false for an empty value, which matches nothing (RFC 9309 §2.2.2).
func compileRule(pattern string, allow bool) (rule, bool) {
	if pattern == "" {
		return rule{}, false
	}
	anchored := strings.HasSuffix(pattern, "$")
	body := strings.TrimSuffix(pattern, "$")
	buf := appendCanon(make([]byte, 0, len(pattern)+8), body, true)
	n := len(buf)
	if anchored {
		buf = append(buf, '$')
	}
	text := string(buf)
	return rule{
		allow:    allow,
		anchored: anchored,
		text:     text,
		segs:     strings.Split(text[:n], "*"),
	}, true
}

// precedes reports whether r beats s when both match: the longer pattern
// wins and Allow wins a tie (RFC 9309 §2.2.2). Pattern length is counted in
// octets of the canonical form, so equivalent spellings weigh the same.
func (r *rule) precedes(s *rule) bool {
	if len(r.text) != len(s.text) {
		return len(r.text) > len(s.text)
	}
	return r.allow && !s.allow
}

// sortRules orders rules by precedence and drops duplicates. Equal rules
// end up next to each other because the text breaks the remaining ties.
func sortRules(rules []rule) []rule {
	slices.SortFunc(rules, func(a, b rule) int {
		if c := cmp.Compare(len(b.text), len(a.text)); c != 0 {
			return c
		}
		if a.allow != b.allow {
			if a.allow {
				return -1
			}
			return 1
		}
		return strings.Compare(a.text, b.text)
	})
	return slices.CompactFunc(rules, func(a, b rule) bool {
		return a.allow == b.allow && a.text == b.text
	})
}

// match reports whether the rule matches the canonical path p. Patterns
// are anchored at the start of the path; '*' matches any run of octets.
//
// Taking each middle segment at its leftmost occurrence is enough: it leaves
// the most room for the segments after it, so no backtracking is needed and
// a match costs at most one scan of p per segment.
func (r *rule) match(p string) bool {
	s := r.segs
	if !strings.HasPrefix(p, s[0]) {
		return false
	}
	if len(s) == 1 {
		return !r.anchored || len(p) == len(s[0])
	}
	p = p[len(s[0]):]
	last := s[len(s)-1]
	if r.anchored {
		if !strings.HasSuffix(p, last) {
			return false
		}
		p = p[:len(p)-len(last)]
	}
	for _, m := range s[1 : len(s)-1] {
		i := strings.Index(p, m)
		if i < 0 {
			return false
		}
		p = p[i+len(m):]
	}
	return r.anchored || strings.Contains(p, last)
}

// canonPath returns the canonical form of a request path and query. A
// missing leading '/' is supplied, so "" and "?q" mean "/" and "/?q".
func canonPath(p string) string {
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	if !needsCanon(p) {
		return p
	}
	return string(appendCanon(make([]byte, 0, len(p)+8), p, false))
}

// needsCanon reports whether appendCanon would change s (read as a path).
func needsCanon(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || c < 64 && (escapeLo|1<<'%')>>c&1 != 0 || c >= 64 && escapeHi>>(c-64)&1 != 0 {
			return true
		}
	}
	return false
}

const upperHex = "0123456789ABCDEF"

// appendCanon appends the canonical form of s to dst. With wildcard set, s
// is a pattern and its '*' are wildcards, kept bare; otherwise a '*' is a
// literal octet and is escaped.
func appendCanon(dst []byte, s string, wildcard bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			var n int
			dst, n = urlx.AppendNormalizedEscape(dst, s[i:])
			i += n - 1
		case c == '*' && wildcard:
			dst = append(dst, c)
		case mustEscape(c):
			dst = append(dst, '%', upperHex[c>>4], upperHex[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// The octets mustEscape escapes below 64 and from 64 to 127, as bit sets.
const (
	escapeLo uint64 = 1<<'"' | 1<<'$' | 1<<'*' | 1<<'<' | 1<<'>' | (1<<(' '+1) - 1)
	escapeHi uint64 = 1<<('\\'-64) | 1<<('^'-64) | 1<<('`'-64) | 1<<('{'-64) | 1<<('|'-64) | 1<<('}'-64) | 1<<(0x7f-64)
)

// mustEscape reports whether a bare octet is percent-encoded in canonical
// form: it is not allowed in a URI (controls, space, non-ASCII and
// "<>\^`{|} and the double quote), or it is '*' or '$', which patterns use
// as operators.
func mustEscape(c byte) bool {
	switch {
	case c < 64:
		return escapeLo>>c&1 != 0
	case c < 128:
		return escapeHi>>(c-64)&1 != 0
	}
	return true
}
