package extract

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
)

// boundedReader reads at most n bytes of r and notes whether r had more.
type boundedReader struct {
	r         io.Reader
	n         int64 // bytes left
	probed    bool
	truncated bool // r had bytes past the bound
}

// Read reads from r, up to the bound.
func (b *boundedReader) Read(p []byte) (int, error) {
	if b.n <= 0 {
		if !b.probed {
			b.probed = true
			var one [1]byte
			k, _ := io.ReadFull(b.r, one[:])
			b.truncated = k > 0
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	k, err := b.r.Read(p)
	b.n -= int64(k)
	return k, err
}

// stickyReader returns the first error of r other than io.EOF on every
// read after it. Buffered readers above it (bufio's Peek) may drop an
// error they were handed, and must meet it again on their next read, even
// if r would then answer io.EOF.
type stickyReader struct {
	r   io.Reader
	err error
}

// Read reads from r until it fails.
func (s *stickyReader) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

// sniffLen is how much of a page the HTML standard's encoding sniffing
// looks at.
const sniffLen = 1024

// decodeHTML returns r decoded to UTF-8 and the name of the encoding it
// was in, found as golang.org/x/net/html/charset finds it (BOM, then
// contentType's charset, then the <meta> prescan of the first 1,024
// bytes), with one change: a page that declares nothing and whose first
// 1,024 bytes are ASCII is read as UTF-8, not windows-1252. Nearly all of
// today's web is UTF-8, and for ASCII the two agree anyway.
func decodeHTML(r io.Reader, contentType string) (io.Reader, string, error) {
	prefix := make([]byte, sniffLen)
	n, err := io.ReadFull(r, prefix)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, "", err
	}
	prefix = prefix[:n]
	_, name, certain := charset.DetermineEncoding(prefix, contentType)
	if !certain && name == "windows-1252" && isASCII(string(prefix)) && !containsFold(prefix, "charset") {
		name = "utf-8" // the fallback, not a declaration: the prescan needs "charset"
	}
	body := io.MultiReader(bytes.NewReader(prefix), r)
	if name == "utf-8" {
		// UTF-8 needs no decoding: the tokenizer reads bytes, and invalid
		// sequences become U+FFFD where it matters (urlx, anchors).
		return body, name, nil
	}
	dec, err := charset.NewReaderLabel(name, body)
	if err != nil {
		return nil, "", err
	}
	return dec, name, nil
}

// containsFold reports whether b contains the lower-case ASCII word s,
// which starts with a letter, in any case. It finds candidates with
// bytes.IndexByte, a letter case at a time, which is several times faster
// than comparing at every byte.
func containsFold(b []byte, s string) bool {
	for _, first := range [2]byte{s[0], s[0] &^ 0x20} {
		for i := 0; ; i++ {
			k := bytes.IndexByte(b[i:], first)
			if k < 0 {
				break
			}
			i += k
			if hasPrefixFold(b[i:], s) {
				return true
			}
		}
	}
	return false
}

// hasPrefixFold reports whether b starts with the lower-case ASCII word s
// in any case.
func hasPrefixFold(b []byte, s string) bool {
	if len(b) < len(s) {
		return false
	}
	for j := 0; j < len(s); j++ {
		if b[j]|0x20 != s[j] {
			return false
		}
	}
	return true
}

// stringEncoder is the part of golang.org/x/text/encoding.Encoder that
// encodeQuery uses.
type stringEncoder interface {
	String(s string) (string, error)
}

// queryEncoder returns the encoder for the queries of URLs in a page in
// the named encoding, or nil where URLs use UTF-8: for UTF-8 itself and
// for the encodings the URL standard replaces by UTF-8 (its "get an
// output encoding": UTF-16 and replacement).
func queryEncoder(name string) stringEncoder {
	switch name {
	case "utf-8", "utf-16be", "utf-16le", "replacement", "":
		return nil
	}
	e, _ := charset.Lookup(name)
	if e == nil {
		return nil
	}
	return e.NewEncoder() // HTML-escapes what it cannot encode: "&#256;"
}

// encodeQuery encodes the non-ASCII text in the query of href with enc and
// percent-encodes the result, as the WHATWG URL parser does for a special
// URL given an encoding other than UTF-8: bytes of the encoded query in
// the special-query percent-encode set (C0 controls, space, '"', '#', '<',
// '>', "'", and bytes from 0x7F) become %XX. ASCII text is left alone; it
// encodes to itself, and the URL parser still has work to do on it.
func encodeQuery(href string, enc stringEncoder) string {
	end := len(href)
	if i := strings.IndexByte(href, '#'); i >= 0 {
		end = i
	}
	q := strings.IndexByte(href[:end], '?')
	if q < 0 || isASCII(href[q:end]) {
		return href
	}
	var b strings.Builder
	b.Grow(len(href) + 16)
	b.WriteString(href[:q])
	for i := q; i < end; {
		j := i
		for j < end && href[j] < utf8.RuneSelf {
			j++
		}
		b.WriteString(href[i:j])
		k := j
		for k < end && href[k] >= utf8.RuneSelf {
			k++
		}
		if k > j {
			out, err := enc.String(href[j:k])
			if err != nil {
				return href // left to be encoded as UTF-8
			}
			for n := 0; n < len(out); n++ {
				if c := out[n]; c < 0x21 || c >= 0x7f || strings.IndexByte("\"#<>'", c) >= 0 {
					b.WriteByte('%')
					b.WriteByte(upperHex[c>>4])
					b.WriteByte(upperHex[c&15])
				} else {
					b.WriteByte(c)
				}
			}
		}
		i = k
	}
	b.WriteString(href[end:])
	return b.String()
}

const upperHex = "0123456789ABCDEF"

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// IsHTML reports whether a body of Content-Type ctype is HTML, sniffing
// the body as browsers do when the header is missing.
func IsHTML(ctype string, body []byte) bool {
	if ctype == "" {
		ctype = http.DetectContentType(body)
	}
	return strings.Contains(strings.ToLower(ctype), "html")
}
