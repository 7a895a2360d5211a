package warc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// exchange is a set of records of every type with known contents, written
// by writeExchange and checked by TestWriteReadBack and the interop test.
type exchange struct {
	plainBody, gzipBody, chunkedBody []byte
	reqID, respID                    string
}

const page = "<!doctype html><title>freshcrawl</title><p>Hello, archive.</p>\n"

func writeExchange(t testing.TB, w *Writer) (exchange, []Location) {
	t.Helper()
	x := exchange{
		plainBody:   []byte(page),
		gzipBody:    gzipBytes(t, []byte(strings.Repeat(page, 20))),
		chunkedBody: chunk("<p>first chunk</p>\n", "<p>second chunk</p>\n"),
		reqID:       NewRecordID(),
		respID:      NewRecordID(),
	}
	date := time.Date(2026, 11, 21, 12, 0, 0, 123456789, time.UTC)
	var locs []Location
	add := func(loc Location, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, loc)
	}
	add(w.WriteResponse(Response{
		ID: x.respID, ConcurrentTo: x.reqID, Date: date, IPAddress: "127.0.0.1",
		TargetURI:  "http://example.com/",
		HTTPHeader: httpResponse("Content-Type: text/html", "Content-Length: "+strconv.Itoa(len(x.plainBody))),
		Body:       x.plainBody,
	}))
	add(w.WriteRequest(Request{
		ID: x.reqID, ConcurrentTo: x.respID, Date: date, IPAddress: "127.0.0.1",
		TargetURI:  "http://example.com/",
		HTTPHeader: []byte("GET / HTTP/1.1\r\nHost: example.com\r\nUser-Agent: freshcrawl\r\n\r\n"),
	}))
	add(w.WriteResponse(Response{
		Date: date, TargetURI: "http://example.com/gz",
		HTTPHeader: httpResponse("Content-Type: text/html", "Content-Encoding: gzip", "Content-Length: "+strconv.Itoa(len(x.gzipBody))),
		Body:       x.gzipBody,
	}))
	add(w.WriteResponse(Response{
		Date: date, TargetURI: "http://example.com/chunked",
		HTTPHeader: httpResponse("Content-Type: text/html", "Transfer-Encoding: chunked"),
		Body:       x.chunkedBody,
	}))
	add(w.WriteRevisit(Revisit{
		Date: date.Add(24 * time.Hour), TargetURI: "http://example.com/",
		HTTPHeader:        httpResponse("Content-Type: text/html", "Content-Length: "+strconv.Itoa(len(x.plainBody))),
		PayloadDigest:     Digest(x.plainBody),
		RefersTo:          x.respID,
		RefersToTargetURI: "http://example.com/",
		RefersToDate:      date,
	}))
	add(w.WriteMetadata(Metadata{
		Date: date, TargetURI: "http://example.com/", ConcurrentTo: x.respID,
		Block: []byte("outlinks: http://example.com/gz\r\noutlinks: http://example.com/chunked\r\n"),
	}))
	return x, locs
}

func TestWriteReadBack(t *testing.T) {
	w, dir := newTestWriter(t, WriterConfig{Prefix: "test", Info: Header{{"operator", "test suite"}}})
	x, locs := writeExchange(t, w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := warcFiles(t, dir)
	if len(files) != 1 || filepath.Base(files[0]) != "test-20261121120000-00000.warc.gz" {
		t.Fatalf("files = %v, want one named test-20261121120000-00000.warc.gz", files)
	}
	data := readFile(t, files[0])
	recs := readRecords(t, data)
	if len(recs) != 7 {
		t.Fatalf("read %d records, want 7", len(recs))
	}
	info := recs[0]
	infoID := info.Header.Get("WARC-Record-ID")

	tests := []struct {
		name   string
		rec    got
		fields map[string]string // "" means the field must be absent
		block  []byte            // nil: not checked
	}{
		{"warcinfo", info, map[string]string{
			"WARC-Type": "warcinfo", "WARC-Filename": "test-20261121120000-00000.warc.gz",
			"Content-Type": "application/warc-fields", "WARC-Warcinfo-ID": "", "WARC-Date": "2026-11-21T12:00:01Z",
		}, nil},
		{"response", recs[1], map[string]string{
			"WARC-Type": "response", "WARC-Record-ID": x.respID, "WARC-Concurrent-To": x.reqID,
			"WARC-Date": "2026-11-21T12:00:00.123456789Z", "WARC-Target-URI": "http://example.com/",
			"WARC-IP-Address": "127.0.0.1", "Content-Type": "application/http;msgtype=response",
			"WARC-Payload-Digest": Digest(x.plainBody), "WARC-Warcinfo-ID": infoID,
		}, nil},
		{"request", recs[2], map[string]string{
			"WARC-Type": "request", "WARC-Record-ID": x.reqID, "WARC-Concurrent-To": x.respID,
			"Content-Type": "application/http;msgtype=request", "WARC-Payload-Digest": "",
		}, []byte("GET / HTTP/1.1\r\nHost: example.com\r\nUser-Agent: freshcrawl\r\n\r\n")},
		{"gzip response", recs[3], map[string]string{
			"WARC-Payload-Digest": Digest(x.gzipBody), // content coding kept
		}, nil},
		{"chunked response", recs[4], map[string]string{
			"WARC-Payload-Digest": Digest([]byte("<p>first chunk</p>\n<p>second chunk</p>\n")),
		}, nil},
		{"revisit", recs[5], map[string]string{
			"WARC-Type": "revisit", "WARC-Profile": ProfileIdenticalPayloadDigest,
			"WARC-Refers-To": x.respID, "WARC-Refers-To-Target-URI": "http://example.com/",
			"WARC-Refers-To-Date": "2026-11-21T12:00:00.123456789Z", "WARC-Date": "2026-11-22T12:00:00.123456789Z",
			"WARC-Payload-Digest": Digest(x.plainBody), "Content-Type": "application/http;msgtype=response",
		}, httpResponse("Content-Type: text/html", "Content-Length: "+strconv.Itoa(len(x.plainBody)))},
		{"metadata", recs[6], map[string]string{
			"WARC-Type": "metadata", "Content-Type": "application/warc-fields", "WARC-Concurrent-To": x.respID,
			"WARC-Payload-Digest": "", "WARC-Warcinfo-ID": infoID,
		}, []byte("outlinks: http://example.com/gz\r\noutlinks: http://example.com/chunked\r\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.rec.Header
			if tt.rec.Version != "WARC/1.1" {
				t.Errorf("version %q", tt.rec.Version)
			}
			for name, want := range tt.fields {
				if got := h.Get(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if got, want := h.Get("Content-Length"), strconv.Itoa(len(tt.rec.Block)); got != want {
				t.Errorf("Content-Length = %s, block has %s bytes", got, want)
			}
			if got, want := h.Get("WARC-Block-Digest"), Digest(tt.rec.Block); got != want {
				t.Errorf("WARC-Block-Digest = %s, want %s", got, want)
			}
			if !regexp.MustCompile(`^<urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}>$`).MatchString(h.Get("WARC-Record-ID")) {
				t.Errorf("WARC-Record-ID %q is not a v4 UUID URN", h.Get("WARC-Record-ID"))
			}
			if tt.block != nil && !bytes.Equal(tt.rec.Block, tt.block) {
				t.Errorf("block = %q, want %q", tt.rec.Block, tt.block)
			}
		})
	}
	if !bytes.Contains(info.Block, []byte("operator: test suite\r\n")) || !bytes.Contains(info.Block, []byte("software: freshcrawl\r\n")) {
		t.Errorf("warcinfo block %q lacks operator or software", info.Block)
	}

	// Each Location is exactly one gzip member holding its record: the
	// index can seek there and read Length bytes.
	t.Run("locations", func(t *testing.T) {
		end := int64(len(data))
		for i := len(locs) - 1; i >= 0; i-- {
			loc := locs[i]
			if loc.File != "test-20261121120000-00000.warc.gz" || loc.Offset+loc.Length != end {
				t.Errorf("record %d: %+v, want it to end at %d", i, loc, end)
			}
			end = loc.Offset
			one := readRecords(t, data[loc.Offset:loc.Offset+loc.Length])
			if len(one) != 1 || one[0].Header.Get("WARC-Record-ID") != loc.RecordID {
				t.Errorf("record %d: section holds %d records, want just %s", i, len(one), loc.RecordID)
			}
			if recs[i+1].Offset != loc.Offset {
				t.Errorf("record %d: reader says offset %d, writer %d", i, recs[i+1].Offset, loc.Offset)
			}
		}
		if one := readRecords(t, data[:end]); recs[0].Offset != 0 || len(one) != 1 || one[0].Header.Get("WARC-Type") != "warcinfo" {
			t.Errorf("the bytes before the first record are not just the warcinfo member")
		}
	})
}

// TestRotation writes records into files of a bounded size, each record
// as it comes and through a buffer of a few records, which is written at
// each rotation.
func TestRotation(t *testing.T) {
	for _, buffer := range []int{0, 6000} {
		t.Run(fmt.Sprintf("buffer=%d", buffer), func(t *testing.T) { testRotation(t, buffer) })
	}
}

func testRotation(t *testing.T, buffer int) {
	const max = 4 << 10
	w, dir := newTestWriter(t, WriterConfig{MaxFileSize: max, Compression: 1, Buffer: buffer})
	body := make([]byte, 3000) // incompressible enough with a varied pattern
	for i := range body {
		body[i] = byte(i * 7919 >> 3)
	}
	var locs []Location
	for i := range 10 {
		loc, err := w.WriteResponse(Response{
			TargetURI:  "http://example.com/" + strconv.Itoa(i),
			HTTPHeader: httpResponse("Content-Length: 3000"),
			Body:       body,
		})
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, loc)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := warcFiles(t, dir)
	if len(files) < 3 {
		t.Fatalf("%d files, want rotation into at least 3", len(files))
	}
	name := regexp.MustCompile(`^freshcrawl-\d{14}-(\d{5})\.warc\.gz$`)
	seen := 0
	for i, f := range files {
		m := name.FindStringSubmatch(filepath.Base(f))
		if m == nil || m[1] != strings.Repeat("0", 4)+strconv.Itoa(i) {
			t.Errorf("file %d named %s", i, filepath.Base(f))
		}
		data := readFile(t, f)
		recs := readRecords(t, data)
		if recs[0].Header.Get("WARC-Type") != "warcinfo" || recs[0].Header.Get("WARC-Filename") != filepath.Base(f) {
			t.Errorf("%s does not start with its warcinfo: %v", f, recs[0].Header)
		}
		infoID := recs[0].Header.Get("WARC-Record-ID")
		var last int64
		for _, r := range recs[1:] {
			if r.Header.Get("WARC-Warcinfo-ID") != infoID {
				t.Errorf("%s: record points at warcinfo %s, not %s", f, r.Header.Get("WARC-Warcinfo-ID"), infoID)
			}
			if loc := locs[seen]; loc.File != filepath.Base(f) || loc.Offset != r.Offset {
				t.Errorf("record %d: location %+v, found in %s at %d", seen, loc, filepath.Base(f), r.Offset)
			}
			last = locs[seen].Length
			seen++
		}
		// A file is finished once it reaches max, so it exceeds max by
		// less than its last record.
		if size := int64(len(data)); size-last >= max && i < len(files)-1 {
			t.Errorf("%s: %d bytes, last record %d: rotated late", f, size, last)
		}
	}
	if seen != len(locs) {
		t.Errorf("read %d records, wrote %d", seen, len(locs))
	}
}

func TestWriteInvalid(t *testing.T) {
	hdr := httpResponse("Content-Length: 0")
	tests := []struct {
		name  string
		write func(w *Writer) (Location, error)
	}{
		{"response without URI", func(w *Writer) (Location, error) {
			return w.WriteResponse(Response{HTTPHeader: hdr})
		}},
		{"CRLF injected through the URI", func(w *Writer) (Location, error) {
			return w.WriteResponse(Response{TargetURI: "http://x/\r\nWARC-Type: evil", HTTPHeader: hdr})
		}},
		{"HTTP header without its empty line", func(w *Writer) (Location, error) {
			return w.WriteResponse(Response{TargetURI: "http://x/", HTTPHeader: []byte("HTTP/1.1 200 OK\r\n")})
		}},
		{"HTTP header with an early empty line", func(w *Writer) (Location, error) {
			return w.WriteResponse(Response{TargetURI: "http://x/", HTTPHeader: []byte("HTTP/1.1 200 OK\r\n\r\nX: y\r\n\r\n")})
		}},
		{"response with a malformed payload digest", func(w *Writer) (Location, error) {
			return w.WriteResponse(Response{TargetURI: "http://x/", HTTPHeader: hdr, PayloadDigest: "sha1:nope"})
		}},
		{"request without URI", func(w *Writer) (Location, error) {
			return w.WriteRequest(Request{HTTPHeader: []byte("GET / HTTP/1.1\r\n\r\n")})
		}},
		{"revisit without payload digest", func(w *Writer) (Location, error) {
			return w.WriteRevisit(Revisit{TargetURI: "http://x/", HTTPHeader: hdr})
		}},
		{"revisit with a malformed digest", func(w *Writer) (Location, error) {
			return w.WriteRevisit(Revisit{TargetURI: "http://x/", PayloadDigest: "sha1:nope"})
		}},
		{"record without type", func(w *Writer) (Location, error) {
			return w.WriteRecord(Header{{"WARC-Target-URI", "http://x/"}}, nil)
		}},
		{"field name with a space", func(w *Writer) (Location, error) {
			return w.WriteRecord(Header{{"WARC-Type", "resource"}, {"Bad Name", "x"}}, nil)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, dir := newTestWriter(t, WriterConfig{})
			if _, err := tt.write(w); err == nil {
				t.Fatal("write succeeded")
			}
			// Nothing but (at most) the warcinfo may have been written.
			w.Close()
			for _, f := range warcFiles(t, dir) {
				if recs := readRecords(t, readFile(t, f)); len(recs) > 1 {
					t.Errorf("%d records written", len(recs))
				}
			}
		})
	}
}

func TestWriterLifecycle(t *testing.T) {
	w, dir := newTestWriter(t, WriterConfig{})
	if w.File() != "" || w.Sync() != nil {
		t.Error("a fresh writer has a file or cannot sync")
	}
	if files := warcFiles(t, dir); len(files) != 0 {
		t.Errorf("files before the first write: %v", files)
	}
	loc, err := w.WriteRecord(Header{{"WARC-Type", TypeResource}, {"WARC-Target-URI", "urn:x"}}, []byte("data"))
	if err != nil {
		t.Fatal(err)
	}
	if w.File() != loc.File {
		t.Errorf("File() = %s, record went to %s", w.File(), loc.File)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteRecord(Header{{"WARC-Type", TypeResource}}, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("write after Close: %v, want ErrClosed", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	// A second writer in the same second does not overwrite the file.
	w2, _ := newTestWriter(t, WriterConfig{Dir: dir})
	loc2, err := w2.WriteRecord(Header{{"WARC-Type", TypeResource}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w2.Close()
	if loc2.File == loc.File {
		t.Errorf("second writer reused %s", loc.File)
	}
	if len(readRecords(t, readFile(t, filepath.Join(dir, loc.File)))) != 2 {
		t.Errorf("first file changed")
	}
}

func TestNewWriterErrors(t *testing.T) {
	file := filepath.Join(tempDir(t), "file")
	os.WriteFile(file, nil, 0o644)
	tests := []struct {
		name string
		cfg  WriterConfig
	}{
		{"prefix with a slash", WriterConfig{Dir: tempDir(t), Prefix: "a/b"}},
		{"bad gzip level", WriterConfig{Dir: tempDir(t), Compression: 42}},
		{"dir is a file", WriterConfig{Dir: file}},
		{"bad info field", WriterConfig{Dir: tempDir(t), Info: Header{{"x", "a\nb"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewWriter(tt.cfg); err == nil {
				t.Error("NewWriter succeeded")
			}
		})
	}
}

func TestFormatDate(t *testing.T) {
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "2026-01-02T03:04:05Z"},
		{time.Date(2026, 1, 2, 3, 4, 5, 120000000, time.UTC), "2026-01-02T03:04:05.12Z"},
		{time.Date(2026, 1, 2, 3, 4, 5, 1, time.UTC), "2026-01-02T03:04:05.000000001Z"},
		{time.Date(2026, 1, 2, 4, 4, 5, 0, time.FixedZone("CET", 3600)), "2026-01-02T03:04:05Z"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := FormatDate(tt.in); got != tt.want {
				t.Errorf("FormatDate = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestHeaderMethods(t *testing.T) {
	var h Header
	h.Add("WARC-Concurrent-To", "a")
	h.Add("Content-Length", "1")
	h.Add("warc-concurrent-to", "b")
	if got := h.Values("WARC-CONCURRENT-TO"); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("Values = %v", got)
	}
	h.Set("WARC-Concurrent-To", "c")
	if got := h.Values("WARC-Concurrent-To"); len(got) != 1 || got[0] != "c" || h[0].Value != "c" {
		t.Errorf("after Set: %v", h)
	}
	h.Set("WARC-Type", "resource")
	h.Del("content-length")
	if h.Get("Content-Length") != "" || h.Get("WARC-Type") != "resource" || len(h) != 2 {
		t.Errorf("after Set and Del: %v", h)
	}
	if _, err := io.Discard.Write(h.appendTo(nil)); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentWrites writes from several goroutines across rotations:
// every record lands whole, exactly once, where its Location says.
func TestConcurrentWrites(t *testing.T) {
	w, dir := newTestWriter(t, WriterConfig{MaxFileSize: 8 << 10})
	const goroutines, each = 4, 25
	locs := make(chan Location, goroutines*each)
	errs := make(chan error, goroutines)
	for g := range goroutines {
		go func() {
			for i := range each {
				body := []byte(strings.Repeat(strconv.Itoa(g*1000+i)+" ", 200))
				loc, err := w.WriteResponse(Response{
					TargetURI:  "http://example.com/" + strconv.Itoa(g) + "/" + strconv.Itoa(i),
					HTTPHeader: httpResponse("Content-Length: " + strconv.Itoa(len(body))),
					Body:       body,
				})
				if err != nil {
					errs <- err
					return
				}
				locs <- loc
			}
			errs <- nil
		}()
	}
	for range goroutines {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	close(locs)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	byID := map[string]Location{}
	for loc := range locs {
		byID[loc.RecordID] = loc
	}
	found := 0
	for _, f := range warcFiles(t, dir) {
		for _, r := range readRecords(t, readFile(t, f)) {
			if r.Header.Get("WARC-Type") != TypeResponse {
				continue
			}
			loc, ok := byID[r.Header.Get("WARC-Record-ID")]
			if !ok || loc.File != filepath.Base(f) || loc.Offset != r.Offset {
				t.Errorf("record %s in %s at %d; Location %+v", r.Header.Get("WARC-Record-ID"), filepath.Base(f), r.Offset, loc)
			}
			found++
		}
	}
	if found != goroutines*each || len(byID) != found {
		t.Errorf("found %d records, %d distinct locations; wrote %d", found, len(byID), goroutines*each)
	}
}

// TestBuffer checks that buffered records reach the file at Flush and
// Sync, not before, at the offsets their Locations said.
func TestBuffer(t *testing.T) {
	w, dir := newTestWriter(t, WriterConfig{Buffer: 1 << 20})
	var locs []Location
	write := func(i int) {
		loc, err := w.WriteResponse(Response{
			TargetURI: "http://example.com/" + strconv.Itoa(i), HTTPHeader: httpResponse("Content-Length: 5"), Body: []byte("hello"),
		})
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, loc)
	}
	size := func() int64 {
		files := warcFiles(t, dir)
		if len(files) != 1 {
			t.Fatalf("%d files, want 1", len(files))
		}
		return int64(len(readFile(t, files[0])))
	}
	write(0)
	write(1)
	if n := size(); n != 0 {
		t.Errorf("%d bytes in the file before a flush, want 0", n)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if n, end := size(), locs[1].Offset+locs[1].Length; n != end {
		t.Errorf("%d bytes in the file after Flush, want %d", n, end)
	}
	write(2)
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	data := readFile(t, warcFiles(t, dir)[0])
	for i, loc := range locs {
		one := readRecords(t, data[loc.Offset:loc.Offset+loc.Length])
		if len(one) != 1 || one[0].Header.Get("WARC-Target-URI") != "http://example.com/"+strconv.Itoa(i) {
			t.Errorf("record %d not at its location %+v", i, loc)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
