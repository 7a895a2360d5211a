package warc

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// got is one record as read back.
type got struct {
	Header  Header
	Block   []byte
	Offset  int64
	Version string
}

// readRecords reads every record of data, verifying each, and fails the
// test on any error.
func readRecords(t testing.TB, data []byte) []got {
	t.Helper()
	recs, err := tryReadRecords(data)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func tryReadRecords(data []byte) ([]got, error) {
	r := NewReader(bytes.NewReader(data))
	var recs []got
	for {
		h, err := r.Next()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		block, err := io.ReadAll(r)
		if err != nil {
			return recs, err
		}
		if err := r.Verify(); err != nil {
			return recs, err
		}
		recs = append(recs, got{h, block, r.Offset(), r.Version()})
	}
}

// fixedClock returns a clock that starts at t and moves one second per call,
// so file names and dates are predictable. It is safe for concurrent use,
// as WriterConfig.Now must be when records are encoded concurrently.
func fixedClock(t time.Time) func() time.Time {
	var mu sync.Mutex
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now := t
		t = t.Add(time.Second)
		return now
	}
}

var epoch = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// tempDir returns a temporary directory, on tmpfs when /dev/shm exists:
// Writer.Close and Repair fsync, and on a busy shared disk each fsync can
// take a large fraction of a second. Tests cannot observe durability
// anyway.
func tempDir(t testing.TB) string {
	t.Helper()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "warc-test-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

// newTestWriter returns a Writer into a temporary directory.
func newTestWriter(t testing.TB, cfg WriterConfig) (*Writer, string) {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = tempDir(t)
	}
	if cfg.Now == nil {
		cfg.Now = fixedClock(epoch)
	}
	w, err := NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w, cfg.Dir
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// warcFiles lists the .warc.gz files in dir, sorted by name.
func warcFiles(t testing.TB, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// httpResponse builds a response header block with the given fields.
func httpResponse(fields ...string) []byte {
	return []byte("HTTP/1.1 200 OK\r\n" + strings.Join(fields, "\r\n") + "\r\n\r\n")
}

// chunk encodes parts with chunked transfer coding.
func chunk(parts ...string) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		fmt.Fprintf(&b, "%x\r\n%s\r\n", len(p), p)
	}
	b.WriteString("0\r\n\r\n")
	return b.Bytes()
}

func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gunzip decompresses all members of a gzip file: the plain WARC.
func gunzip(t testing.TB, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
