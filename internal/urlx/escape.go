package urlx

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// assemble writes the canonical form of a URL from its parts: a checked
// scheme and host, a port that is not the default, and a path (without
// dot segments) and query whose escaping it normalises. The path is segs,
// each written after a '/', or if segs is nil, path.
func (c Canonicalizer) assemble(scheme, host, port string, segs []string, path, query string) (*URL, error) {
	var arr [256]byte // most URLs fit; string(b) copies anyway
	b := append(arr[:0], scheme...)
	b = append(b, "://"...)
	u := &URL{sortQuery: c.SortQuery, hostStart: len(b)}
	b = append(b, host...)
	u.hostEnd = len(b)
	if port != "" {
		b = append(b, ':')
		b = append(b, port...)
	}
	u.pathStart = len(b)
	if segs == nil {
		b = appendEscaped(b, path, &pathOK)
	}
	for _, seg := range segs {
		b = append(b, '/')
		b = appendEscaped(b, seg, &pathOK)
	}
	u.queryAt = len(b)
	b = appendQuery(b, query, c.SortQuery)
	// Resolution and escaping can lengthen a URL past what parse lets in;
	// refuse such results, so that every canonical URL parses again.
	if len(b) > MaxInput {
		return nil, fmt.Errorf("%w: %d bytes > %d", ErrTooLong, len(b), MaxInput)
	}
	if n := bytes.Count(b, slash); n > MaxSlashes {
		return nil, fmt.Errorf("%w: %d slashes > %d", ErrTooLong, n, MaxSlashes)
	}
	u.s = string(b)
	return u, nil
}

var slash = []byte{'/'}

// Byte classes of RFC 3986 §2 used by the canonical form.
var (
	// unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
	unreserved = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
	// pathOK: pchar (unreserved, sub-delims, ':', '@') and '/'.
	pathOK = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~" + "!$&'()*+,;=" + ":@/")
	// queryOK: as pathOK plus '?', less "'" (the WHATWG special-query
	// percent-encode set escapes it).
	queryOK = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~" + "!$&()*+,;=" + ":@/?")
)

func byteSet(s string) (t [256]bool) {
	for i := 0; i < len(s); i++ {
		t[s[i]] = true
	}
	return t
}

const upperHex = "0123456789ABCDEF"

// appendEscaped appends s to dst with its percent-encoding normalised:
// escapes of unreserved bytes decoded, other escapes in upper-case hex,
// bytes outside ok escaped, and a '%' that starts no escape written "%25".
//
// Applied to the raw text of a path or query, this equals the WHATWG
// parser's percent-encoding (UTF-8, with the path or special-query
// percent-encode set, which escapes only bytes outside ok) followed by
// the normalisation: both leave '%' alone and escape a byte as %XX.
func appendEscaped(dst []byte, s string, ok *[256]bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			var n int
			dst, n = AppendNormalizedEscape(dst, s[i:])
			i += n - 1
		case ok[c]:
			dst = append(dst, c)
		default:
			dst = append(dst, '%', upperHex[c>>4], upperHex[c&15])
		}
	}
	return dst
}

// AppendNormalizedEscape appends to dst the normal form of the
// percent-escape that s starts with, and returns the extended slice and how
// many bytes of s it read. An escape ('%' and two hex digits, RFC 3986
// §2.1) of an unreserved octet is decoded and any other is written in
// upper-case hex (§6.2.2.1, §6.2.2.2); both read 3 bytes. A '%' that
// starts no escape is written "%25" and reads 1. s must start with '%'.
func AppendNormalizedEscape(dst []byte, s string) ([]byte, int) {
	if len(s) < 3 || !isHex(s[1]) || !isHex(s[2]) {
		return append(dst, "%25"...), 1
	}
	d := unhex(s[1])<<4 | unhex(s[2])
	if unreserved[d] {
		return append(dst, d), 3
	}
	return append(dst, '%', upperHex[d>>4], upperHex[d&15]), 3
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// sortQuery sorts the '&'-separated parameters of b[q:] by name, stably.
func sortQuery(b []byte, q int) []byte {
	params := strings.Split(string(b[q:]), "&")
	slices.SortStableFunc(params, func(x, y string) int {
		return strings.Compare(paramName(x), paramName(y))
	})
	b = b[:q]
	for i, p := range params {
		if i > 0 {
			b = append(b, '&')
		}
		b = append(b, p...)
	}
	return b
}

func paramName(p string) string {
	if i := strings.IndexByte(p, '='); i >= 0 {
		return p[:i]
	}
	return p
}

// appendQuery appends "?" and query, escaped and, with sorted, its
// parameters in order; nothing for an empty query.
func appendQuery(b []byte, query string, sorted bool) []byte {
	if query == "" {
		return b
	}
	b = append(b, '?')
	q := len(b)
	b = appendEscaped(b, query, &queryOK)
	if sorted {
		b = sortQuery(b, q)
	}
	return b
}
