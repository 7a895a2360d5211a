package extract

import (
	"bytes"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// checkFast runs Links on body and the reference algorithm (every
// attribute of a link's tag read, every href resolved by urlx's full
// parser: extraction as it was before its fast paths) and fails unless
// they return the same. It returns Links' answer.
func checkFast(t testing.TB, body []byte, base, contentType string, opts Options) (Result, error) {
	t.Helper()
	got, err := Links(bytes.NewReader(body), base, contentType, opts)
	want, werr := extractLinks(bytes.NewReader(body), base, contentType, opts, true)
	if !reflect.DeepEqual(got, want) || (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
		t.Fatalf("%s: Links and the reference differ:\n%+v, %v\n%+v, %v", base, got, err, want, werr)
	}
	return got, err
}

// rustDocOptions are the options the rust-doc pages are compared under:
// the crawler's, and bounds that cut extraction short.
var rustDocOptions = []Options{{}, {HonorNofollow: true, Agent: "rustdoc"}, {MaxLinks: 40, MaxAnchor: 7}}

// TestLinksFastRustDoc compares Links with the reference algorithm on the
// pages of testdata/rustdoc, at their URL on doc.rust-lang.org and at the
// loopback URL of a local crawl, and as nginx and as a server that
// declares the charset serve them.
func TestLinksFastRustDoc(t *testing.T) {
	n := 0
	for _, p := range rustDocPages {
		body, err := os.ReadFile(filepath.Join("testdata", "rustdoc", p.file))
		if err != nil {
			t.Fatal(err)
		}
		local := "http://127.0.0.1:8080/" + strings.TrimPrefix(p.url, "https://doc.rust-lang.org/1.63.0/")
		for _, base := range []string{p.url, local} {
			for _, ct := range []string{"text/html", "text/html; charset=utf-8"} {
				for _, opts := range rustDocOptions {
					res, _ := checkFast(t, body, base, ct, opts)
					n += len(res.Links)
				}
			}
		}
	}
	if n < 1000 {
		t.Errorf("only %d links compared", n)
	}
	t.Logf("%d links compared", n)
}

// rustDocDir is where Debian's rust-doc package installs its HTML.
const rustDocDir = "/usr/share/doc/rust-doc/html"

// TestLinksFastRustDocTree compares Links with the reference algorithm on
// every HTML page of Debian's rust-doc (32,101 pages in rust-doc 1.63),
// or with -short on an even sample of 2,000 of them, at loopback URLs as
// a local crawl sees them. It is skipped where the package is absent.
func TestLinksFastRustDocTree(t *testing.T) {
	if _, err := os.Stat(rustDocDir); err != nil {
		t.Skipf("no rust-doc: %v", err)
	}
	var files []string
	err := filepath.WalkDir(rustDocDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".html") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() && len(files) > 2000 {
		sample := files[:0]
		for i := range 2000 {
			sample = append(sample, files[i*len(files)/2000])
		}
		files = sample
	}
	pages, links := 0, 0
	for _, path := range files {
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		base := "http://127.0.0.1:8080/" + strings.TrimPrefix(path, rustDocDir+"/")
		res, _ := checkFast(t, body, base, "text/html", Options{})
		pages++
		links += len(res.Links)
	}
	t.Logf("%d pages, %d links compared", pages, links)
}

// TestContainsFold checks containsFold against a byte-by-byte scan on
// 20,000 seeded random strings over an alphabet of the words' letters in
// both cases, their neighbours and the bytes that fold onto ':'.
func TestContainsFold(t *testing.T) {
	slow := func(b []byte, s string) bool {
		for i := 0; i+len(s) <= len(b); i++ {
			j := 0
			for j < len(s) && b[i+j]|0x20 == s[j] {
				j++
			}
			if j == len(s) {
				return true
			}
		}
		return false
	}
	const alphabet = "cChHaArRsSeEtTlLnNoOiIkK:\x1a&=\" "
	r := rand.New(rand.NewPCG(5, 6))
	hits := 0
	for range 20000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		for _, s := range []string{"rel", "ca", "canonical", "charset", "xlink:href", "c"} {
			got, want := containsFold(b, s), slow(b, s)
			if got != want {
				t.Fatalf("containsFold(%q, %q) = %v, want %v", b, s, got, want)
			}
			if got {
				hits++
			}
		}
	}
	if hits < 1000 {
		t.Errorf("only %d strings contained a word", hits)
	}
}
