package warc

import (
	"encoding/binary"
	"hash/crc32"
	"slices"

	"github.com/klauspost/compress/gzip"
)

// A record goes to its file as one gzip member (RFC 1952) holding the
// WARC header, the block and the closing CRLF CRLF. Records worth
// compressing are deflated with a pooled gzip.Writer; the others are
// written here as stored deflate blocks (RFC 1951 §3.2.4) without one:
// for a request record or an already gzipped payload, a gzip.Writer at
// level 0 spent more in its own set-up and copies than the CRC did.

// storedHeader is the gzip member header the stored members start with:
// deflate, no flags, no modification time, no extra flags, unknown OS, as
// Go's gzip.Writer writes it at level 0.
var storedHeader = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

// maxStored is the most bytes a stored deflate block holds.
const maxStored = 65535

// recordTrailer closes every record's block.
var recordTrailer = []byte("\r\n\r\n")

// storedSize is the length of the stored member of n bytes.
func storedSize(n int) int {
	blocks := max(1, (n+maxStored-1)/maxStored)
	return len(storedHeader) + 5*blocks + n + 8
}

// appendStored appends to dst a gzip member holding the concatenation of
// parts in stored blocks.
func appendStored(dst []byte, parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	dst = append(dst, storedHeader[:]...)
	crc := uint32(0)
	pi, off := 0, 0
	for left, first := n, true; first || left > 0; first = false {
		m := min(left, maxStored)
		final := byte(0)
		if m == left {
			final = 1
		}
		dst = append(dst, final, byte(m), byte(m>>8), ^byte(m), ^byte(m>>8))
		for k := m; k > 0; {
			p := parts[pi][off:]
			c := min(len(p), k)
			dst = append(dst, p[:c]...)
			crc = crc32.Update(crc, crc32.IEEETable, p[:c])
			k -= c
			off += c
			if off == len(parts[pi]) {
				pi, off = pi+1, 0
			}
		}
		left -= m
	}
	dst = binary.LittleEndian.AppendUint32(dst, crc)
	return binary.LittleEndian.AppendUint32(dst, uint32(n))
}

// encoder is a gzip.Writer at the writer's level with the scratch space
// for the WARC header; Encode pools them.
type encoder struct {
	zw  *gzip.Writer
	hdr []byte
	out appendWriter
}

// appendWriter is an io.Writer appending to a byte slice.
type appendWriter struct{ b []byte }

func (a *appendWriter) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}

// member appends to dst the record h + block as one gzip member: deflated
// by e if compress is set, else stored. dst grows first to the size the
// member needs, so that it is allocated once, mostly.
func (e *encoder) member(dst []byte, h Header, block [][]byte, compress bool) []byte {
	n := 0
	for _, b := range block {
		n += len(b)
	}
	e.hdr = h.appendTo(e.hdr[:0])
	n += len(e.hdr) + len(recordTrailer)
	if !compress {
		parts := make([][]byte, 0, len(block)+2)
		parts = append(append(append(parts, e.hdr), block...), recordTrailer)
		return appendStored(slices.Grow(dst, storedSize(n)), parts...)
	}
	// Room for a member half the size of the record, which HTML and other
	// text stay under.
	e.out.b = slices.Grow(dst, n/2+64)
	e.zw.Reset(&e.out)
	e.zw.Write(e.hdr) // appends cannot fail
	for _, b := range block {
		e.zw.Write(b)
	}
	e.zw.Write(recordTrailer)
	e.zw.Close()
	out := e.out.b
	e.out.b = nil
	return out
}
