package warc

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strings"
)

// Errors from digest verification.
var (
	// ErrDigestMismatch means a WARC-Block-Digest or WARC-Payload-Digest
	// does not match the data.
	ErrDigestMismatch = errors.New("warc: digest mismatch")
	// ErrUnsupportedDigest means a digest names an algorithm the reader
	// does not compute (it knows sha1, sha256, sha512 and md5) or cannot be
	// decoded as base32 or hex.
	ErrUnsupportedDigest = errors.New("warc: unsupported digest")
)

// Digest returns the digest of b as written in WARC-Block-Digest and
// WARC-Payload-Digest: "sha1:" and the SHA-1 in RFC 4648 base32, upper
// case, as Heritrix, wget and warcio write it.
func Digest(b []byte) string {
	sum := sha1.Sum(b)
	return formatSHA1(sum[:])
}

// formatSHA1 formats a SHA-1 sum as Digest does, in one allocation: the
// 20 bytes are exactly 32 base32 digits, without padding.
func formatSHA1(sum []byte) string {
	var b [len("sha1:") + 32]byte
	n := copy(b[:], "sha1:")
	base32.StdEncoding.Encode(b[n:], sum[:sha1.Size])
	return string(b[:])
}

// PayloadDigest returns the WARC-Payload-Digest of an HTTP message whose
// header block is httpHeader and whose body, as received, is body.
//
// The payload is the entity body with any transfer coding removed (WARC 1.1
// §6.3.2): when the header's last transfer coding is chunked, the chunk
// framing is decoded; a content coding (Content-Encoding: gzip) is kept, so
// the digest is over the compressed bytes the server sent, as warcio and
// Heritrix compute it. A chunked body cut short is digested up to the cut,
// as §6.3.2 says for truncated payloads. A body whose framing is not valid
// chunked coding, though the header says it is, is digested as stored, so
// records written by tools that de-chunk bodies but keep the header still
// get a digest that matches their bytes.
//
// The crawler calls it to decide between a response and a revisit record
// before writing either.
func PayloadDigest(httpHeader, body []byte) string {
	if !isChunked(httpHeader) {
		sum := sha1.Sum(body) // on the stack: the common case allocates once
		return formatSHA1(sum[:])
	}
	p := newPayloadHasher(sha1.New, false)
	p.setHeader(httpHeader)
	p.Write(body)
	sum, _ := p.sum()
	return formatSHA1(sum)
}

// isChunked reports whether an HTTP header block ends its transfer codings
// with chunked (RFC 9112 §6.1: only the final coding frames the message).
func isChunked(httpHeader []byte) bool {
	var last []byte
	_, rest, _ := bytes.Cut(httpHeader, []byte("\n")) // skip the status or request line
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || !bytes.EqualFold(bytes.TrimSpace(name), []byte("Transfer-Encoding")) {
			continue
		}
		for c := range bytes.SplitSeq(value, []byte(",")) {
			if c, _, _ = bytes.Cut(c, []byte(";")); len(bytes.TrimSpace(c)) > 0 {
				last = bytes.TrimSpace(c)
			}
		}
	}
	return bytes.EqualFold(last, []byte("chunked"))
}

// httpHeaderEnd returns the length of the HTTP header at the start of b,
// blank line included, or -1 if b holds no complete header. A line is blank
// if it is "\r\n" or "\n", the rule warcio and most readers use.
func httpHeaderEnd(b []byte) int {
	for i := 0; i < len(b); i++ {
		if b[i] != '\n' {
			continue
		}
		switch {
		case i+1 < len(b) && b[i+1] == '\n':
			return i + 2
		case i+2 < len(b) && b[i+1] == '\r' && b[i+2] == '\n':
			return i + 3
		}
	}
	return -1
}

// payloadHasher computes a payload digest from a block (or body) written to
// it in pieces. For HTTP blocks it first collects the HTTP header (at most
// MaxHeaderSize), then hashes the body twice: as stored, and de-chunked when
// the header says chunked. sum picks per PayloadDigest's rules.
type payloadHasher struct {
	http    bool // block starts with an HTTP header
	inBody  bool
	head    []byte
	tooLong bool
	raw     hash.Hash
	dec     hash.Hash  // nil unless chunked
	chunks  *dechunker // nil unless chunked
}

func newPayloadHasher(newHash func() hash.Hash, httpBlock bool) *payloadHasher {
	return &payloadHasher{http: httpBlock, inBody: !httpBlock, raw: newHash()}
}

// setHeader starts the body directly, for callers that hold the HTTP header
// separately. The chunked hash uses the same algorithm as the raw one.
func (p *payloadHasher) setHeader(httpHeader []byte) {
	p.inBody = true
	if isChunked(httpHeader) {
		p.dec = newLike(p.raw)
		p.chunks = &dechunker{out: p.dec}
	}
}

func (p *payloadHasher) Write(b []byte) (int, error) {
	n := len(b)
	if !p.inBody {
		if p.tooLong {
			return n, nil
		}
		end := p.headerEnd(b)
		if end < 0 {
			if len(p.head)+len(b) > MaxHeaderSize {
				p.tooLong, p.head = true, nil
			} else {
				p.head = append(p.head, b...)
			}
			return n, nil
		}
		if len(p.head)+end > MaxHeaderSize {
			p.tooLong, p.head = true, nil
			return n, nil
		}
		p.head = append(p.head, b[:end]...) // only the header is copied
		p.setHeader(p.head)
		p.head = nil
		b = b[end:]
	}
	p.raw.Write(b)
	if p.chunks != nil {
		p.chunks.Write(b)
	}
	return n, nil
}

// headerEnd returns how many bytes of b complete the HTTP header begun in
// p.head, or -1. The blank line may straddle the two: look at the last two
// bytes of head joined to the first two of b, then at b alone.
func (p *payloadHasher) headerEnd(b []byte) int {
	if k := min(len(p.head), 2); k > 0 {
		var win [4]byte
		w := append(append(win[:0], p.head[len(p.head)-k:]...), b[:min(len(b), 2)]...)
		// head holds no complete blank line, so a match ends inside b.
		if e := httpHeaderEnd(w); e >= 0 {
			return e - k
		}
	}
	return httpHeaderEnd(b)
}

// sum returns the payload digest. It also returns the digest of the body as
// stored when that differs from the payload (a chunked body), for readers
// that accept the digests older tools wrote (warcio issue #74).
func (p *payloadHasher) sum() (payload, asStored []byte) {
	if !p.inBody {
		// No complete HTTP header: the payload is empty.
		return newLike(p.raw).Sum(nil), nil
	}
	raw := p.raw.Sum(nil)
	if p.chunks == nil {
		return raw, nil
	}
	if p.chunks.bad {
		return raw, nil
	}
	return p.dec.Sum(nil), raw
}

// newLike returns a fresh hash of the same algorithm as h.
func newLike(h hash.Hash) hash.Hash {
	switch h.Size() {
	case md5.Size:
		return md5.New()
	case sha256.Size:
		return sha256.New()
	case sha512.Size:
		return sha512.New()
	default:
		return sha1.New()
	}
}

// parseDigest splits "algorithm:value" and decodes the value (base32 with
// or without padding, any case, or hex), returning a constructor for the
// algorithm and the expected sum.
func parseDigest(s string) (func() hash.Hash, []byte, error) {
	alg, val, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return nil, nil, fmt.Errorf("%w: %.80q", ErrUnsupportedDigest, s)
	}
	var newHash func() hash.Hash
	switch strings.ReplaceAll(strings.ToLower(alg), "-", "") {
	case "sha1":
		newHash = sha1.New
	case "sha256":
		newHash = sha256.New
	case "sha512":
		newHash = sha512.New
	case "md5":
		newHash = md5.New
	default:
		return nil, nil, fmt.Errorf("%w: algorithm %.20q", ErrUnsupportedDigest, alg)
	}
	size := newHash().Size()
	if len(val) == 2*size {
		if sum, err := hex.DecodeString(val); err == nil {
			return newHash, sum, nil
		}
	}
	sum, err := base32.StdEncoding.WithPadding(base32.NoPadding).
		DecodeString(strings.TrimRight(strings.ToUpper(val), "="))
	if err != nil || len(sum) != size {
		return nil, nil, fmt.Errorf("%w: value %.80q", ErrUnsupportedDigest, val)
	}
	return newHash, sum, nil
}
