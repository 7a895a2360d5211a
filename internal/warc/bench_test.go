package warc

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"testing"
)

// htmlBody returns n bytes of HTML shaped like rustdoc pages: repeated
// markup around Zipf-distributed words from 5,000 made-up ones. It
// compresses like them too: 7.2x with gzip -6, against 7.6x for 400
// rustdoc pages of the Rust standard library (deflate's speed depends on
// the text; a small vocabulary makes level 6 several times slower).
func htmlBody(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 5000)
	for i := range vocab {
		w := make([]byte, 2+rng.IntN(9))
		for j := range w {
			w[j] = byte('a' + rng.IntN(26))
		}
		vocab[i] = string(w)
	}
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(vocab)-1))
	var b bytes.Buffer
	b.WriteString("<!doctype html><html><head><title>bench</title></head><body>\n")
	for b.Len() < n {
		b.WriteString(`<details class="toggle method-toggle" open><summary><section id="method.`)
		b.WriteString(vocab[zipf.Uint64()])
		b.WriteString(`" class="method"><h4 class="code-header">pub fn <a href="#method.x" class="fn">`)
		b.WriteString(vocab[zipf.Uint64()])
		b.WriteString("</a>(&amp;self) -&gt; <a class=\"struct\" href=\"struct.")
		w := vocab[zipf.Uint64()]
		fmt.Fprintf(&b, "%s.html\" title=\"struct %s\">%s</a></h4></section></summary><div class=\"docblock\"><p>", w, w, w)
		for range 8 + rng.IntN(20) {
			b.WriteString(vocab[zipf.Uint64()])
			b.WriteByte(' ')
		}
		b.WriteString("</p></div></details>\n")
	}
	return b.Bytes()[:n]
}

// BenchmarkWriteResponse writes response records of typical page sizes to a
// file on tmpfs (or the temporary directory), at the default and the
// fastest gzip level. MB/s counts the HTTP header and body.
func BenchmarkWriteResponse(b *testing.B) {
	for _, size := range []int{10 << 10, 100 << 10} {
		for _, level := range []int{gzip.DefaultCompression, gzip.BestSpeed} {
			b.Run(fmt.Sprintf("body=%dKiB/level=%d", size>>10, level), func(b *testing.B) {
				body := htmlBody(size)
				header := httpResponse("Content-Type: text/html", "Content-Length: "+strconv.Itoa(len(body)))
				w, _ := newTestWriter(b, WriterConfig{Compression: level, MaxFileSize: -1})
				defer w.Close()
				resp := Response{TargetURI: "http://example.com/page", HTTPHeader: header, Body: body}
				b.SetBytes(int64(len(header) + len(body)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := w.WriteResponse(resp); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkRead reads a .warc.gz of 100 responses of 10 KiB, block by
// block, with and without digest verification.
func BenchmarkRead(b *testing.B) {
	w, dir := newTestWriter(b, WriterConfig{})
	body := htmlBody(10 << 10)
	header := httpResponse("Content-Type: text/html", "Transfer-Encoding: chunked")
	chunked := chunk(string(body[:4000]), string(body[4000:]))
	var total int64
	for range 100 {
		if _, err := w.WriteResponse(Response{TargetURI: "http://example.com/", HTTPHeader: header, Body: chunked}); err != nil {
			b.Fatal(err)
		}
		total += int64(len(header) + len(chunked))
	}
	w.Close()
	data := readFile(b, warcFiles(b, dir)[0])
	for _, verify := range []bool{false, true} {
		b.Run("verify="+strconv.FormatBool(verify), func(b *testing.B) {
			b.SetBytes(total)
			b.ReportAllocs()
			for b.Loop() {
				r := NewReader(bytes.NewReader(data))
				for {
					if _, err := r.Next(); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
					var err error
					if verify {
						err = r.Verify()
					} else {
						_, err = io.Copy(io.Discard, r)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
