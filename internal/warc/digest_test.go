package warc

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"strings"
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

// isChunkedReference is isChunked as first written, splitting the header
// into strings; the allocation-free isChunked must agree with it.
func isChunkedReference(httpHeader []byte) bool {
	last := ""
	lines := bytes.Split(httpHeader, []byte("\n"))
	for _, l := range lines[1:] {
		i := bytes.IndexByte(l, ':')
		if i < 0 || !strings.EqualFold(string(bytes.TrimSpace(l[:i])), "Transfer-Encoding") {
			continue
		}
		for _, c := range strings.Split(string(l[i+1:]), ",") {
			if c, _, _ = strings.Cut(c, ";"); strings.TrimSpace(c) != "" {
				last = strings.TrimSpace(c)
			}
		}
	}
	return strings.EqualFold(last, "chunked")
}

// TestIsChunked compares isChunked with isChunkedReference on 20,000
// header blocks of random lines: field names, separators and codings that
// matter to both, spaced, cased and ended in the ways they may be.
func TestIsChunked(t *testing.T) {
	pick := func(rng *rand.Rand, s ...string) string { return s[rng.IntN(len(s))] }
	rng := rand.New(rand.NewPCG(3, 4))
	chunked := 0
	for range 20000 {
		b := []byte(pick(rng, "HTTP/1.1 200 OK\r\n", "", "Transfer-Encoding: chunked"))
		for range rng.IntN(4) {
			b = append(b, pick(rng, "Transfer-Encoding", "transfer-encoding", " Transfer-Encoding ", "X-Other", "")...)
			b = append(b, pick(rng, ":", ": ", "")...)
			for j := range rng.IntN(4) {
				if j > 0 {
					b = append(b, pick(rng, ",", " , ", ",,")...)
				}
				b = append(b, pick(rng, "chunked", "Chunked", " chunked ", "gzip", "chunked;x=1", ";", "")...)
			}
			b = append(b, pick(rng, "\r\n", "\n", "")...)
		}
		want := isChunkedReference(b)
		if got := isChunked(b); got != want {
			t.Fatalf("isChunked(%q) = %v, want %v", b, got, want)
		}
		if want {
			chunked++
		}
	}
	if chunked < 2000 {
		t.Fatalf("only %d of the headers say chunked: the test hardly tests", chunked)
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
