package warc

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

// rawRecord renders a plain WARC record by hand, so tests can build records
// the writer would refuse to write. Content-Length is added unless given.
func rawRecord(h Header, block string) []byte {
	var b bytes.Buffer
	b.WriteString("WARC/1.1\r\n")
	for _, f := range h {
		b.WriteString(f.Name + ": " + f.Value + "\r\n")
	}
	if h.Get("Content-Length") == "" {
		b.WriteString("Content-Length: " + strconv.Itoa(len(block)) + "\r\n")
	}
	b.WriteString("\r\n" + block + "\r\n\r\n")
	return b.Bytes()
}

func resource(block string, more ...Field) []byte {
	h := Header{{"WARC-Type", "resource"}, {"WARC-Record-ID", NewRecordID()}, {"WARC-Date", "2026-11-21T12:00:00Z"}}
	return rawRecord(append(h, more...), block)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestReaderMalformed(t *testing.T) {
	good := resource("ok")
	tests := []struct {
		name string
		in   []byte
		want error // besides ErrFormat, which every case must match
	}{
		{"not a WARC", []byte("HTTP/1.1 200 OK\r\n\r\n"), nil},
		{"version line too long", []byte("WARC/1.1.1.1.1.1.1.1\r\n\r\n"), nil},
		{"no Content-Length", []byte("WARC/1.1\r\nWARC-Type: resource\r\n\r\n\r\n\r\n"), nil},
		{"negative Content-Length", rawRecord(Header{{"Content-Length", "-1"}}, ""), nil},
		{"Content-Length not a number", rawRecord(Header{{"Content-Length", "12a"}}, ""), nil},
		{"Content-Length overflows", rawRecord(Header{{"Content-Length", "99999999999999999999"}}, ""), nil},
		{"field without colon", []byte("WARC/1.1\r\nWARC-Type resource\r\n\r\n"), nil},
		{"empty field name", []byte("WARC/1.1\r\n: x\r\n\r\n"), nil},
		{"continuation before any field", []byte("WARC/1.1\r\n folded\r\n\r\n"), nil},
		{"header over 64 KiB", []byte("WARC/1.1\r\nX: " + strings.Repeat("a", MaxHeaderSize) + "\r\n\r\n"), ErrHeaderTooLong},
		{"header of many short lines over 64 KiB", []byte("WARC/1.1\r\n" + strings.Repeat("X: y\r\n", MaxHeaderSize/6+1) + "\r\n"), ErrHeaderTooLong},
		{"header cut short", []byte("WARC/1.1\r\nWARC-Type: resource\r\n"), io.ErrUnexpectedEOF},
		{"block cut short", []byte("WARC/1.1\r\nContent-Length: 10\r\n\r\nabcde"), io.ErrUnexpectedEOF},
		{"end marker cut short", []byte("WARC/1.1\r\nContent-Length: 2\r\n\r\nok\r\n"), io.ErrUnexpectedEOF},
		{"Content-Length too small", []byte("WARC/1.1\r\nContent-Length: 1\r\n\r\nok\r\n\r\n"), nil},
		{"garbage after a good record", cat(good, []byte("garbage")), nil},
	}
	for _, tt := range tests {
		for _, gz := range []bool{false, true} {
			in, name := tt.in, tt.name
			if gz {
				in, name = gzipBytes(t, in), name+"/gzip"
			}
			t.Run(name, func(t *testing.T) {
				_, err := tryReadRecords(in)
				if !errors.Is(err, ErrFormat) || tt.want != nil && !errors.Is(err, tt.want) {
					t.Fatalf("err = %v, want ErrFormat and %v", err, tt.want)
				}
				// Errors are sticky.
				r := NewReader(bytes.NewReader(in))
				var first error
				for first == nil {
					_, first = r.Next()
				}
				if _, err := r.Next(); err != first {
					t.Errorf("second Next: %v, want %v again", err, first)
				}
			})
		}
	}
}

func TestReaderGzipDamage(t *testing.T) {
	one := gzipBytes(t, resource("first"))
	two := gzipBytes(t, resource("second"))
	badCRC := append([]byte(nil), two...)
	badCRC[len(badCRC)-6] ^= 0xff // inside the CRC-32 of the trailer
	tests := []struct {
		name  string
		in    []byte
		nread int // records read before the error
	}{
		{"member cut short", cat(one, two[:len(two)-20]), 1},
		// The record's bytes are all there; the damaged trailer shows at
		// the next Next (Repair checks it before trusting the record).
		{"member trailer cut short", cat(one, two[:len(two)-5]), 2},
		{"bad CRC", cat(one, badCRC), 2},
		{"plain bytes after the members", cat(one, []byte("WARC/1.1\r\n")), 1},
		{"zeros after the members (crash on ext4)", cat(one, make([]byte, 512)), 1},
		{"bad deflate data", cat(one, two[:12], bytes.Repeat([]byte{0xff}, 40)), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := tryReadRecords(tt.in)
			if !errors.Is(err, ErrFormat) || len(recs) != tt.nread {
				t.Errorf("read %d records, err %v; want %d and ErrFormat", len(recs), err, tt.nread)
			}
		})
	}
}

// TestReaderVariants reads what other writers produce: WARC/1.0, folded
// fields, bare LF line ends, blank lines between records, records split
// over gzip members or sharing one.
func TestReaderVariants(t *testing.T) {
	a, b := resource("alpha"), resource("beta")
	tests := []struct {
		name    string
		in      []byte
		blocks  []string
		offsets []int64
	}{
		{"empty input", nil, nil, nil},
		{"plain", cat(a, b), []string{"alpha", "beta"}, []int64{0, int64(len(a))}},
		{"blank lines between records", cat(a, []byte("\r\n\n"), b), []string{"alpha", "beta"}, []int64{0, int64(len(a)) + 3}},
		{"bare LF line ends", []byte("WARC/1.0\nWARC-Type: resource\nContent-Length: 5\n\nalpha\n\n"), []string{"alpha"}, []int64{0}},
		{"folded field", []byte("WARC/1.0\r\nWARC-Type: resource\r\nX-Long: one\r\n  two\r\nContent-Length: 5\r\n\r\nalpha\r\n\r\n"), []string{"alpha"}, []int64{0}},
		{"one member per record", cat(gzipBytes(t, a), gzipBytes(t, b)), []string{"alpha", "beta"}, []int64{0, int64(len(gzipBytes(t, a)))}},
		{"two records in one member", gzipBytes(t, cat(a, b)), []string{"alpha", "beta"}, []int64{0, 0}},
		{"record split over three members", cat(gzipBytes(t, a[:7]), gzipBytes(t, a[7:len(a)-3]), gzipBytes(t, a[len(a)-3:]), gzipBytes(t, b)),
			[]string{"alpha", "beta"}, []int64{0, int64(len(gzipBytes(t, a[:7])) + len(gzipBytes(t, a[7:len(a)-3])) + len(gzipBytes(t, a[len(a)-3:])))}},
		{"empty member between records", cat(gzipBytes(t, a), gzipBytes(t, nil), gzipBytes(t, b)), []string{"alpha", "beta"}, []int64{0, int64(len(gzipBytes(t, a)) + len(gzipBytes(t, nil)))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := readRecords(t, tt.in)
			if len(recs) != len(tt.blocks) {
				t.Fatalf("read %d records, want %d", len(recs), len(tt.blocks))
			}
			for i, r := range recs {
				if string(r.Block) != tt.blocks[i] || r.Offset != tt.offsets[i] {
					t.Errorf("record %d: block %q at %d, want %q at %d", i, r.Block, r.Offset, tt.blocks[i], tt.offsets[i])
				}
			}
		})
	}
	t.Run("folded value", func(t *testing.T) {
		r := NewReader(bytes.NewReader(tests[4].in))
		h, err := r.Next()
		if err != nil || h.Get("X-Long") != "one two" || r.Version() != "WARC/1.0" {
			t.Errorf("X-Long = %q, version %q, err %v", h.Get("X-Long"), r.Version(), err)
		}
	})
}

func TestVerify(t *testing.T) {
	body := "hello, world\n"
	hdr := string(httpResponse("Content-Length: 13"))
	te := string(httpResponse("Transfer-Encoding: chunked"))
	chunked := string(chunk("chunk 0\n", "chunk 1\n", "chunk 2\n"))
	resp := func(block string, fields ...Field) []byte {
		h := Header{{"WARC-Type", "response"}, {"Content-Type", "application/http;msgtype=response"}}
		return rawRecord(append(h, fields...), block)
	}
	tests := []struct {
		name string
		rec  []byte
		want error // nil: verifies
	}{
		{"good response", resp(hdr+body, Field{"WARC-Block-Digest", Digest([]byte(hdr + body))}, Field{"WARC-Payload-Digest", Digest([]byte(body))}), nil},
		{"no digests", resp(hdr + body), nil},
		{"hex digests", resp(hdr+body, Field{"WARC-Block-Digest", "sha1:" + hexSHA1(hdr+body)}, Field{"WARC-Payload-Digest", "sha1:" + hexSHA1(body)}), nil},
		{"block digest wrong", resp(hdr+body, Field{"WARC-Block-Digest", Digest([]byte(hdr + "hello, World\n"))}), ErrDigestMismatch},
		{"payload digest wrong", resp(hdr+body, Field{"WARC-Payload-Digest", Digest([]byte(hdr + body))}), ErrDigestMismatch},
		{"chunked, de-chunked digest", resp(te+chunked, Field{"WARC-Payload-Digest", "sha1:UKX4VO7UCBL2TZHVGGWRN6UAG7TOHDZF"}), nil},
		{"chunked, digest over the chunks (wget, warcio)", resp(te+chunked, Field{"WARC-Payload-Digest", "sha1:QHC5BYFYQD3JQQS7RPK6L45TFXKFJU5Q"}), nil},
		{"chunked, digest over the whole block", resp(te+chunked, Field{"WARC-Payload-Digest", Digest([]byte(te + chunked))}), ErrDigestMismatch},
		{"revisit payload digest is the original's", rawRecord(Header{{"WARC-Type", "revisit"}, {"Content-Type", "application/http;msgtype=response"},
			{"WARC-Payload-Digest", Digest([]byte("other"))}}, hdr), nil},
		{"resource payload is the block", resource(body, Field{"WARC-Payload-Digest", Digest([]byte(body))}), nil},
		{"unknown algorithm", resource(body, Field{"WARC-Block-Digest", "xxh64:abcd"}), ErrUnsupportedDigest},
		{"HTTP header over 64 KiB", resp("HTTP/1.1 200 OK\r\nX: "+strings.Repeat("a", MaxHeaderSize)+"\r\n\r\n", Field{"WARC-Payload-Digest", Digest(nil)}), ErrHeaderTooLong},
		{"HTTP block without empty line: empty payload", resp("HTTP/1.1 200 OK\r\n", Field{"WARC-Payload-Digest", Digest(nil)}), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, readFirst := range []int{0, 1, 20} {
				r := NewReader(bytes.NewReader(cat(tt.rec, resource("next"))))
				if _, err := r.Next(); err != nil {
					t.Fatal(err)
				}
				io.ReadFull(r, make([]byte, readFirst)) // Verify after a partial Read
				err := r.Verify()
				if tt.want == nil && err != nil || !errors.Is(err, tt.want) {
					t.Fatalf("after reading %d bytes: Verify = %v, want %v", readFirst, err, tt.want)
				}
				if again := r.Verify(); again != err {
					t.Errorf("second Verify = %v, first %v", again, err)
				}
				// A mismatch does not stop the reader.
				if _, err := r.Next(); err != nil {
					t.Fatalf("Next after Verify: %v", err)
				}
				if b, _ := io.ReadAll(r); string(b) != "next" {
					t.Errorf("next block %q", b)
				}
			}
		})
	}
	t.Run("before Next", func(t *testing.T) {
		if err := NewReader(bytes.NewReader(nil)).Verify(); err == nil {
			t.Error("Verify without a record succeeded")
		}
	})
}

func hexSHA1(s string) string {
	_, sum, _ := parseDigest(Digest([]byte(s)))
	const digits = "0123456789abcdef"
	var b strings.Builder
	for _, c := range sum {
		b.WriteByte(digits[c>>4])
		b.WriteByte(digits[c&15])
	}
	return b.String()
}

// TestReadPlainOfWritten reads the writer's output decompressed, as a
// plain .warc: same records, same blocks.
func TestReadPlainOfWritten(t *testing.T) {
	w, dir := newTestWriter(t, WriterConfig{})
	writeExchange(t, w)
	w.Close()
	data := readFile(t, warcFiles(t, dir)[0])
	gz, plain := readRecords(t, data), readRecords(t, gunzip(t, data))
	if len(gz) != len(plain) {
		t.Fatalf("%d records compressed, %d plain", len(gz), len(plain))
	}
	for i := range gz {
		if !bytes.Equal(gz[i].Block, plain[i].Block) || gz[i].Header.Get("WARC-Record-ID") != plain[i].Header.Get("WARC-Record-ID") {
			t.Errorf("record %d differs", i)
		}
	}
}

// errReader fails after n bytes.
type errReader struct {
	r io.Reader
	n int
}

var errDisk = errors.New("disk on fire")

func (e *errReader) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, errDisk
	}
	p = p[:min(len(p), e.n)]
	n, err := e.r.Read(p)
	e.n -= n
	return n, err
}

// TestReaderIOError checks that an error of the underlying reader comes
// back as itself, not as malformed data (Repair relies on the difference).
func TestReaderIOError(t *testing.T) {
	data := cat(resource("alpha"), resource("beta"))
	for _, gz := range []bool{false, true} {
		in := data
		if gz {
			in = gzipBytes(t, data)
		}
		for _, n := range []int{0, 5, len(in) / 2, len(in) - 3} {
			r := NewReader(&errReader{bytes.NewReader(in), n})
			var err error
			for err == nil {
				if _, err = r.Next(); err == nil {
					_, err = io.ReadAll(r)
				}
			}
			if !errors.Is(err, errDisk) || errors.Is(err, ErrFormat) {
				t.Errorf("gzip %v, fail after %d: %v, want the disk error", gz, n, err)
			}
		}
	}
}
