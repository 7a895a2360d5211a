package warc

import (
	"errors"
	"strings"
	"testing"
)

// TestReadWgetWARC reads testdata/wget/wget-1.21.3.warc.gz, written by GNU
// wget 1.21.3 crawling three pages on loopback (testdata/wget/main.go
// regenerates it), compressed and decompressed: every record parses, every
// digest verifies, and the fields are as wget wrote them.
func TestReadWgetWARC(t *testing.T) {
	data := readFile(t, "testdata/wget/wget-1.21.3.warc.gz")
	inputs := []struct {
		name string
		data []byte
	}{
		{"gzip", data},
		{"plain", gunzip(t, data)},
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			recs := readRecords(t, in.data) // verifies every record
			var types []string
			for _, r := range recs {
				types = append(types, r.Header.Get("WARC-Type"))
				if r.Version != "WARC/1.0" {
					t.Errorf("version %q", r.Version)
				}
				if r.Header.Get("WARC-Block-Digest") == "" {
					t.Errorf("%s record without block digest: nothing was verified", types[len(types)-1])
				}
			}
			want := "warcinfo request response request response request response metadata resource"
			if got := strings.Join(types, " "); got != want {
				t.Fatalf("types %s, want %s", got, want)
			}
			if in.name == "gzip" {
				// wget also writes one gzip member per record.
				for i := 1; i < len(recs); i++ {
					if recs[i].Offset <= recs[i-1].Offset {
						t.Errorf("record %d at offset %d, after %d", i, recs[i].Offset, recs[i-1].Offset)
					}
				}
			}
			// The request and response are linked as we link them.
			if recs[2].Header.Get("WARC-Concurrent-To") != recs[1].Header.Get("WARC-Record-ID") {
				t.Errorf("response not concurrent to its request")
			}
			// hello, world\n: the same digest PayloadDigest gives.
			if got := recs[4].Header.Get("WARC-Payload-Digest"); got != "sha1:ZVINDF4ERFYILKGQ4PSBH6DBFMEXYA7R" {
				t.Errorf("plain.txt payload digest %s", got)
			}
			// wget digests a chunked body with its chunk framing; Verify
			// accepts that, but PayloadDigest follows WARC 1.1 §6.3.2.
			chunked := recs[6]
			if !strings.Contains(string(chunked.Block), "Transfer-Encoding: chunked") {
				t.Fatalf("record 6 is not the chunked response")
			}
			end := httpHeaderEnd(chunked.Block)
			header, body := chunked.Block[:end], chunked.Block[end:]
			if got := chunked.Header.Get("WARC-Payload-Digest"); got != Digest(body) || got == PayloadDigest(header, body) {
				t.Errorf("chunked payload digest %s; as stored %s, de-chunked %s", got, Digest(body), PayloadDigest(header, body))
			}
		})
	}
}

// TestWgetDigestTampered makes sure the wget test above can fail: a changed
// byte in a wget record's body is caught.
func TestWgetDigestTampered(t *testing.T) {
	plain := gunzip(t, readFile(t, "testdata/wget/wget-1.21.3.warc.gz"))
	tampered := []byte(strings.Replace(string(plain), "hello, world", "hello, World", 1))
	_, err := tryReadRecords(tampered)
	if !errors.Is(err, ErrDigestMismatch) {
		t.Errorf("err = %v, want ErrDigestMismatch", err)
	}
}
