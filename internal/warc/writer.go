package warc

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
)

// ErrClosed is returned by writes to a closed Writer.
var ErrClosed = errors.New("warc: writer closed")

// WriterConfig configures a Writer. The zero value writes files named
// freshcrawl-YYYYMMDDhhmmss-00000.warc.gz of about 1 GB in the current
// directory at the default gzip level.
type WriterConfig struct {
	// Dir is where WARC files go; it is created if missing. Empty means
	// the current directory.
	Dir string
	// Prefix starts each file name, PREFIX-YYYYMMDDhhmmss-SEQ.warc.gz
	// (UTC time the file was opened, SEQ counting files from 00000). Empty
	// means "freshcrawl".
	Prefix string
	// MaxFileSize is the size in bytes at which a file is finished: the
	// next record starts a new file. A file exceeds it by at most one
	// record. Zero means 10^9 (1 GB, the size the WARC specification
	// recommends); negative means no limit.
	MaxFileSize int64
	// Compression is the gzip level. Zero means gzip.DefaultCompression
	// (6, as wget and Heritrix use); otherwise gzip.BestSpeed to
	// gzip.BestCompression or gzip.HuffmanOnly. On rustdoc HTML pages on
	// the 2-core dev machine, level 6 compressed 7.6x at 69 MB/s and level
	// 1 6.0x at 155 MB/s; records are compressed one at a time.
	Compression int
	// Info holds fields for the warcinfo record at the head of each file,
	// such as operator, hostname, http-header-user-agent or robots.
	// "software: freshcrawl", "format" and "conformsTo" are added unless
	// Info sets them.
	Info Header
	// Buffer, if positive, holds up to that many bytes of records in
	// memory before they are written to the file in one write; Sync,
	// Flush and Close write them first. Zero writes each record as it
	// comes, so that a reader of the file sees it at once. (The crawler
	// syncs every batch of records before the state that points to them,
	// so it loses nothing to a buffer, and saves two write calls a page.)
	Buffer int
	// Now is the clock for file names and for records whose Date is zero.
	// Nil means time.Now. The Encode methods call it without holding the
	// writer's lock, so it must be safe for concurrent use.
	Now func() time.Time
}

// Location says where a record was written: File, the base name of a file
// in WriterConfig.Dir, and the Offset and compressed Length of the gzip
// member holding the record. A reader that seeks to Offset and reads
// Length bytes gets exactly that record; this is what a CDX index stores.
type Location struct {
	File     string
	Offset   int64
	Length   int64
	RecordID string
}

// Writer appends records to WARC files, one gzip member per record, so
// each record can be read alone from its offset. It starts a new file when
// one reaches MaxFileSize, with a warcinfo record first; every record
// carries the WARC-Warcinfo-ID of its file's warcinfo.
//
// Durability: each write returns only after the whole gzip member has been
// handed to the operating system in a single write(2), so once it returns
// the record survives a crash of the process (kill -9); Sync makes it
// survive a crash of the machine. The crawler writes the record, calls
// Sync when it commits a batch, and only then marks pages fetched. A write
// that fails part-way is cut off again, so the file stays readable; if even
// that fails, the Writer refuses further writes and Repair fixes the file
// on the next start.
//
// A Writer is safe for concurrent use; writes are serialised.
type Writer struct {
	cfg WriterConfig

	mu        sync.Mutex
	f         *os.File
	name      string
	size      int64
	seq       int
	infoID    string
	dirSynced bool
	err       error // sticky: the current file may hold a torn member
	closed    bool

	enc     *encoder // for writes under mu
	scratch []byte   // the member of the last write under mu
	// pending holds the buffered records (WriterConfig.Buffer), the last
	// len(pending) bytes of size.
	pending []byte

	pool    sync.Pool // of *encoder, for Encode
	members sync.Pool // of *[]byte: buffers of Encoded members (encode.go)
}

// NewWriter checks cfg, creates cfg.Dir if needed and returns a Writer.
// The first file is created by the first write, so a crawler that writes
// nothing leaves no file behind.
func NewWriter(cfg WriterConfig) (*Writer, error) {
	if cfg.Dir == "" {
		cfg.Dir = "."
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "freshcrawl"
	}
	if filepath.Base(cfg.Prefix) != cfg.Prefix {
		return nil, fmt.Errorf("warc: prefix %q must not contain a path separator", cfg.Prefix)
	}
	if cfg.MaxFileSize == 0 {
		cfg.MaxFileSize = 1e9
	}
	if cfg.Compression == 0 {
		cfg.Compression = gzip.DefaultCompression
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if err := cfg.Info.check(); err != nil {
		return nil, fmt.Errorf("warc: Info: %w", err)
	}
	zw, err := gzip.NewWriterLevel(nil, cfg.Compression)
	if err != nil {
		return nil, fmt.Errorf("warc: %w", err)
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("warc: %w", err)
	}
	w := &Writer{cfg: cfg, enc: &encoder{zw: zw}}
	w.pool.New = func() any {
		zw, _ := gzip.NewWriterLevel(nil, cfg.Compression) // level checked above
		return &encoder{zw: zw}
	}
	return w, nil
}

// WriteResponse writes a response record (see Response) and returns where
// it went.
func (w *Writer) WriteResponse(r Response) (Location, error) {
	h, err := r.record()
	if err != nil {
		return Location{}, err
	}
	return w.write(h, r.HTTPHeader, r.Body)
}

// WriteRequest writes a request record (see Request).
func (w *Writer) WriteRequest(r Request) (Location, error) {
	h, err := r.record()
	if err != nil {
		return Location{}, err
	}
	return w.write(h, r.HTTPHeader, r.Body)
}

// WriteRevisit writes a revisit record (see Revisit).
func (w *Writer) WriteRevisit(r Revisit) (Location, error) {
	h, err := r.record()
	if err != nil {
		return Location{}, err
	}
	return w.write(h, r.HTTPHeader)
}

// WriteMetadata writes a metadata record (see Metadata).
func (w *Writer) WriteMetadata(m Metadata) (Location, error) {
	h, err := m.record()
	if err != nil {
		return Location{}, err
	}
	return w.write(h, m.Block)
}

// WriteRecord writes a record of any type with the given header and block.
// h must have WARC-Type. The writer adds WARC-Record-ID and WARC-Date if
// missing, WARC-Block-Digest if missing, and sets WARC-Warcinfo-ID and
// Content-Length; h itself is not modified. Like every write, it returns
// after the record's gzip member is complete and written to the operating
// system (see Writer).
func (w *Writer) WriteRecord(h Header, block []byte) (Location, error) {
	if h.Get("WARC-Type") == "" {
		return Location{}, errors.New("warc: record without WARC-Type")
	}
	return w.write(append(Header(nil), h...), block)
}

// write completes h, compresses the record into one gzip member and appends
// it to the current file, opening or rotating files as needed.
func (w *Writer) write(h Header, block ...[]byte) (Location, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return Location{}, ErrClosed
	}
	if w.err != nil {
		return Location{}, w.err
	}
	if err := w.ready(); err != nil {
		return Location{}, err
	}
	if h.Get("WARC-Type") != TypeWarcinfo {
		h.Set("WARC-Warcinfo-ID", w.infoID)
	}
	return w.writeMember(h, block)
}

// ready makes sure a file is open with room for the next record, rotating
// if the current one is full. The caller holds w.mu.
func (w *Writer) ready() error {
	if w.f != nil && w.cfg.MaxFileSize > 0 && w.size >= w.cfg.MaxFileSize {
		if err := w.finishFile(); err != nil {
			return err
		}
	}
	if w.f == nil {
		return w.openFile()
	}
	return nil
}

// writeMember fills in the computed fields and appends the record as one
// gzip member. The caller holds w.mu and has an open file.
func (w *Writer) writeMember(h Header, block [][]byte) (Location, error) {
	if err := w.complete(&h, block); err != nil {
		return Location{}, err
	}
	return w.appendMember(w.compressLocked(h, block), h.Get("WARC-Record-ID"))
}

// compressLocked compresses a completed record with the writer's own
// encoder and returns the member, valid until the next call. The caller
// holds w.mu.
func (w *Writer) compressLocked(h Header, block [][]byte) []byte {
	w.scratch = w.enc.member(w.scratch[:0], h, block, worthCompressing(h, block))
	return w.scratch
}

// complete fills in the fields the writer computes: WARC-Record-ID and
// WARC-Date if missing, WARC-Block-Digest if missing, Content-Length.
func (w *Writer) complete(h *Header, block [][]byte) error {
	if h.Get("WARC-Record-ID") == "" {
		h.Set("WARC-Record-ID", NewRecordID())
	}
	if h.Get("WARC-Date") == "" {
		h.Set("WARC-Date", FormatDate(w.cfg.Now()))
	}
	var n int64
	for _, b := range block {
		n += int64(len(b))
	}
	if h.Get("WARC-Block-Digest") == "" {
		d := sha1.New()
		for _, b := range block {
			d.Write(b)
		}
		var sum [sha1.Size]byte
		h.Set("WARC-Block-Digest", formatSHA1(d.Sum(sum[:0])))
	}
	h.Set("Content-Length", strconv.FormatInt(n, 10))
	return h.check()
}

// minCompress is the block size under which a record is stored in its gzip
// member without compression: a gzip stream at any level but 0 begins by
// building Huffman tables, which for a request record of a few hundred
// bytes costs more than the bytes it saves.
const minCompress = 1024

// worthCompressing reports whether a record's gzip member should compress
// it, or only store it (gzip level 0, still a valid member every reader
// takes). Small records are stored, and so are responses and revisits
// whose payload has a Content-Encoding already: gzip over gzip costs CPU
// and saves nothing.
func worthCompressing(h Header, block [][]byte) bool {
	n := 0
	for _, b := range block {
		n += len(b)
	}
	if n < minCompress {
		return false
	}
	switch h.Get("WARC-Type") {
	case TypeResponse, TypeRevisit:
		return len(block) == 0 || !contentEncoded(block[0])
	}
	return true
}

// contentEncoded reports whether an HTTP header block declares a content
// coding other than identity.
func contentEncoded(httpHeader []byte) bool {
	end := httpHeaderEnd(httpHeader)
	if end < 0 {
		end = len(httpHeader)
	}
	const name = "content-encoding:"
	for rest := httpHeader[:end]; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if len(line) > len(name) && bytes.EqualFold(line[:len(name)], []byte(name)) {
			v := bytes.TrimSpace(line[len(name):])
			return len(v) > 0 && !bytes.EqualFold(v, []byte("identity"))
		}
	}
	return false
}

// appendMember appends one complete gzip member to the current file. The
// caller holds w.mu and has an open file.
func (w *Writer) appendMember(member []byte, id string) (Location, error) {
	loc := Location{File: w.name, Offset: w.size, Length: int64(len(member)), RecordID: id}
	if w.cfg.Buffer > 0 {
		w.pending = append(w.pending, member...)
		w.size += loc.Length
		if len(w.pending) >= w.cfg.Buffer {
			return loc, w.flushLocked()
		}
		return loc, nil
	}
	if _, err := w.f.Write(member); err != nil {
		err = fmt.Errorf("warc: write %s: %w", w.name, err)
		// Cut the torn member off so the file stays readable.
		if terr := w.f.Truncate(w.size); terr != nil {
			w.err = fmt.Errorf("%w (and truncating it: %v)", err, terr)
			return Location{}, w.err
		}
		if _, serr := w.f.Seek(w.size, 0); serr != nil {
			w.err = fmt.Errorf("%w (and seeking back: %v)", err, serr)
			return Location{}, w.err
		}
		return Location{}, err
	}
	w.size += loc.Length
	return loc, nil
}

// openFile creates the next file and writes its warcinfo record.
func (w *Writer) openFile() error {
	stamp := w.cfg.Now().UTC().Format("20060102150405")
	for tries := 0; ; tries++ {
		name := fmt.Sprintf("%s-%s-%05d.warc.gz", w.cfg.Prefix, stamp, w.seq)
		w.seq++
		f, err := os.OpenFile(filepath.Join(w.cfg.Dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) && tries < 1000 {
			continue // another writer, or an earlier run in the same second
		}
		if err != nil {
			return fmt.Errorf("warc: %w", err)
		}
		w.f, w.name, w.size, w.dirSynced = f, name, 0, false
		break
	}
	w.infoID = NewRecordID()
	h := Header{
		{"WARC-Type", TypeWarcinfo},
		{"WARC-Record-ID", w.infoID},
		{"WARC-Date", FormatDate(w.cfg.Now())},
		{"WARC-Filename", w.name},
		{"Content-Type", contentWarcFields},
	}
	if _, err := w.writeMember(h, [][]byte{w.infoBlock()}); err != nil {
		w.f.Close()
		os.Remove(filepath.Join(w.cfg.Dir, w.name))
		w.f, w.err = nil, nil
		return err
	}
	return nil
}

// infoBlock is the application/warc-fields block of the warcinfo record.
func (w *Writer) infoBlock() []byte {
	var b []byte
	add := func(name, value string) {
		b = append(b, name...)
		b = append(b, ": "...)
		b = append(b, value...)
		b = append(b, "\r\n"...)
	}
	defaults := []Field{
		{"software", "freshcrawl"},
		{"format", "WARC File Format 1.1"},
		{"conformsTo", "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"},
	}
	for _, f := range defaults {
		if w.cfg.Info.Get(f.Name) == "" {
			add(f.Name, f.Value)
		}
	}
	for _, f := range w.cfg.Info {
		add(f.Name, f.Value)
	}
	return b
}

// finishFile syncs and closes the current file.
func (w *Writer) finishFile() error {
	err := w.sync()
	if cerr := w.f.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("warc: close %s: %w", w.name, cerr)
	}
	w.f = nil
	return err
}

// flushLocked writes the buffered records. A failed write leaves the
// writer broken (sticky error): the records it held, whose locations
// were returned, are lost, and the file is cut back to the last whole
// record written. The caller holds w.mu.
func (w *Writer) flushLocked() error {
	if len(w.pending) == 0 || w.f == nil {
		return nil
	}
	start := w.size - int64(len(w.pending))
	if _, err := w.f.Write(w.pending); err != nil {
		w.err = fmt.Errorf("warc: write %s: %w", w.name, err)
		if terr := w.f.Truncate(start); terr != nil {
			w.err = fmt.Errorf("%w (and truncating it: %v)", w.err, terr)
		}
		return w.err
	}
	w.pending = w.pending[:0]
	return nil
}

// Flush writes the buffered records to the file, without syncing it.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

// Sync commits the current file to stable storage (fsync), and on the first
// Sync of a file also its directory entry, so the file survives a machine
// crash. Buffered records are written first.
func (w *Writer) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	return w.sync()
}

func (w *Writer) sync() error {
	if err := w.flushLocked(); err != nil {
		return err
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("warc: sync %s: %w", w.name, err)
	}
	if !w.dirSynced {
		d, err := os.Open(w.cfg.Dir)
		if err != nil {
			return fmt.Errorf("warc: sync %s: %w", w.cfg.Dir, err)
		}
		err = d.Sync()
		d.Close()
		if err != nil {
			return fmt.Errorf("warc: sync %s: %w", w.cfg.Dir, err)
		}
		w.dirSynced = true
	}
	return nil
}

// File returns the base name of the file being written, or "" before the
// first write and after Close.
func (w *Writer) File() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return ""
	}
	return w.name
}

// Close syncs and closes the current file. Later writes return ErrClosed.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if w.f == nil {
		return nil
	}
	return w.finishFile()
}
