package warc

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// warcioReport is what testdata/warcio/check.mjs prints.
type warcioReport struct {
	Warcio  string `json:"warcio"`
	Count   int    `json:"count"`
	Records []struct {
		Type            string `json:"type"`
		ID              string `json:"id"`
		TargetURI       string `json:"targetURI"`
		Date            string `json:"date"`
		ConcurrentTo    string `json:"concurrentTo"`
		Offset          int64  `json:"offset"`
		Length          int64  `json:"length"`
		ContentLength   int64  `json:"contentLength"`
		BlockBytes      int64  `json:"blockBytes"`
		BlockDigestOK   *bool  `json:"blockDigestOK"`
		PayloadDigestOK *bool  `json:"payloadDigestOK"`
		Status          int    `json:"status"`
		HTTPLine        string `json:"httpLine"`
		ContentSHA1     string `json:"contentSHA1"`
	} `json:"records"`
}

const warcioDir = "testdata/warcio"

// TestWarcioInterop writes a file with every record type and has warcio.js
// (the Webrecorder reader, npm package warcio) parse it: the records,
// offsets and lengths it sees must be the ones written, the digests it
// recomputes must match, and the content it decodes (chunked, gzip) must be
// the original page.
func TestWarcioInterop(t *testing.T) {
	node := requireWarcio(t)

	w, dir := newTestWriter(t, WriterConfig{})
	x, locs := writeExchange(t, w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := warcFiles(t, dir)[0]

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(warcioDir, "check.mjs"), file)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("check.mjs: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var rep warcioReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("check.mjs output: %v\n%s", err, out)
	}
	t.Logf("warcio.js %s read %d records", rep.Warcio, rep.Count)

	ours := readRecords(t, readFile(t, file))
	if rep.Count != len(ours) || len(rep.Records) != len(ours) {
		t.Fatalf("warcio read %d records, we wrote %d", rep.Count, len(ours))
	}
	hexSum := func(s string) string { sum := sha1.Sum([]byte(s)); return hex.EncodeToString(sum[:]) }
	emptySum := hexSum("")
	want := []struct {
		typ, line, content string
		payloadChecked     bool
	}{
		{"warcinfo", "", "", false},
		{"response", "HTTP/1.1 200 OK", hexSum(page), true},
		{"request", "GET / HTTP/1.1", emptySum, false},
		{"response", "HTTP/1.1 200 OK", hexSum(strings.Repeat(page, 20)), true}, // gzip decoded
		{"response", "HTTP/1.1 200 OK", hexSum("<p>first chunk</p>\n<p>second chunk</p>\n"), true},
		{"revisit", "HTTP/1.1 200 OK", emptySum, false},
		{"metadata", "", "", false},
	}
	for i, r := range rep.Records {
		t.Run(fmt.Sprintf("%d_%s", i, r.Type), func(t *testing.T) {
			h := ours[i].Header
			if r.Type != want[i].typ || r.ID != h.Get("WARC-Record-ID") || r.TargetURI != h.Get("WARC-Target-URI") ||
				r.Date != h.Get("WARC-Date") || r.ConcurrentTo != h.Get("WARC-Concurrent-To") {
				t.Errorf("warcio saw %s %s %q %s concurrent %q; wrote %v", r.Type, r.ID, r.TargetURI, r.Date, r.ConcurrentTo, h)
			}
			if i > 0 && (r.Offset != locs[i-1].Offset || r.Length != locs[i-1].Length) {
				t.Errorf("warcio: offset %d length %d; Location %+v", r.Offset, r.Length, locs[i-1])
			}
			if r.BlockBytes != r.ContentLength || r.BlockBytes != int64(len(ours[i].Block)) {
				t.Errorf("block of %d bytes, Content-Length %d, we wrote %d", r.BlockBytes, r.ContentLength, len(ours[i].Block))
			}
			if r.BlockDigestOK == nil || !*r.BlockDigestOK {
				t.Errorf("block digest ok = %s", show(r.BlockDigestOK))
			}
			if want[i].payloadChecked != (r.PayloadDigestOK != nil) || r.PayloadDigestOK != nil && !*r.PayloadDigestOK {
				t.Errorf("payload digest ok = %s; want it checked: %v", show(r.PayloadDigestOK), want[i].payloadChecked)
			}
			if r.HTTPLine != want[i].line || r.ContentSHA1 != want[i].content {
				t.Errorf("HTTP %q content sha1 %s; want %q %s", r.HTTPLine, r.ContentSHA1, want[i].line, want[i].content)
			}
		})
	}
	if rep.Records[5].Status != 200 || ours[5].Header.Get("WARC-Refers-To") != x.respID {
		t.Errorf("revisit: status %d, refers to %s", rep.Records[5].Status, ours[5].Header.Get("WARC-Refers-To"))
	}
}

// show prints an optional verdict of check.mjs.
func show(b *bool) string {
	if b == nil {
		return "not checked"
	}
	return fmt.Sprint(*b)
}

// requireWarcio returns the path of node, installing the pinned warcio
// package with npm ci on first use (the project installs what its tests
// need), or fails the test (skips it under -short) if node or npm is
// missing or the install fails: a missing tool must not look like a pass.
func requireWarcio(t *testing.T) string {
	t.Helper()
	const hint = "needs Node.js 18 or later and npm (apt-get install nodejs npm)"
	missing := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if testing.Short() {
			t.Skipf("%s; %s", msg, hint)
		}
		t.Fatalf("%s; %s, or use go test -short to skip this interop test", msg, hint)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node not found: %v", err)
	}
	if _, err := os.Stat(filepath.Join(warcioDir, "node_modules", "warcio", "package.json")); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			missing("warcio.js is not installed and npm is not found: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, "ci", "--prefix", warcioDir, "--no-audit", "--no-fund")
		if out, err := cmd.CombinedOutput(); err != nil {
			missing("npm ci --prefix %s: %v\n%s", warcioDir, err, out)
		}
	}
	return node
}

// TestWarcioReadsFiles has warcio.js read WARC files a crawl produced: the
// files named by the glob in FRESHCRAWL_WARCIO_FILES (bench/warc-interop.sh
// sets it after a crawl). Every record our reader finds, warcio must find
// at the same offset, with block digests (and payload digests, where a
// record has one) that match. Without the variable there is nothing to
// read and the test skips.
func TestWarcioReadsFiles(t *testing.T) {
	glob := os.Getenv("FRESHCRAWL_WARCIO_FILES")
	if glob == "" {
		t.Skip("set FRESHCRAWL_WARCIO_FILES to a glob of WARC files (see bench/warc-interop.sh)")
	}
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("FRESHCRAWL_WARCIO_FILES=%s matches no file (%v)", glob, err)
	}
	node := requireWarcio(t)
	byType := map[string]int{}
	for _, file := range files {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
		out, err := exec.CommandContext(ctx, node, filepath.Join(warcioDir, "check.mjs"), file).Output()
		cancel()
		if err != nil {
			t.Fatalf("check.mjs %s: %v", file, err)
		}
		var rep warcioReport
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatalf("check.mjs output for %s: %v", file, err)
		}
		ours := readRecords(t, readFile(t, file))
		if rep.Count != len(ours) || len(rep.Records) != len(ours) {
			t.Fatalf("%s: warcio read %d records, our reader %d", file, rep.Count, len(ours))
		}
		for i, r := range rep.Records {
			byType[r.Type]++
			if r.Offset != ours[i].Offset || r.ID != ours[i].Header.Get("WARC-Record-ID") {
				t.Errorf("%s record %d: warcio has %s at %d, we have %s at %d", file, i, r.ID, r.Offset,
					ours[i].Header.Get("WARC-Record-ID"), ours[i].Offset)
			}
			if r.BlockDigestOK == nil || !*r.BlockDigestOK {
				t.Errorf("%s record %d (%s %s): block digest does not match", file, i, r.Type, r.TargetURI)
			}
			if r.PayloadDigestOK != nil && !*r.PayloadDigestOK {
				t.Errorf("%s record %d (%s %s): payload digest does not match", file, i, r.Type, r.TargetURI)
			}
		}
	}
	fmt.Printf("warcio.js read %d files: %v records, every digest matching\n", len(files), byType)
}
