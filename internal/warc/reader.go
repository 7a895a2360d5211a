package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
)

// Reader reads the records of a WARC file, plain or gzip-compressed (any
// number of records per gzip member, though one is usual), in the style of
// archive/tar: Next moves to the next record and returns its header, Read
// reads its block, Verify checks its digests.
//
// Memory use is bounded whatever the input: headers are limited to
// MaxHeaderSize and blocks are streamed. Errors about the data wrap
// ErrFormat; errors of the underlying reader are returned as they are,
// wrapped with context. After any error other than a digest mismatch, the
// Reader returns that error from then on.
type Reader struct {
	src     countReader
	br      *bufio.Reader // the input
	text    *bufio.Reader // record bytes: br itself, or decompressed members
	gz      *gzip.Reader
	gzipped bool
	started bool

	memberStart int64 // input offset of the current gzip member
	cleanEnd    int64 // input offset just after the last record that ended a member (plain: any record)

	inRecord  bool
	version   string
	header    Header
	offset    int64
	remaining int64 // block bytes not yet consumed
	digest    *blockDigester
	verified  bool
	verifyErr error

	err error // sticky
}

// NewReader returns a Reader that reads r from its current position.
// Offsets are counted from there, so a reader can start at a record's
// Location.Offset in a file and read just that record.
func NewReader(r io.Reader) *Reader {
	rd := &Reader{}
	rd.src.r = r
	rd.br = bufio.NewReaderSize(&rd.src, 32<<10)
	return rd
}

// countReader counts the bytes read from r and remembers its first error
// other than io.EOF, to tell I/O errors from malformed data.
type countReader struct {
	r   io.Reader
	n   int64
	err error
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}

// gzSource feeds the current gzip member to Reader.text; it returns io.EOF
// at the end of each member, after gzip has checked the member's CRC.
type gzSource struct{ r *Reader }

func (s gzSource) Read(p []byte) (int, error) { return s.r.gz.Read(p) }

// pos returns the input offset of the next unread input byte.
func (r *Reader) pos() int64 { return r.src.n - int64(r.br.Buffered()) }

// Next advances to the next record, skipping what is left of the current
// block, and returns its header. It returns io.EOF at the clean end of the
// input.
func (r *Reader) Next() (Header, error) {
	if r.err != nil {
		return nil, r.err
	}
	if err := r.next(); err != nil {
		if err != io.EOF {
			err = r.wrap(err)
		}
		r.err = err
		return nil, err
	}
	return r.header, nil
}

// Version returns the version line of the current record, such as
// "WARC/1.1" (wget writes "WARC/1.0").
func (r *Reader) Version() string { return r.version }

// Offset returns the input offset at which the current record starts: the
// offset of its gzip member in a compressed file.
func (r *Reader) Offset() int64 { return r.offset }

// Read reads the current record's block. It returns io.EOF at the end of
// the block, and before the first call to Next. It hashes what it reads so
// that Verify can follow; next to decompression the cost is small (see
// BenchmarkRead).
func (r *Reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if !r.inRecord || r.remaining == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.remaining {
		p = p[:r.remaining]
	}
	if r.digest == nil {
		// Hash from the first byte, so Verify works after Read.
		r.digest = newBlockDigester(r.header)
	}
	n, err := r.readText(p)
	r.remaining -= int64(n)
	r.digest.Write(p[:n])
	if err != nil {
		r.err = r.wrap(err)
		return n, r.err
	}
	return n, nil
}

// Verify reads the rest of the current block and checks it against the
// record's WARC-Block-Digest and WARC-Payload-Digest. It may follow Reads
// of the same block. The payload digest of an application/http block is
// checked as PayloadDigest computes it; for a chunked body, a digest over
// the chunked bytes is accepted too, since wget 1.21, warcio (Python),
// wpull and Heritrix before 2026 write it so (warcio issue #74). A
// revisit's payload digest describes the original capture and is not
// checked; a record without digests verifies. A mismatch returns an error
// wrapping ErrDigestMismatch and leaves the Reader usable.
func (r *Reader) Verify() error {
	if r.err != nil {
		return r.err
	}
	if !r.inRecord {
		return errors.New("warc: Verify called without a current record")
	}
	if r.verified {
		return r.verifyErr
	}
	if r.digest == nil {
		r.digest = newBlockDigester(r.header)
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		return err
	}
	r.verified = true
	if err := r.digest.check(); err != nil {
		r.verifyErr = fmt.Errorf("warc: record %s at offset %d: %w", r.header.Get("WARC-Record-ID"), r.offset, err)
	}
	return r.verifyErr
}

// wrap labels err with the record offset and classifies it: the input's
// own errors stay as they are, the rest become ErrFormat.
func (r *Reader) wrap(err error) error {
	if r.src.err != nil {
		return fmt.Errorf("warc: read at offset %d: %w", r.pos(), r.src.err)
	}
	switch {
	case errors.Is(err, ErrFormat):
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		err = truncated("data")
	default: // gzip and flate errors
		err = fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return fmt.Errorf("warc: record at offset %d: %w", r.offset, err)
}

// start detects the compression from the first bytes.
func (r *Reader) start() error {
	r.started = true
	magic, err := r.br.Peek(2)
	if len(magic) == 0 && err != nil {
		return err // io.EOF: an empty file has no records
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		r.gzipped = true
		r.gz = new(gzip.Reader)
		r.text = bufio.NewReaderSize(gzSource{r}, 4<<10)
		return r.advance()
	}
	r.text = r.br
	return nil
}

// advance starts the next gzip member; it returns io.EOF if there is none.
func (r *Reader) advance() error {
	if _, err := r.br.Peek(1); err != nil {
		return err
	}
	r.memberStart = r.pos()
	// br is an io.ByteReader, so gzip reads exactly the member's bytes
	// from it and pos stays exact.
	if err := r.gz.Reset(r.br); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("%w: gzip member at offset %d: %w", ErrFormat, r.memberStart, err)
	}
	r.gz.Multistream(false)
	return nil
}

// more is called when text reports io.EOF inside a record: in a gzip file
// the record may go on in the next member.
func (r *Reader) more() error {
	if !r.gzipped {
		return io.ErrUnexpectedEOF
	}
	if err := r.advance(); err != nil {
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	return nil
}

func (r *Reader) readText(p []byte) (int, error) {
	for {
		n, err := r.text.Read(p)
		if n > 0 || err == nil {
			return n, nil
		}
		if err != io.EOF {
			return 0, err
		}
		if err := r.more(); err != nil {
			return 0, err
		}
	}
}

func (r *Reader) readByte() (byte, error) {
	for {
		c, err := r.text.ReadByte()
		if err == nil {
			return c, nil
		}
		if err != io.EOF {
			return 0, err
		}
		if err := r.more(); err != nil {
			return 0, err
		}
	}
}

// peekByte returns the next record byte without consuming it, or io.EOF at
// the clean end of the input.
func (r *Reader) peekByte() (byte, error) {
	for {
		b, err := r.text.Peek(1)
		if err == nil {
			return b[0], nil
		}
		if err != io.EOF || !r.gzipped {
			return 0, err
		}
		if err := r.advance(); err != nil {
			return 0, err
		}
	}
}

func (r *Reader) next() error {
	if !r.started {
		if err := r.start(); err != nil {
			return err
		}
	}
	if r.inRecord {
		if err := r.finish(); err != nil {
			return err
		}
	}
	// Tolerate extra blank lines between records.
	for {
		c, err := r.peekByte()
		if err != nil {
			return err
		}
		if c != '\r' && c != '\n' {
			break
		}
		r.text.ReadByte()
	}
	r.offset = r.pos()
	var more func() error
	if r.gzipped {
		r.offset = r.memberStart
		more = r.more
	}
	version, h, err := readHeader(r.text, more)
	if err != nil {
		return err
	}
	n, err := contentLength(h)
	if err != nil {
		return err
	}
	r.version, r.header, r.remaining = version, h, n
	r.inRecord, r.digest, r.verified, r.verifyErr = true, nil, false, nil
	return nil
}

// finish consumes the rest of the current record: block, the CRLF CRLF
// after it and, if the record ends its gzip member, the member trailer.
func (r *Reader) finish() error {
	r.inRecord = false
	for r.remaining > 0 {
		n, err := r.text.Discard(int(min(r.remaining, 1<<20)))
		r.remaining -= int64(n)
		if err == io.EOF {
			err = r.more()
		}
		if err != nil {
			return err
		}
	}
	for range 2 {
		c, err := r.readByte()
		if err == nil && c == '\r' {
			c, err = r.readByte()
		}
		if err != nil {
			return err
		}
		if c != '\n' {
			return fmt.Errorf("%w: block not followed by CRLF CRLF (Content-Length wrong?)", ErrFormat)
		}
	}
	if !r.gzipped {
		r.cleanEnd = r.pos()
		return nil
	}
	// A complete member proves the record was written whole. Peek at the
	// decompressed stream: io.EOF means the member ended here with a good
	// CRC; more data means it holds another record.
	if _, err := r.text.Peek(1); err == io.EOF {
		r.cleanEnd = r.pos()
	} else if err != nil {
		return err
	}
	return nil
}

// blockDigester hashes a block as it is read, for Verify.
type blockDigester struct {
	block       hash.Hash
	blockWant   []byte
	payload     *payloadHasher
	payloadWant []byte
	errs        []error // digests that cannot be checked
}

func newBlockDigester(h Header) *blockDigester {
	d := &blockDigester{}
	if s := h.Get("WARC-Block-Digest"); s != "" {
		newHash, want, err := parseDigest(s)
		if err != nil {
			d.errs = append(d.errs, fmt.Errorf("WARC-Block-Digest: %w", err))
		} else {
			d.block, d.blockWant = newHash(), want
		}
	}
	if s := h.Get("WARC-Payload-Digest"); s != "" && !strings.EqualFold(h.Get("WARC-Type"), TypeRevisit) {
		newHash, want, err := parseDigest(s)
		if err != nil {
			d.errs = append(d.errs, fmt.Errorf("WARC-Payload-Digest: %w", err))
		} else {
			d.payload, d.payloadWant = newPayloadHasher(newHash, isHTTP(h)), want
		}
	}
	return d
}

// isHTTP reports whether a record's block is an HTTP message, whose payload
// is its body; otherwise the payload is the whole block.
func isHTTP(h Header) bool {
	mt, _, _ := strings.Cut(h.Get("Content-Type"), ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/http")
}

func (d *blockDigester) Write(b []byte) {
	if d.block != nil {
		d.block.Write(b)
	}
	if d.payload != nil {
		d.payload.Write(b)
	}
}

func (d *blockDigester) check() error {
	errs := d.errs
	if d.block != nil && !bytes.Equal(d.block.Sum(nil), d.blockWant) {
		errs = append(errs, fmt.Errorf("%w: WARC-Block-Digest", ErrDigestMismatch))
	}
	if d.payload != nil {
		if d.payload.tooLong {
			errs = append(errs, fmt.Errorf("%w: HTTP header: %w", ErrFormat, ErrHeaderTooLong))
		} else if sum, asStored := d.payload.sum(); !bytes.Equal(sum, d.payloadWant) && !bytes.Equal(asStored, d.payloadWant) {
			errs = append(errs, fmt.Errorf("%w: WARC-Payload-Digest", ErrDigestMismatch))
		}
	}
	return errors.Join(errs...)
}
