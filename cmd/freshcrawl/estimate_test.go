package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// bingFixture is four pages in the Bing freshness dataset format, the
// third line malformed.
const bingFixture = "1\t0.5\t[[1,0],[2,1],[1,1],[3,0]]\n" +
	"2 1 [[0.5,1],[0.5,1]]\n" +
	"bad line\n" +
	"3\t0\t[]\n"

func TestEstimateBing(t *testing.T) {
	file := writeFile(t, "urlid_offset_history.txt", bingFixture)
	var out, errOut bytes.Buffer
	code := run([]string{"estimate", "-bing", file, "-estimator", "all", "-json"}, &out, &errOut)
	// A malformed line is reported with its number and skipped; the exit
	// status says something was.
	if code != 1 || !strings.Contains(errOut.String(), "line 3") || !strings.Contains(errOut.String(), "1 malformed lines") {
		t.Errorf("exit %d, stderr %q: want 1 and line 3 reported", code, errOut.String())
	}
	var pages []jsonPage
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var p jsonPage
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		pages = append(pages, p)
	}
	if len(pages) != 3 || pages[0].Page != "1" || pages[2].Page != "3" {
		t.Fatalf("pages %+v, want ids 1, 2, 3", pages)
	}
	rate := func(p jsonPage, name string) *float64 {
		for _, e := range p.Estimates {
			if e.Estimator == name {
				return e.Rate
			}
		}
		t.Fatalf("page %s: no %s estimate", p.Page, name)
		return nil
	}
	// Dissertation §6.4.1: naive is changes seen over time watched, 2 in
	// 7 days for page 1; the Last-Modified estimators have no data.
	if r := rate(pages[0], "naive"); r == nil || math.Abs(*r-2.0/7) > 1e-12 {
		t.Errorf("page 1 naive %v, want 2/7 per day", r)
	}
	if r := rate(pages[0], "lm-reduced"); r != nil {
		t.Errorf("page 1 lm-reduced %v, want null without Last-Modified", *r)
	}
	// §6.4.3: with equal intervals the MLE is −ln(X̄/n)/I, here the
	// all-changed case, which has a finite substitute and no upper bound.
	if p := pages[1]; p.Observations != 2 || p.Changes != 2 || rate(p, "mle") == nil {
		t.Errorf("page 2: %+v", p)
	}
	// A page with no recrawl: only the prior-seeded estimators answer.
	if r := rate(pages[2], "prior-mle"); r == nil || rate(pages[2], "mle") != nil {
		t.Errorf("page 3: prior-mle %v, mle %v: want a rate and null", r, rate(pages[2], "mle"))
	}

	// The table: a header and one row a page.
	out.Reset()
	errOut.Reset()
	run([]string{"estimate", "-bing", file, "-limit", "2"}, &out, &errOut)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "page") || !strings.HasPrefix(lines[1], "1 ") {
		t.Errorf("table:\n%s", out.String())
	}
}

func TestEstimateUsageErrors(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, "h.txt", bingFixture)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown estimator", []string{"-bing", file, "-estimator", "guess"}, "guess"},
		{"missing file", []string{"-bing", filepath.Join(dir, "none.txt")}, "none.txt"},
		{"no crawl", []string{"-data", filepath.Join(dir, "nodata")}, "no data directory"},
		{"negative limit", []string{"-bing", file, "-limit", "-1"}, "negative"},
		{"bad flag", []string{"-frobnicate"}, "frobnicate"},
		{"argument", []string{"extra"}, "unexpected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(append([]string{"estimate"}, tt.args...), &out, &errOut)
			checkUsageError(t, code, errOut.String(), tt.want)
		})
	}
}

// A gzipped history file reads the same as the plain one.
func TestEstimateBingGzip(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(bingFixture))
	zw.Close()
	file := writeFile(t, "h.txt.gz", gz.String())
	var plain, zipped, errOut bytes.Buffer
	run([]string{"estimate", "-bing", writeFile(t, "h.txt", bingFixture), "-json"}, &plain, &errOut)
	if code := run([]string{"estimate", "-bing", file, "-json"}, &zipped, &errOut); code != 1 {
		t.Errorf("exit %d, want 1 (the fixture's malformed line)", code)
	}
	if zipped.String() != plain.String() || zipped.Len() == 0 {
		t.Errorf("gzipped input gave\n%s\nwant\n%s", zipped.String(), plain.String())
	}
}
