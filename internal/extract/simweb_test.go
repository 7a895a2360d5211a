package extract

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html/charset"

	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

// simwebLink matches the links simweb writes, well-formed
// (<a href="/x">Title</a>) and malformed (<A HREF=/x>Title</a>).
var simwebLink = regexp.MustCompile(`<(?:a href="|A HREF=)([^">]+)"?>([^<]*)</a>`)

// TestLinksSimweb renders pages of a synthetic web, plain, malformed and
// in windows-1252, and checks that Links finds exactly the links simweb
// wrote: the hrefs read back with a regular expression and resolved by
// net/url, an independent resolver, with their anchor texts.
func TestLinksSimweb(t *testing.T) {
	tests := []struct {
		name    string
		faults  func(*simweb.Faults)
		charset string
		mark    string // in every page of the variant
		urls    []string
	}{
		{"plain", func(f *simweb.Faults) { f.Redirect, f.Loop, f.Trap = 0.3, 0.3, 1 }, "utf-8", `<a href="`,
			[]string{"/go/", "/loop/", "/calendar/", "http://h"}}, // fault links, and links to other sites
		{"malformed", func(f *simweb.Faults) { f.Malformed = 1 }, "utf-8", "<A HREF=", nil},
		{"charset", func(f *simweb.Faults) { f.Charset = 1 }, "windows-1252", "charset=windows-1252", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := simweb.DefaultConfig()
			cfg.Hosts, cfg.PagesPerHost = 4, 40
			tt.faults(&cfg.Faults)
			web, err := simweb.New(cfg, &simweb.ManualClock{})
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			for si := range int32(2) {
				for slot := range int32(cfg.PagesPerHost) {
					for _, l := range checkSimwebPage(t, web, web.URL(si, slot, web.VersionAt(si, slot, 0).Gen), tt.charset, tt.mark) {
						all = append(all, l.URL)
					}
				}
			}
			if len(all) < 2*cfg.PagesPerHost*5 {
				t.Errorf("only %d links on %d pages", len(all), 2*cfg.PagesPerHost)
			}
			joined := strings.Join(all, " ")
			for _, u := range tt.urls {
				if !strings.Contains(joined, u) {
					t.Errorf("no link contains %q", u)
				}
			}
		})
	}
}

// checkSimwebPage fetches one page from web, checks that it holds mark,
// and compares the links. It returns them.
func checkSimwebPage(t *testing.T, web *simweb.Web, pageURL, wantCharset, mark string) []Link {
	t.Helper()
	rec := httptest.NewRecorder()
	web.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, pageURL, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d", pageURL, rec.Code)
	}
	body, ct := rec.Body.Bytes(), rec.Header().Get("Content-Type")
	if !bytes.Contains(body, []byte(mark)) {
		t.Fatalf("%s does not hold %q:\n%s", pageURL, mark, body)
	}

	res, err := Links(bytes.NewReader(body), pageURL, ct, Options{})
	if err != nil {
		t.Fatalf("Links(%s): %v", pageURL, err)
	}
	if res.Charset != wantCharset || res.Truncated || res.Canonical != "" || res.Robots != (Robots{}) {
		t.Errorf("%s: charset %q, truncated %v, canonical %q, robots %+v", pageURL, res.Charset, res.Truncated, res.Canonical, res.Robots)
	}

	// The expected links, from the page decoded by its declared charset.
	dec, err := charset.NewReaderLabel(wantCharset, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	text, err := io.ReadAll(dec)
	if err != nil {
		t.Fatal(err)
	}
	base, err := url.Parse(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	var want []Link
	for _, m := range simwebLink.FindAllStringSubmatch(string(text), -1) {
		ref, err := url.Parse(m[1])
		if err != nil {
			t.Fatalf("%s: href %q: %v", pageURL, m[1], err)
		}
		want = append(want, a(base.ResolveReference(ref).String(), strings.Join(strings.Fields(m[2]), " ")))
	}
	if len(want) == 0 {
		t.Fatalf("%s: no links in the page:\n%s", pageURL, text)
	}
	checkLinks(t, res.Links, want)
	return res.Links
}
