package extract

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

func sitemap(t *testing.T, body, contentType string, limit int) SitemapResult {
	t.Helper()
	res, err := Sitemap(strings.NewReader(body), contentType, limit)
	if err != nil {
		t.Fatalf("Sitemap: %v", err)
	}
	return res
}

func gz(t testing.TB, s string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func date(y int, m time.Month, d, hh, mm, ss, ns int) time.Time {
	return time.Date(y, m, d, hh, mm, ss, ns, time.UTC)
}

const urlset = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url>
    <loc>http://www.example.com/</loc>
    <lastmod>2005-01-01</lastmod>
    <changefreq>monthly</changefreq>
    <priority>0.8</priority>
  </url>
  <url>
    <loc> http://www.example.com/catalog?item=12&amp;desc=vacation_hawaii </loc>
    <changefreq>weekly</changefreq>
    <image:image><image:loc>http://img.example.com/hawaii.jpg</image:loc></image:image>
  </url>
  <url><loc><![CDATA[http://www.example.com/catalog?item=73&desc=vacation_new_zealand]]></loc><lastmod>2004-12-23T18:00:15+00:00</lastmod></url>
  <url><lastmod>2004-12-23</lastmod></url>
  <url><loc>ftp://www.example.com/file</loc></url>
  <url><loc>HTTP://WWW.EXAMPLE.COM:80/a/../b</loc><lastmod>not a date</lastmod></url>
</urlset>
`

func TestSitemapURLSet(t *testing.T) {
	res := sitemap(t, urlset, "application/xml", 0)
	want := []SitemapEntry{
		{"http://www.example.com/", date(2005, 1, 1, 0, 0, 0, 0)},
		{"http://www.example.com/catalog?item=12&desc=vacation_hawaii", time.Time{}},
		{"http://www.example.com/catalog?item=73&desc=vacation_new_zealand", date(2004, 12, 23, 18, 0, 15, 0)},
		{"http://www.example.com/b", time.Time{}},
	}
	if res.Kind != SitemapURLSet || res.Gzip || res.Truncated || res.Skipped != 2 || len(res.Sitemaps) != 0 {
		t.Errorf("result %+v", res)
	}
	checkEntries(t, res.URLs, want)
}

func checkEntries(t *testing.T, got, want []SitemapEntry) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d: %v", len(got), len(want), got)
	}
	for i := range got {
		if got[i].Loc != want[i].Loc || !got[i].LastMod.Equal(want[i].LastMod) {
			t.Errorf("entry %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestSitemapIndex(t *testing.T) {
	index := `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>http://www.example.com/sitemap1.xml.gz</loc><lastmod>2004-10-01T18:23:17+00:00</lastmod></sitemap>
  <sitemap><loc>http://www.example.com/sitemap2.xml.gz</loc><lastmod>2005-01-01</lastmod></sitemap>
</sitemapindex>`
	res := sitemap(t, index, "text/xml", 0)
	if res.Kind != SitemapIndex || len(res.URLs) != 0 {
		t.Errorf("result %+v", res)
	}
	checkEntries(t, res.Sitemaps, []SitemapEntry{
		{"http://www.example.com/sitemap1.xml.gz", date(2004, 10, 1, 18, 23, 17, 0)},
		{"http://www.example.com/sitemap2.xml.gz", date(2005, 1, 1, 0, 0, 0, 0)},
	})
}

func TestSitemapVariants(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"prefixed namespace", `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>http://a.example/p</sm:loc></sm:url></sm:urlset>`,
			[]string{"http://a.example/p"}},
		{"no namespace, no declaration", `<urlset><url><loc>http://a.example/q</loc></url></urlset>`, []string{"http://a.example/q"}},
		{"BOM and blank lines", "\xef\xbb\xbf\n\n  <urlset><url><loc>http://a.example/b</loc></url></urlset>", []string{"http://a.example/b"}},
		{"unescaped ampersand", `<urlset><url><loc>http://a.example/s?a=1&b=2</loc></url></urlset>`, []string{"http://a.example/s?a=1&b=2"}},
		{"ISO-8859-1 declared", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><urlset><url><loc>http://a.example/caf\xe9</loc></url></urlset>",
			[]string{"http://a.example/caf%C3%A9"}},
		{"comments", `<urlset><!-- <url><loc>http://a.example/c</loc></url> --><url><loc>http://a.example/d</loc></url></urlset>`,
			[]string{"http://a.example/d"}},
		{"loc nested deeper ignored", `<urlset><url><x><loc>http://a.example/x</loc></x></url></urlset>`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := sitemap(t, tt.body, "", 0)
			var got []string
			for _, e := range res.URLs {
				got = append(got, e.Loc)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("locs %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSitemapText(t *testing.T) {
	body := "\xef\xbb\xbfhttp://a.example/1\r\n\n   http://a.example/2  \nnot a url\nmailto:x@a.example\n" +
		strings.Repeat("x", 20000) + "\nhttps://a.example/3"
	res := sitemap(t, body, "text/plain", 0)
	if res.Kind != SitemapText || res.Skipped != 3 || res.Truncated {
		t.Errorf("result %+v", res)
	}
	checkEntries(t, res.URLs, []SitemapEntry{{Loc: "http://a.example/1"}, {Loc: "http://a.example/2"}, {Loc: "https://a.example/3"}})

	// A charset in Content-Type is honoured.
	res = sitemap(t, "http://a.example/caf\xe9\n", "text/plain; charset=iso-8859-1", 0)
	checkEntries(t, res.URLs, []SitemapEntry{{Loc: "http://a.example/caf%C3%A9"}})
	// An empty file is an empty text sitemap.
	if res := sitemap(t, "", "", 0); res.Kind != SitemapText || len(res.URLs) != 0 {
		t.Errorf("empty: %+v", res)
	}
}

func TestSitemapGzip(t *testing.T) {
	for _, tt := range []struct{ name, body string }{
		{"xml", gz(t, urlset)},
		{"text", gz(t, "http://a.example/1\nhttp://a.example/2\n")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The content type says nothing of gzip: the magic bytes decide.
			res := sitemap(t, tt.body, "application/octet-stream", 0)
			if !res.Gzip || len(res.URLs) == 0 {
				t.Errorf("result %+v", res)
			}
		})
	}
	// Two gzip members, as concatenated files give.
	res := sitemap(t, gz(t, "http://a.example/1\n")+gz(t, "http://a.example/2\n"), "", 0)
	checkEntries(t, res.URLs, []SitemapEntry{{Loc: "http://a.example/1"}, {Loc: "http://a.example/2"}})
	// A corrupt stream is an error.
	bad := []byte(gz(t, urlset))
	bad[len(bad)/2] ^= 0xff
	if _, err := Sitemap(bytes.NewReader(bad), "", 0); err == nil {
		t.Error("corrupt gzip: no error")
	}
	if _, err := Sitemap(strings.NewReader("\x1f\x8b\x08"), "", 0); err == nil {
		t.Error("truncated gzip header: no error")
	}
}

// TestSitemapGzipBomb feeds 100 MiB of zeros, gzip-compressed to about
// 100 KiB. It must be refused after reading little of it: the zeros are
// binary, not a sitemap. The allocation bound, 16 MiB, is far below the
// 100 MiB a reader without a bound would need and well above what the
// decoder's buffers take.
func TestSitemapGzipBomb(t *testing.T) {
	bomb := gzipZeros(t, 100<<20)
	t.Logf("bomb: %d bytes compressed", len(bomb))
	allocated := allocatedBy(func() {
		_, err := Sitemap(bytes.NewReader(bomb), "application/x-gzip", 0)
		if !errors.Is(err, ErrNotSitemap) {
			t.Errorf("err = %v, want ErrNotSitemap", err)
		}
	})
	t.Logf("allocated %d bytes", allocated)
	if allocated > 16<<20 {
		t.Errorf("allocated %d bytes", allocated)
	}
}

// TestSitemapTextBomb is a bomb that looks like text: 100 MiB of blank
// lines. Sitemap reads MaxSitemapBytes of it and reports the file
// truncated, allocating little.
func TestSitemapTextBomb(t *testing.T) {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	line := bytes.Repeat([]byte(" \n"), 32<<10)
	for n := 0; n < 100<<20; n += len(line) {
		zw.Write(line)
	}
	zw.Close()
	var res SitemapResult
	allocated := allocatedBy(func() {
		var err error
		res, err = Sitemap(&b, "", 0)
		if err != nil {
			t.Error(err)
		}
	})
	if !res.Truncated || len(res.URLs) != 0 {
		t.Errorf("result %+v", res)
	}
	t.Logf("allocated %d bytes", allocated)
	if allocated > 16<<20 {
		t.Errorf("allocated %d bytes", allocated)
	}
}

// TestSitemapXMLBomb is a bomb of XML text: one loc holding 100 MiB. The
// run guard stops the XML decoder, which would otherwise buffer it all.
func TestSitemapXMLBomb(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte("<urlset><url><loc>http://a.example/"))
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for i := 0; i < 100; i++ {
		zw.Write(chunk)
	}
	zw.Close()
	allocated := allocatedBy(func() {
		if _, err := Sitemap(&b, "", 0); !errors.Is(err, ErrLongText) {
			t.Errorf("err = %v, want ErrLongText", err)
		}
	})
	t.Logf("allocated %d bytes", allocated)
	if allocated > 16<<20 {
		t.Errorf("allocated %d bytes", allocated)
	}
}

func gzipZeros(t *testing.T, n int) []byte {
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for i := 0; i < n; i += len(zeros) {
		zw.Write(zeros)
	}
	zw.Close()
	return b.Bytes()
}

// allocatedBy returns the bytes f allocates on the heap.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestSitemapLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("<urlset>")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "<url><loc>http://a.example/%d</loc></url>", i)
	}
	b.WriteString("</urlset>")
	res := sitemap(t, b.String(), "", 10)
	if len(res.URLs) != 10 || !res.Truncated || res.URLs[9].Loc != "http://a.example/9" {
		t.Errorf("limit 10: %d URLs, truncated %v", len(res.URLs), res.Truncated)
	}
	res = sitemap(t, b.String(), "", 20)
	if len(res.URLs) != 20 || res.Truncated {
		t.Errorf("limit 20: %d URLs, truncated %v", len(res.URLs), res.Truncated)
	}
	// The protocol's default: 50,000 entries.
	var text strings.Builder
	for i := 0; i < DefaultSitemapLimit+5; i++ {
		fmt.Fprintf(&text, "http://a.example/%d\n", i)
	}
	res = sitemap(t, text.String(), "", 0)
	if len(res.URLs) != DefaultSitemapLimit || !res.Truncated {
		t.Errorf("default limit: %d URLs, truncated %v", len(res.URLs), res.Truncated)
	}
}

func TestSitemapMalformed(t *testing.T) {
	tests := []struct {
		name, body string
		urls       int
		err        error
	}{
		{"unclosed elements", `<urlset><url><loc>http://a.example/1</loc></url><url><loc>http://a.example/2`, 1, nil},
		{"bad tag syntax", `<urlset><url><loc>http://a.example/1</loc></url><url <loc>x</loc></url></urlset>`, 1, nil},
		{"RSS feed", `<rss version="2.0"><channel><link>http://a.example/</link></channel></rss>`, 0, ErrNotSitemap},
		{"HTML page", "<!DOCTYPE html><html><body>Not found</body></html>", 0, ErrNotSitemap},
		{"binary", "\x00\x01\x02\x03", 0, ErrNotSitemap},
		{"unknown encoding", `<?xml version="1.0" encoding="x-klingon"?><urlset></urlset>`, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Sitemap(strings.NewReader(tt.body), "", 0)
			if err == nil {
				t.Fatalf("no error; result %+v", res)
			}
			if tt.err != nil && !errors.Is(err, tt.err) {
				t.Errorf("err = %v, want %v", err, tt.err)
			}
			if len(res.URLs) != tt.urls {
				t.Errorf("%d URLs, want %d (err %v)", len(res.URLs), tt.urls, err)
			}
		})
	}
}

func TestParseLastMod(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{"1997", date(1997, 1, 1, 0, 0, 0, 0)},
		{"1997-07", date(1997, 7, 1, 0, 0, 0, 0)},
		{"1997-07-16", date(1997, 7, 16, 0, 0, 0, 0)},
		{"1997-07-16T19:20+01:00", date(1997, 7, 16, 18, 20, 0, 0)},
		{"1997-07-16T19:20:30+01:00", date(1997, 7, 16, 18, 20, 30, 0)},
		{"1997-07-16T19:20:30.45+01:00", date(1997, 7, 16, 18, 20, 30, 450000000)},
		{"1997-07-16T19:20:30.45Z", date(1997, 7, 16, 19, 20, 30, 450000000)},
		{"1997-07-16T19:20:30-05:30", date(1997, 7, 17, 0, 50, 30, 0)},
		{"2004-12-23T18:00:15+00:00", date(2004, 12, 23, 18, 0, 15, 0)},
		{" 2005-01-01 \n", date(2005, 1, 1, 0, 0, 0, 0)},
		// deviations accepted: no time zone (UTC), space for T
		{"2005-01-01T12:30:00", date(2005, 1, 1, 12, 30, 0, 0)},
		{"2005-01-01T12:30", date(2005, 1, 1, 12, 30, 0, 0)},
		{"2005-01-01 12:30:00", date(2005, 1, 1, 12, 30, 0, 0)},
		// not W3C datetimes
		{"", time.Time{}},
		{"yesterday", time.Time{}},
		{"2005-13-01", time.Time{}},
		{"2005-02-30", time.Time{}},
		{"01/02/2005", time.Time{}},
		{"Mon, 02 Jan 2006 15:04:05 GMT", time.Time{}},
		{"97", time.Time{}},
		{"1997-07-16T25:00Z", time.Time{}},
	}
	for _, tt := range tests {
		if got := ParseLastMod(tt.in); !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("ParseLastMod(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestSitemapReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("http://a.example/1\nhttp://a.example/2\n"), &errReader{boom})
	res, err := Sitemap(r, "", 0)
	if !errors.Is(err, boom) || len(res.URLs) != 2 {
		t.Errorf("err %v, %d URLs", err, len(res.URLs))
	}
}

// onceErrReader returns its error once, then io.EOF, as some readers do;
// the error must not be lost.
type onceErrReader struct {
	err  error
	done bool
}

func (e *onceErrReader) Read([]byte) (int, error) {
	if e.done {
		return 0, io.EOF
	}
	e.done = true
	return 0, e.err
}

func TestSitemapErrorNotLost(t *testing.T) {
	boom := errors.New("connection reset")
	for _, body := range []string{"http://a.example/1\n", "<urlset><url><loc>http://a.example/1</loc></url>"} {
		_, err := Sitemap(io.MultiReader(strings.NewReader(body), &onceErrReader{err: boom}), "", 0)
		if !errors.Is(err, boom) {
			t.Errorf("%q: err = %v, want %v", body, err, boom)
		}
	}
	_, err := Links(io.MultiReader(strings.NewReader(`<a href="/1">1</a>`), &onceErrReader{err: boom}), page, "", Options{})
	if !errors.Is(err, boom) {
		t.Errorf("Links: err = %v, want %v", err, boom)
	}
}

func TestSitemapGzipErrorNotLost(t *testing.T) {
	boom := errors.New("connection reset")
	_, err := Sitemap(io.MultiReader(strings.NewReader("\x1f"), &onceErrReader{err: boom}), "", 0)
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want %v", err, boom)
	}
}
