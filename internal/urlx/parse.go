package urlx

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// parse parses raw as an absolute URL (base == nil) or as a reference
// resolved against base, following the WHATWG basic URL parser for the
// special schemes http and https (https://url.spec.whatwg.org/#concept-basic-url-parser;
// state names below are the standard's), and returns it in canonical form.
func (c Canonicalizer) parse(raw string, base *URL) (*URL, error) {
	s := clean(raw)
	if len(s) > MaxInput {
		return nil, fmt.Errorf("%w: %d bytes > %d", ErrTooLong, len(s), MaxInput)
	}
	if n := strings.Count(s, "/") + strings.Count(s, `\`); n > MaxSlashes {
		return nil, fmt.Errorf("%w: %d slashes > %d", ErrTooLong, n, MaxSlashes)
	}

	// The fragment starts at the first '#' and the query at the first '?'
	// before it, in every state a special URL goes through. The fragment
	// is dropped.
	rest, query, hasQuery := s, "", false
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest, query, hasQuery = rest[:i], rest[i+1:], true
	}
	// Special schemes treat '\' as '/' everywhere before the query.
	if strings.IndexByte(rest, '\\') >= 0 {
		rest = strings.ReplaceAll(rest, `\`, "/")
	}

	// Scheme state: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":".
	scheme := ""
	if n := schemeLen(rest); n > 0 {
		scheme = strings.ToLower(rest[:n-1])
		if scheme != "http" && scheme != "https" {
			return nil, fmt.Errorf("%w: %q", ErrScheme, scheme)
		}
		rest = rest[n:]
	} else if base == nil {
		return nil, fmt.Errorf("%w: no scheme in %.40q", ErrInvalid, s)
	}

	// A scheme that differs from the base's, or any scheme without a base,
	// goes to the special authority slashes state, where any run of
	// slashes, even none, leads to the authority. Otherwise (the special
	// relative or authority, relative and relative slash states) the
	// authority needs two slashes; with fewer the reference is relative.
	slashes := 0
	for slashes < len(rest) && rest[slashes] == '/' {
		slashes++
	}
	if scheme != "" && (base == nil || scheme != base.Scheme()) || slashes >= 2 {
		if scheme == "" {
			scheme = base.Scheme()
		}
		rest = rest[slashes:]
		end := strings.IndexByte(rest, '/')
		if end < 0 {
			end = len(rest)
		}
		host, port, err := parseAuthority(scheme, rest[:end])
		if err != nil {
			return nil, err
		}
		return c.withPath(scheme, host, port, nil, rest[end:], query)
	}

	// Relative state: a reference resolved against the base.
	scheme, host, port := base.Scheme(), base.Host(), base.Port()
	switch {
	case rest == "" && !hasQuery: // "" or "#f": the base itself
		return c.assemble(scheme, host, port, nil, base.Path(), base.Query())
	case rest == "": // "?q": the base's path with a new query
		return c.assemble(scheme, host, port, nil, base.Path(), query)
	case rest[0] == '/': // an absolute path
		return c.withPath(scheme, host, port, nil, rest, query)
	}
	// A relative path: the base's path without its last segment, then the
	// reference's segments. The base is canonical, so its segments need no
	// dot handling.
	bp := base.Path()
	segs := strings.Split(bp[1:strings.LastIndexByte(bp, '/')+1], "/")
	return c.withPath(scheme, host, port, segs[:len(segs)-1], rest, query)
}

// clean does the first steps of the WHATWG basic URL parser: leading and
// trailing C0 controls and spaces are trimmed and tabs and newlines
// removed. Invalid UTF-8 becomes U+FFFD first, as a browser's decoder
// would have done before the parser saw the text.
func clean(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
	}
	return s
}

// schemeLen returns the length of the scheme at the start of s, colon
// included, or 0 if s does not start with one.
func schemeLen(s string) int {
	if s == "" || !isAlpha(s[0]) {
		return 0
	}
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case isAlpha(c), '0' <= c && c <= '9', c == '+', c == '-', c == '.':
		case c == ':':
			return i + 1
		default:
			return 0
		}
	}
	return 0
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// withPath runs the path start and path states over path (appending its
// segments to segs, the base's for a relative path) and assembles the URL.
// A "." segment is dropped and a ".." segment removes the one before it
// (in their percent-encoded spellings too); either one last leaves an
// empty last segment, so that the path ends in '/'.
func (c Canonicalizer) withPath(scheme, host, port string, segs []string, path, query string) (*URL, error) {
	if path != "" && path[0] == '/' {
		path = path[1:] // the path start state consumes one slash
	}
	var buf [16]string
	if segs == nil {
		segs = buf[:0]
	}
	for {
		piece, more := path, false
		if i := strings.IndexByte(path, '/'); i >= 0 {
			piece, path, more = path[:i], path[i+1:], true
		}
		switch {
		case isDoubleDot(piece):
			if len(segs) > 0 {
				segs = segs[:len(segs)-1]
			}
			if !more {
				segs = append(segs, "")
			}
		case isSingleDot(piece):
			if !more {
				segs = append(segs, "")
			}
		default:
			segs = append(segs, piece)
		}
		if !more {
			break
		}
	}
	return c.assemble(scheme, host, port, segs, "", query)
}

func isSingleDot(s string) bool {
	return s == "." || len(s) == 3 && strings.EqualFold(s, "%2e")
}

func isDoubleDot(s string) bool {
	switch len(s) {
	case 2:
		return s == ".."
	case 4:
		return strings.EqualFold(s, ".%2e") || strings.EqualFold(s, "%2e.")
	case 6:
		return strings.EqualFold(s, "%2e%2e")
	}
	return false
}
