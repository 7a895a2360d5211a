package urlx

import (
	"bytes"
	"strings"
)

// This file is the fast path of reference resolution. Link extraction
// resolves every href of a page against the page's URL, and nearly all
// hrefs are plain paths ("../fs/struct.File.html#method.open", "/about/").
// For those, the steps of parse (clean, the scheme and authority states,
// the base's segments split into a slice, a URL built) reduce to copying
// the base's directory and walking the reference's segments in one
// buffer; parse.go stays the full parser, and every other reference goes
// there.

// Resolve resolves ref against u and returns the canonical form of the
// result: the string, or the error, that u.Parse(ref) would give, without
// building a URL. Plain paths, the references links mostly are, cost a
// third to a half of what Parse does (BenchmarkResolve).
func (u *URL) Resolve(ref string) (string, error) {
	if s, ok := u.resolvePath(ref); ok {
		return s, nil
	}
	v, err := u.Parse(ref)
	if err != nil {
		return "", err
	}
	return v.s, nil
}

// resolvePath resolves a path reference, relative or absolute, with or
// without query and fragment, made of printable ASCII other than '\'. It
// reports false for any other reference, and for those whose input or
// result is past the bounds (parse refuses those with ErrTooLong).
//
// For such a reference clean changes nothing, it has no scheme and no
// authority, and parse reaches withPath and assemble with the base's
// directory as segs; they are followed here step by step, with the same
// dot-segment tests and the same escaping. The base's segments are
// canonical already, and escaping them again would change nothing, so
// they are copied as they are.
func (u *URL) resolvePath(ref string) (string, bool) {
	path, query, ok := splitPathRef(ref)
	if !ok {
		return "", false
	}
	var arr [256]byte
	b := append(arr[:0], u.s[:u.pathStart]...) // scheme://authority
	root := len(b)
	if path[0] == '/' {
		path = path[1:] // the path start state consumes one slash
	} else {
		bp := u.Path()
		b = append(b, bp[:strings.LastIndexByte(bp, '/')]...) // the directory: "/" and each segment but the last
	}
	b = appendSegments(b, root, path)
	b = appendQuery(b, query, u.sortQuery)
	if len(b) > MaxInput || bytes.Count(b, slash) > MaxSlashes {
		return "", false
	}
	return string(b), true
}

// splitPathRef returns the path and query of a reference that
// resolvePath takes, and false for any other: one that is empty, too
// long, holds too many slashes or a byte clean or the backslash rule
// would change, or has a scheme or an authority, or no path.
func splitPathRef(ref string) (path, query string, ok bool) {
	if ref == "" || len(ref) > MaxInput {
		return "", "", false
	}
	slashes := 0
	for i := 0; i < len(ref); i++ {
		switch c := ref[i]; {
		case c <= ' ' || c >= 0x7f || c == '\\':
			return "", "", false
		case c == '/':
			slashes++
		}
	}
	if slashes > MaxSlashes {
		return "", "", false
	}
	path = ref
	if i := strings.IndexByte(path, '#'); i >= 0 {
		path = path[:i]
	}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path, query = path[:i], path[i+1:]
	}
	if path == "" || schemeLen(path) > 0 || strings.HasPrefix(path, "//") {
		return "", "", false
	}
	return path, query, true
}

// appendSegments walks the '/'-separated segments of path as withPath
// does, appending each to b as "/" and its escaped text, and dropping the
// last one in b past root for a ".." segment. Either dot segment last
// leaves an empty segment, so that the path ends in '/'.
func appendSegments(b []byte, root int, path string) []byte {
	for more := true; more; {
		piece := path
		if i := strings.IndexByte(path, '/'); i >= 0 {
			piece, path = path[:i], path[i+1:]
		} else {
			more = false
		}
		switch {
		case isDoubleDot(piece):
			if len(b) > root {
				b = b[:root+bytes.LastIndexByte(b[root:], '/')]
			}
			if !more {
				b = append(b, '/')
			}
		case isSingleDot(piece):
			if !more {
				b = append(b, '/')
			}
		default:
			b = append(b, '/')
			b = appendEscaped(b, piece, &pathOK)
		}
	}
	return b
}
