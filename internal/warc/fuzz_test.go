package warc

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http/httputil"
	"os"
	"testing"
)

// readerSeeds are the starting corpus of FuzzReader: the first records of
// files from the writer and from wget, and the malformed shapes the unit
// tests use. They are kept to a few hundred bytes: the fuzzer minimizes
// every input that finds new code, for up to a minute each, in time that
// grows with the input's length.
func readerSeeds(f *testing.F) [][]byte {
	w, dir := newTestWriter(f, WriterConfig{})
	_, locs := writeExchange(f, w)
	w.Close()
	ours := readFile(f, warcFiles(f, dir)[0])
	chunked := ours[locs[3].Offset : locs[3].Offset+locs[3].Length]
	wget, err := os.ReadFile("testdata/wget/wget-1.21.3.warc.gz")
	if err != nil {
		f.Fatal(err)
	}
	wgetRecs := readRecords(f, wget)
	wget = wget[wgetRecs[3].Offset:wgetRecs[5].Offset] // a request and its response
	return [][]byte{
		chunked, gunzip(f, chunked), wget, gunzip(f, wget),
		resource("x", Field{"WARC-Block-Digest", Digest([]byte("x"))}),
		[]byte("WARC/1.1\r\nContent-Length: 10\r\n\r\nabc"),
		[]byte("WARC/1.0\nA: b\n  c\nContent-Length: 1\n\nx\n\n\r\n"),
		rawRecord(Header{{"WARC-Type", "response"}, {"Content-Type", "application/http"},
			{"WARC-Payload-Digest", "sha1:UKX4VO7UCBL2TZHVGGWRN6UAG7TOHDZF"}},
			string(httpResponse("Transfer-Encoding: chunked"))+string(chunk("chunk 0\n", "chunk 1\n", "chunk 2\n"))),
	}
}

// FuzzReader feeds arbitrary bytes to the reader, as they are (plain, or
// damaged gzip when they start with the gzip magic) and wrapped in a valid
// gzip member. The reader must not panic, must keep its promises about
// block lengths and offsets, and must stay within bounded memory (headers
// are capped; blocks are streamed in small reads).
func FuzzReader(f *testing.F) {
	for _, s := range readerSeeds(f) {
		f.Add(s, false)
		f.Add(s, true)
	}
	// One gzip.Writer for all runs: a new one allocates about 1 MB, which
	// would dominate the run time. Runs within a worker are sequential.
	var wrapped bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&wrapped, gzip.BestSpeed)
	f.Fuzz(func(t *testing.T, data []byte, wrap bool) {
		if wrap {
			wrapped.Reset()
			zw.Reset(&wrapped)
			zw.Write(data)
			zw.Close()
			data = wrapped.Bytes()
		}
		r := NewReader(bytes.NewReader(data))
		last := int64(-1)
		buf := make([]byte, 512)
		for i := 0; i < 1000; i++ {
			h, err := r.Next()
			if err != nil {
				if err != io.EOF && !errors.Is(err, ErrFormat) {
					t.Fatalf("Next: unexpected error class: %v", err)
				}
				if h, again := r.Next(); h != nil || again != err {
					t.Fatalf("Next after %v: %v, %v; errors must be sticky", err, h, again)
				}
				return
			}
			if r.Offset() < last || r.Offset() > int64(len(data)) {
				t.Fatalf("offset %d after %d (input %d bytes)", r.Offset(), last, len(data))
			}
			last = r.Offset()
			want, err := contentLength(h)
			if err != nil {
				t.Fatalf("Next returned a header without a valid Content-Length: %v", err)
			}
			// Read a little, then let Verify consume the rest; on odd
			// records skip the block entirely.
			var n int64
			if i%2 == 0 {
				m, _ := io.ReadFull(r, buf[:min(len(buf), i*7)])
				n += int64(m)
				if err := r.Verify(); err != nil && !errors.Is(err, ErrFormat) &&
					!errors.Is(err, ErrDigestMismatch) && !errors.Is(err, ErrUnsupportedDigest) {
					t.Fatalf("Verify: unexpected error class: %v", err)
				}
				if m, err := r.Read(buf); m != 0 || err == nil {
					t.Fatalf("Read after Verify: %d, %v", m, err)
				}
				if n > want {
					t.Fatalf("read %d bytes of a %d-byte block", n, want)
				}
			}
		}
	})
}

// FuzzDechunk checks the streaming chunk decoder against net/http's: on
// every input Go's decoder reads to its end, ours gives the same bytes and
// does not fall back to the raw body. The input is pushed in two pieces
// split at an arbitrary point, since the decoder is fed by reads.
func FuzzDechunk(f *testing.F) {
	f.Add([]byte("8\r\nchunk 0\n\r\n0\r\n\r\n"), uint16(3))
	f.Add(chunk("a", "bb", "ccc"), uint16(5))
	f.Add([]byte("0001;ext=1\r\nx\r\n0\r\nTrailer: y\r\n\r\n"), uint16(0))
	f.Add([]byte("1 \r\nx\r\n0\r\n"), uint16(2))
	f.Fuzz(func(t *testing.T, in []byte, split uint16) {
		var got bytes.Buffer
		d := &dechunker{out: &got}
		s := min(int(split), len(in))
		d.Write(in[:s])
		d.Write(in[s:])
		want, err := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(in)))
		if err != nil {
			return // Go rejects it; ours may be more lenient
		}
		if d.bad || !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("bad=%v, decoded %q; net/http decoded %q", d.bad, got.Bytes(), want)
		}
	})
}
