package warc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxHeaderSize bounds a WARC record header (version line, named fields and
// the blank line that ends them) and, when digests are verified, the HTTP
// header at the start of an application/http block. Real headers are well
// under 4 KiB; a larger one is garbage or an attack on the reader's memory.
const MaxHeaderSize = 64 << 10

// Field is one named field of a WARC record header.
type Field struct {
	Name  string
	Value string
}

// Header is the named fields of a WARC record header, in file order. Names
// compare case-insensitively; a name may repeat (WARC-Concurrent-To does).
type Header []Field

// Get returns the value of the first field called name, or "".
func (h Header) Get(name string) string {
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Values returns the values of every field called name, in order.
func (h Header) Values(name string) []string {
	var vs []string
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			vs = append(vs, f.Value)
		}
	}
	return vs
}

// Add appends a field, keeping any earlier fields of the same name.
func (h *Header) Add(name, value string) {
	*h = append(*h, Field{name, value})
}

// Set gives the field called name the single value value: the first such
// field is overwritten in place and later ones are removed; if there is
// none, the field is appended.
func (h *Header) Set(name, value string) {
	found := false
	out := (*h)[:0]
	for _, f := range *h {
		if strings.EqualFold(f.Name, name) {
			if found {
				continue
			}
			found = true
			f.Value = value
		}
		out = append(out, f)
	}
	if !found {
		out = append(out, Field{name, value})
	}
	*h = out
}

// Del removes every field called name.
func (h *Header) Del(name string) {
	out := (*h)[:0]
	for _, f := range *h {
		if !strings.EqualFold(f.Name, name) {
			out = append(out, f)
		}
	}
	*h = out
}

// check reports the first field that cannot be written as is: a name that
// is not an RFC 9110 token, or a value holding a control character (a CR or
// LF in a target URI taken from the web would otherwise inject fields).
func (h Header) check() error {
	for _, f := range h {
		if f.Name == "" {
			return fmt.Errorf("warc: empty field name")
		}
		for i := 0; i < len(f.Name); i++ {
			if !isTokenChar(f.Name[i]) {
				return fmt.Errorf("warc: field name %q is not a token", f.Name)
			}
		}
		for i := 0; i < len(f.Value); i++ {
			if c := f.Value[i]; c < ' ' && c != '\t' || c == 0x7f {
				return fmt.Errorf("warc: field %s: control character %#x in value", f.Name, c)
			}
		}
	}
	return nil
}

func isTokenChar(c byte) bool {
	if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// appendTo writes the header block of a record: version line, fields and
// the empty line.
func (h Header) appendTo(b []byte) []byte {
	b = append(b, "WARC/1.1\r\n"...)
	for _, f := range h {
		b = append(b, f.Name...)
		b = append(b, ": "...)
		b = append(b, f.Value...)
		b = append(b, "\r\n"...)
	}
	return append(b, "\r\n"...)
}

// Errors a caller may branch on. Errors returned by the reader and by Repair
// wrap them together with the file offset (and, where known, the name).
var (
	// ErrFormat means the data is not a well-formed WARC file: a bad
	// version line or field, a missing Content-Length, a record cut short,
	// a damaged gzip member. A record cut short also matches
	// io.ErrUnexpectedEOF.
	ErrFormat = errors.New("warc: malformed")
	// ErrHeaderTooLong means a WARC header, or the HTTP header of a block
	// being verified, exceeds MaxHeaderSize. It comes wrapped with
	// ErrFormat.
	ErrHeaderTooLong = errors.New("warc: header exceeds MaxHeaderSize")
)

// readHeader parses a WARC record header from r: the version line (leading
// blank lines between records are skipped by the caller) and named fields up
// to the empty line. Obsolete line folding (a line starting with a space or
// tab continues the previous value) is accepted, as WARC 1.1 §4 still
// allows it. At most MaxHeaderSize bytes are read.
func readHeader(r *bufio.Reader, next func() error) (version string, h Header, err error) {
	budget := MaxHeaderSize
	var line []byte
	readLine := func() error {
		line = line[:0]
		for {
			frag, err := r.ReadSlice('\n')
			if len(frag) > budget {
				return fmt.Errorf("%w: %w", ErrFormat, ErrHeaderTooLong)
			}
			budget -= len(frag)
			line = append(line, frag...)
			switch {
			case err == nil:
				return nil
			case errors.Is(err, bufio.ErrBufferFull):
				continue
			case err == io.EOF && next != nil:
				// A gzip member ended inside the header: the record
				// continues in the next member.
				if err := next(); err != nil {
					if err == io.EOF {
						return truncated("header")
					}
					return err
				}
				continue
			case err == io.EOF:
				return truncated("header")
			default:
				return err
			}
		}
	}
	if err := readLine(); err != nil {
		return "", nil, err
	}
	v := trimEOL(line)
	if !bytes.HasPrefix(v, []byte("WARC/")) || len(v) > 16 {
		return "", nil, fmt.Errorf("%w: version line %.40q", ErrFormat, v)
	}
	version = string(v)
	for {
		if err := readLine(); err != nil {
			return "", nil, err
		}
		l := trimEOL(line)
		if len(l) == 0 {
			return version, h, nil
		}
		if l[0] == ' ' || l[0] == '\t' {
			if len(h) == 0 {
				return "", nil, fmt.Errorf("%w: continuation line before first field", ErrFormat)
			}
			f := &h[len(h)-1]
			f.Value += " " + string(bytes.TrimSpace(l))
			continue
		}
		i := bytes.IndexByte(l, ':')
		if i <= 0 {
			return "", nil, fmt.Errorf("%w: field line %.40q", ErrFormat, l)
		}
		h = append(h, Field{
			Name:  string(bytes.TrimSpace(l[:i])),
			Value: string(bytes.TrimSpace(l[i+1:])),
		})
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

func truncated(what string) error {
	return fmt.Errorf("%w: %s cut short: %w", ErrFormat, what, io.ErrUnexpectedEOF)
}

// contentLength parses the mandatory Content-Length field.
func contentLength(h Header) (int64, error) {
	s := h.Get("Content-Length")
	if s == "" {
		return 0, fmt.Errorf("%w: no Content-Length", ErrFormat)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: Content-Length %.40q", ErrFormat, s)
	}
	return n, nil
}
