package rank

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// HotCount is how often a topic word must occur in a page, title aside,
// for TopicHot to call the page hot.
const HotCount = 10

// TopicHot is dissertation §2.5.4's test of whether a page is hot for a
// topic word: the word is in the page's <title>, or it occurs HotCount or
// more times anywhere in the page (the dissertation's crawler code counts
// ≥ 10; spec 3.5). Letter case is ignored. The word is a run of bytes, not
// a token: "computer" counts in "computers".
//
// The crawler calls it for every page under -ordering topic, so it reads
// the page in place: for a word of ASCII letters it folds case a chunk at
// a time in a buffer on the stack and stops at the tenth occurrence. Only
// a word with other letters pays for a lower-cased copy of the page.
func TopicHot(body []byte, word string) bool {
	w := strings.ToLower(word)
	if w == "" {
		return false
	}
	if !isASCII(w) {
		body = bytes.ToLower(body) // non-ASCII letters fold in the copy
	}
	if title, ok := pageTitle(body); ok && indexFold(title, w) >= 0 {
		return true
	}
	return countFold(body, w, HotCount) >= HotCount
}

// pageTitle returns the text of the first <title> element of an HTML page:
// from after the start tag to the end tag, letter case aside.
func pageTitle(body []byte) ([]byte, bool) {
	at := 0
	for {
		i := indexFold(body[at:], "<title")
		if i < 0 {
			return nil, false
		}
		at += i + len("<title")
		// <title> or <title attr...>, not <titlefoo>.
		if at < len(body) && (body[at] == '>' || isSpace(body[at])) {
			break
		}
	}
	gt := bytes.IndexByte(body[at:], '>')
	if gt < 0 {
		return nil, false
	}
	text := body[at+gt+1:]
	end := indexFold(text, "</title")
	if end < 0 {
		return nil, false
	}
	return text[:end], true
}

// foldChunk is how much of a page indexFold lower-cases at a time.
const foldChunk = 4096

// indexFold returns the index of the first instance of needle, which is
// lower-case ASCII, in s with ASCII letters folded to lower case, or -1.
func indexFold(s []byte, needle string) int {
	if len(needle) > foldChunk/2 {
		// Too long to find across chunk boundaries: fold the whole.
		return bytes.Index(lowerASCII(make([]byte, len(s)), s), []byte(needle))
	}
	var buf [foldChunk]byte
	for start := 0; start < len(s); {
		n := len(lowerASCII(buf[:], s[start:]))
		if i := bytes.Index(buf[:n], []byte(needle)); i >= 0 {
			return start + i
		}
		if start+n == len(s) {
			break
		}
		// The next chunk overlaps this one by a needle less a byte, so
		// that an instance across the boundary is found.
		start += n - (len(needle) - 1)
	}
	return -1
}

// countFold counts the non-overlapping instances of needle in s, as
// indexFold finds them, up to limit.
func countFold(s []byte, needle string, limit int) int {
	n := 0
	for n < limit {
		i := indexFold(s, needle)
		if i < 0 {
			break
		}
		n++
		s = s[i+len(needle):]
	}
	return n
}

// lowerASCII copies as much of src as fits into dst with ASCII letters in
// lower case and returns the part of dst written.
func lowerASCII(dst, src []byte) []byte {
	n := copy(dst, src)
	for i, c := range dst[:n] {
		if 'A' <= c && c <= 'Z' {
			dst[i] = c + 'a' - 'A'
		}
	}
	return dst[:n]
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
