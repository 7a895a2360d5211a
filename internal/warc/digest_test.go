package warc

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"
)

// The expected digests were computed independently with Python's hashlib
// and base64.b32encode; ZVIN… and QHC5… also appear in the wget fixture.
func TestPayloadDigest(t *testing.T) {
	const (
		empty    = "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ" // ""
		hello    = "sha1:ZVINDF4ERFYILKGQ4PSBH6DBFMEXYA7R" // "hello, world\n"
		chunks   = "sha1:UKX4VO7UCBL2TZHVGGWRN6UAG7TOHDZF" // "chunk 0\nchunk 1\nchunk 2\n"
		chunk0   = "sha1:SZCLNLIV55AUS2WF7XKHRBBAU2KTPCB2" // "chunk 0\n"
		cutShort = "sha1:OR5XLSELBMH64XSKD26U2KB35NUP3KPW" // "chunk 0\nchu"
	)
	te := "Transfer-Encoding: chunked"
	tests := []struct {
		name   string
		header []byte
		body   string
		want   string
	}{
		{"empty body", httpResponse("Content-Length: 0"), "", empty},
		{"identity", httpResponse("Content-Length: 13"), "hello, world\n", hello},
		{"chunked", httpResponse(te), string(chunk("chunk 0\n", "chunk 1\n", "chunk 2\n")), chunks},
		{"chunked, other boundaries", httpResponse(te), string(chunk("chunk 0\nch", "unk 1\nchunk 2", "\n")), chunks},
		{"chunked, field name in lower case", httpResponse("transfer-encoding:  Chunked "), string(chunk("chunk 0\n")), chunk0},
		{"chunk extension, upper-case hex, bare LF", httpResponse(te), "8;name=\"v\"\nchunk 0\n\n0\n\n", chunk0},
		{"trailer fields ignored", httpResponse(te), "8\r\nchunk 0\n\r\n0\r\nX-Check: 1\r\n\r\n", chunk0},
		{"bytes after the last chunk ignored", httpResponse(te), "8\r\nchunk 0\n\r\n0\r\n\r\njunk", chunk0},
		{"chunked body cut short", httpResponse(te), "8\r\nchunk 0\n\r\n8\r\nchu", cutShort},
		{"header says chunked, body is not", httpResponse(te), "hello, world\n", hello},
		{"chunk size not terminated by CRLF", httpResponse(te), "8\r\nchunk 0\nXX0\r\n\r\n", "sha1:" + b32sha1("8\r\nchunk 0\nXX0\r\n\r\n")},
		{"chunked is not the last coding", httpResponse("Transfer-Encoding: chunked, gzip"), string(chunk("chunk 0\n")), Digest(chunk("chunk 0\n"))},
		{"gzip then chunked: only chunked removed", httpResponse("Transfer-Encoding: gzip, chunked"), string(chunk("chunk 0\n")), chunk0},
		{"two fields, chunked last", httpResponse("Transfer-Encoding: gzip", te), string(chunk("chunk 0\n")), chunk0},
		{"chunk size overflows", httpResponse(te), "10000000000000000\r\nx\r\n", Digest([]byte("10000000000000000\r\nx\r\n"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PayloadDigest(tt.header, []byte(tt.body)); got != tt.want {
				t.Errorf("PayloadDigest = %s, want %s", got, tt.want)
			}
		})
	}
}

func b32sha1(s string) string { return Digest([]byte(s))[len("sha1:"):] }

// TestPayloadHasherSplits feeds an HTTP block to the streaming hasher in
// every possible two-piece split: the result must not depend on where the
// reads fall (HTTP header end and chunk framing straddling them).
func TestPayloadHasherSplits(t *testing.T) {
	header := httpResponse("Transfer-Encoding: chunked")
	body := chunk("chunk 0\n", "chunk 1\n", "chunk 2\n")
	block := append(append([]byte(nil), header...), body...)
	want := PayloadDigest(header, body)
	for i := range len(block) + 1 {
		p := newPayloadHasher(sha1.New, true)
		p.Write(block[:i])
		p.Write(block[i:])
		sum, _ := p.sum()
		if got := formatSHA1(sum); got != want {
			t.Fatalf("split at %d: %s, want %s", i, got, want)
		}
	}
}

func TestParseDigest(t *testing.T) {
	sum := sha256.Sum256([]byte("abc"))
	tests := []struct {
		name    string
		in      string
		want    []byte
		wantErr error
	}{
		{"sha1 base32", "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", mustHex("da39a3ee5e6b4b0d3255bfef95601890afd80709"), nil},
		{"lower-case base32, SHA-1 label", "SHA-1:3i42h3s6nnfq2msvx7xzkyayscx5qbyj", mustHex("da39a3ee5e6b4b0d3255bfef95601890afd80709"), nil},
		{"sha1 hex", "sha1:da39a3ee5e6b4b0d3255bfef95601890afd80709", mustHex("da39a3ee5e6b4b0d3255bfef95601890afd80709"), nil},
		{"sha256 hex (warcio.js default)", "sha256:" + hex.EncodeToString(sum[:]), sum[:], nil},
		{"unknown algorithm", "crc32:AAAA", nil, ErrUnsupportedDigest},
		{"no colon", "3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", nil, ErrUnsupportedDigest},
		{"wrong length", "sha1:3I42H3S6", nil, ErrUnsupportedDigest},
		{"not base32", "sha1:!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!", nil, ErrUnsupportedDigest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got, err := parseDigest(tt.in)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if string(got) != string(tt.want) {
				t.Errorf("sum = %x, want %x", got, tt.want)
			}
		})
	}
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
