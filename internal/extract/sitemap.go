package extract

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
	"time"

	"golang.org/x/net/html/charset"

	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// SitemapKind is the format of a sitemap file.
type SitemapKind uint8

// Sitemap formats (sitemaps.org protocol 0.9).
const (
	SitemapURLSet SitemapKind = iota + 1 // XML <urlset> of pages
	SitemapIndex                         // XML <sitemapindex> of sitemaps
	SitemapText                          // plain text, one URL per line
)

var sitemapKindNames = [...]string{"", "urlset", "sitemapindex", "text"}

// String returns the name of the format: "urlset", "sitemapindex" or
// "text".
func (k SitemapKind) String() string {
	if int(k) < len(sitemapKindNames) {
		return sitemapKindNames[k]
	}
	return fmt.Sprintf("SitemapKind(%d)", k)
}

// SitemapEntry is a <url> of a urlset, a <sitemap> of an index, or a line
// of a text sitemap.
type SitemapEntry struct {
	Loc     string    // absolute, in urlx canonical form
	LastMod time.Time // UTC; zero if absent or not a W3C datetime
}

// SitemapResult is what Sitemap finds in a sitemap file.
type SitemapResult struct {
	Kind      SitemapKind
	Gzip      bool           // the file was gzip-compressed
	URLs      []SitemapEntry // pages, from a urlset or a text sitemap
	Sitemaps  []SitemapEntry // child sitemaps, from a sitemap index
	Skipped   int            // entries dropped: no loc, or a loc that is not an http or https URL
	Truncated bool           // the entry limit or MaxSitemapBytes cut the file short
}

// Limits of the sitemaps.org protocol for one file.
const (
	// DefaultSitemapLimit is the most entries a sitemap file may hold.
	DefaultSitemapLimit = 50000
	// MaxSitemapBytes is the most a sitemap file may hold, uncompressed;
	// Sitemap reads no further.
	MaxSitemapBytes = 50 << 20
)

// Errors Sitemap returns.
var (
	// ErrNotSitemap is returned for input that is none of the formats:
	// binary data, or XML whose root is not urlset or sitemapindex.
	ErrNotSitemap = errors.New("extract: not a sitemap")
	// ErrLongText is returned for XML with a run of text (or a tag) over
	// maxXMLRun bytes, which no sitemap has and which would make the XML
	// decoder hold it all in memory.
	ErrLongText = errors.New("extract: sitemap XML text run too long")
)

// maxXMLRun bounds the bytes between two '<' of a sitemap's XML.
const maxXMLRun = 1 << 20

// Sitemap reads a sitemap file: an XML urlset or sitemap index, or a plain
// text list of URLs, gzip-compressed or not (the format is told by the
// content: gzip's magic bytes 1f 8b, then whether the first non-blank
// character is '<'; contentType only gives the charset of a text sitemap,
// which the protocol wants to be UTF-8). limit is the most entries kept
// (0: DefaultSitemapLimit). At most MaxSitemapBytes are read after
// decompression, so a gzip bomb costs no more than a large file.
//
// Locs are canonicalised with urlx; entries whose loc is missing or does
// not parse are counted in Skipped. The caller checks that the URLs are on
// the sitemap's host, as the protocol requires. On malformed XML the
// entries before the fault are returned with the error.
func Sitemap(r io.Reader, contentType string, limit int) (SitemapResult, error) {
	if limit <= 0 {
		limit = DefaultSitemapLimit
	}
	var res SitemapResult
	in := bufio.NewReader(&stickyReader{r: r})
	if magic, _ := in.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(in)
		if err != nil {
			return res, fmt.Errorf("extract sitemap: %w", err)
		}
		res.Gzip = true
		in = bufio.NewReader(zr)
	}
	br := &boundedReader{r: in, n: MaxSitemapBytes}
	body := bufio.NewReaderSize(br, 16<<10)
	s := sitemapReader{res: &res, limit: limit}

	head, err := body.Peek(512)
	head = bytes.TrimPrefix(head, utf8BOM)
	if binary(head) {
		if err != nil && err != io.EOF {
			return res, fmt.Errorf("extract sitemap: %w", err) // the bytes may be a fragment
		}
		return res, fmt.Errorf("extract sitemap: %w: binary data", ErrNotSitemap)
	}
	if t := bytes.TrimLeft(head, " \t\r\n"); len(t) > 0 && t[0] == '<' {
		err = s.readXML(&runGuard{r: body})
	} else {
		res.Kind = SitemapText
		err = s.readText(body, contentType)
	}
	res.Truncated = res.Truncated || br.truncated
	if err != nil {
		if br.truncated && !errors.Is(err, ErrNotSitemap) {
			return res, nil // the cut, reported as Truncated, broke the XML
		}
		return res, fmt.Errorf("extract sitemap: %w", err)
	}
	return res, nil
}

var utf8BOM = []byte("\xef\xbb\xbf")

// binary reports whether the start of a file has bytes no text has: NUL
// and the C0 controls other than tab, newline, form feed and carriage
// return.
func binary(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\f' && c != '\r' {
			return true
		}
	}
	return false
}

type sitemapReader struct {
	res   *SitemapResult
	limit int
}

// add canonicalises and records one entry; it reports false when the
// limit is reached.
func (s *sitemapReader) add(index bool, loc, lastmod string) bool {
	u, err := urlx.Canonical(strings.TrimSpace(loc))
	if err != nil {
		s.res.Skipped++
		return true
	}
	if len(s.res.URLs)+len(s.res.Sitemaps) == s.limit {
		s.res.Truncated = true
		return false
	}
	e := SitemapEntry{Loc: u, LastMod: ParseLastMod(lastmod)}
	if index {
		s.res.Sitemaps = append(s.res.Sitemaps, e)
	} else {
		s.res.URLs = append(s.res.URLs, e)
	}
	return true
}

// readXML reads a urlset or a sitemap index. Element names are matched by
// local name, so any namespace prefix works; loc and lastmod count only as
// direct children of url or sitemap, not the image:loc of an image
// sitemap extension.
func (s *sitemapReader) readXML(r io.Reader) error {
	d := xml.NewDecoder(r)
	d.Strict = false // unescaped '&' in locs is common
	d.CharsetReader = charset.NewReaderLabel
	var (
		depth      int
		entryDepth = -1 // depth of the open url or sitemap element
		index      bool // the open entry is a sitemap, not a url
		field      *string
		loc, mod   string
		text       []byte
	)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			if s.res.Kind == 0 {
				return fmt.Errorf("%w: no urlset or sitemapindex element", ErrNotSitemap)
			}
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			name := t.Name.Local
			switch {
			case depth == 1:
				switch name {
				case "urlset":
					s.res.Kind = SitemapURLSet
				case "sitemapindex":
					s.res.Kind = SitemapIndex
				default:
					return fmt.Errorf("%w: XML root <%s>", ErrNotSitemap, name)
				}
			case depth == 2 && (name == "url" || name == "sitemap"):
				entryDepth, index, loc, mod = depth, name == "sitemap", "", ""
			case depth == entryDepth+1 && name == "loc":
				field, text = &loc, text[:0]
			case depth == entryDepth+1 && name == "lastmod":
				field, text = &mod, text[:0]
			}
		case xml.CharData:
			if field != nil && len(text) <= urlx.MaxInput {
				text = append(text, t...)
			}
		case xml.EndElement:
			if field != nil && depth == entryDepth+1 {
				*field = string(text)
				field = nil
			}
			if depth == entryDepth {
				entryDepth = -1
				if !s.add(index, loc, mod) {
					return nil
				}
			}
			depth--
		}
	}
}

// readText reads a text sitemap: one URL per line, blank lines ignored.
// Lines too long to be a URL are skipped.
func (s *sitemapReader) readText(r *bufio.Reader, contentType string) error {
	if _, params, err := mime.ParseMediaType(contentType); err == nil {
		if cs := params["charset"]; cs != "" && !strings.EqualFold(cs, "utf-8") {
			dec, err := charset.NewReaderLabel(cs, r)
			if err != nil {
				return err
			}
			r = bufio.NewReaderSize(dec, 16<<10)
		}
	}
	long := false // inside a line over the buffer size
	for {
		line, err := r.ReadSlice('\n')
		switch {
		case err == bufio.ErrBufferFull:
			if !long {
				s.res.Skipped++
			}
			long = true
			continue
		case long:
			long = false
		default:
			if l := bytes.TrimSpace(bytes.TrimPrefix(line, utf8BOM)); len(l) > 0 && !s.add(false, string(l), "") {
				return nil
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// runGuard fails a read once more than maxXMLRun bytes pass without a '<'.
type runGuard struct {
	r   io.Reader
	run int
}

// Read reads from r, failing with ErrLongText past the bound.
func (g *runGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if i := bytes.LastIndexByte(p[:n], '<'); i >= 0 {
		g.run = n - i - 1
	} else {
		g.run += n
	}
	if g.run > maxXMLRun {
		return n, ErrLongText
	}
	return n, err
}

// lastModLayouts are the W3C datetime profile of ISO 8601 used by
// sitemaps (https://www.w3.org/TR/NOTE-datetime), finest first; time.Parse
// takes a decimal fraction of a second where the layout has seconds. The
// last ones accept common deviations: no time zone (taken as UTC) and a
// space instead of the T.
var lastModLayouts = []string{
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04Z07:00",
	"2006-01-02",
	"2006-01",
	"2006",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05",
}

// ParseLastMod parses a sitemap lastmod value, a W3C datetime: YYYY,
// YYYY-MM, YYYY-MM-DD, or a date with hh:mm, hh:mm:ss or hh:mm:ss.s and a
// time zone (Z or ±hh:mm). It returns the time in UTC, or the zero time if
// s is none of these.
func ParseLastMod(s string) time.Time {
	s = strings.TrimSpace(s)
	if len(s) < 4 || len(s) > 40 {
		return time.Time{}
	}
	for _, layout := range lastModLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
