package warc

import "io"

// dechunker decodes HTTP/1.1 chunked transfer coding (RFC 9112 §7.1) pushed
// to it in pieces of any size, writing the chunk data to out. It never
// buffers: the state machine below remembers where in the framing it is.
//
// It is lenient where readers commonly are: a bare LF ends a line, leading
// zeros in a size are fine, whitespace and chunk extensions after the size
// are skipped, and so is everything after the last chunk (trailer fields
// are not payload). It accepts everything net/http's chunked reader
// accepts, with the same result (FuzzDechunk). Any other deviation sets
// bad, and the caller treats the body as not chunked.
type dechunker struct {
	out    io.Writer
	state  uint8
	size   uint64 // chunk size being parsed, then data bytes left in the chunk
	digits int
	bad    bool
}

const (
	chSize   = iota // hex digits of chunk-size
	chExt           // CR, whitespace or extensions after the size, up to LF
	chData          // chunk data
	chDataCR        // after data: CRLF (or LF) must follow
	chDataLF        // CR seen after data: LF must follow
	chDone          // the last chunk was seen
)

func (d *dechunker) Write(p []byte) (int, error) {
	n := len(p)
	for i := 0; i < len(p) && !d.bad && d.state != chDone; i++ {
		c := p[i]
		switch d.state {
		case chSize:
			v, ok := unhex(c)
			switch {
			case ok && d.size>>60 == 0:
				d.size = d.size<<4 | uint64(v)
				d.digits++
			case ok: // over 2^64: not a real chunk
				d.bad = true
			case d.digits == 0:
				d.bad = true
			case c == '\n':
				d.endSizeLine()
			case c == ';' || c == ' ' || c == '\t' || c == '\r':
				d.state = chExt
			default:
				d.bad = true
			}
		case chExt:
			if c == '\n' {
				d.endSizeLine()
			}
		case chData:
			take := min(uint64(len(p)-i), d.size)
			d.out.Write(p[i : i+int(take)])
			d.size -= take
			i += int(take) - 1
			if d.size == 0 {
				d.state = chDataCR
			}
		case chDataCR:
			switch c {
			case '\r':
				d.state = chDataLF
			case '\n':
				d.state = chSize
			default:
				d.bad = true
			}
		case chDataLF:
			if c != '\n' {
				d.bad = true
			}
			d.state = chSize
		}
	}
	return n, nil
}

// endSizeLine starts the chunk whose size line just ended. Size 0 is the
// last chunk; the trailer section after it is not payload and is ignored,
// as net/http ignores it.
func (d *dechunker) endSizeLine() {
	d.digits = 0
	if d.size == 0 {
		d.state = chDone
		return
	}
	d.state = chData
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
