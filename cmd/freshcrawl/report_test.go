package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportErrors checks report's answers to a wrong -data or flag: one
// line on stderr, nothing written, exit 2 as status gives.
func TestReportErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	tests := []struct {
		name     string
		args     []string
		contains string
	}{
		{"missing directory", []string{"-data", filepath.Join(dir, "none")}, "no data directory"},
		{"not a crawl", []string{"-data", dir}, "is not a crawl data directory"},
		{"bad flag", []string{"-out"}, "flag needs an argument: -out"},
		{"empty out", []string{"-data", newStore(t), "-out", ""}, "-out is empty"},
		{"stray argument", []string{dir}, "unexpected arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"report", "-out", out}, tt.args...), &stdout, &stderr)
			lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], tt.contains) || stdout.Len() > 0 {
				t.Errorf("exit %d, want 2 and one line containing %q; stderr:\n%s\nstdout:\n%s", code, tt.contains, stderr.String(), stdout.String())
			}
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("report created %s", out)
	}
}

// TestReportEmptyCrawl reports on a crawl that has fetched nothing: it
// exits 0, creates -out, and prints the files it wrote, each there.
func TestReportEmptyCrawl(t *testing.T) {
	out := filepath.Join(t.TempDir(), "a", "report")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"report", "-data", newStore(t), "-out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	files := strings.Fields(stdout.String())
	if len(files) != 11 || files[len(files)-1] != filepath.Join(out, "index.html") {
		t.Errorf("printed %q, want 10 plots and index.html", files)
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
