package warc

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"
)

// TestAppendStored checks the hand-written stored members against Go's
// gzip reader, which verifies the CRC-32 and length of each: empty input,
// block boundaries (a stored block holds at most 65,535 bytes, RFC 1951
// §3.2.4), parts that straddle them, and empty parts.
func TestAppendStored(t *testing.T) {
	data := make([]byte, 3*maxStored+17)
	for i := range data {
		data[i] = byte(i*7 + i>>9)
	}
	for _, n := range []int{0, 1, maxStored - 1, maxStored, maxStored + 1, 2 * maxStored, len(data)} {
		for _, cuts := range [][]int{nil, {0}, {n / 3, n / 3, 2 * n / 3}, {n}} {
			var parts [][]byte
			prev := 0
			for _, c := range append(cuts, n) {
				parts = append(parts, data[prev:c])
				prev = c
			}
			prefix := []byte("kept")
			member := appendStored(prefix, parts...)
			if !bytes.Equal(member[:len(prefix)], prefix) {
				t.Fatalf("n=%d: the bytes before the member changed", n)
			}
			member = member[len(prefix):]
			if len(member) != storedSize(n) {
				t.Errorf("n=%d cuts=%v: member of %d bytes, storedSize says %d", n, cuts, len(member), storedSize(n))
			}
			zr, err := gzip.NewReader(bytes.NewReader(member))
			if err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
			zr.Multistream(false)
			got, err := io.ReadAll(zr)
			if err != nil {
				t.Fatalf("n=%d cuts=%v: %v", n, cuts, err)
			}
			if !bytes.Equal(got, data[:n]) {
				t.Fatalf("n=%d cuts=%v: member inflates to %d bytes, not the %d given", n, cuts, len(got), n)
			}
		}
	}
}

// TestStoredRecords checks that records not worth compressing are written
// stored, and read back whole.
func TestStoredRecords(t *testing.T) {
	w, dir := newTestWriter(t, WriterConfig{})
	gz := httpResponse("Content-Type: text/html", "Content-Encoding: gzip", "Content-Length: 5000")
	body := bytes.Repeat([]byte("x"), 5000)
	loc, err := w.WriteResponse(Response{TargetURI: "http://example.com/", HTTPHeader: gz, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	if loc.Length < 5000 {
		t.Errorf("a response with Content-Encoding took %d bytes: compressed, not stored", loc.Length)
	}
	w.Close()
	recs := readRecords(t, readFile(t, warcFiles(t, dir)[0]))
	last := recs[len(recs)-1]
	if !bytes.HasSuffix(last.Block, body) {
		t.Errorf("the stored record's block does not end with the body")
	}
}
