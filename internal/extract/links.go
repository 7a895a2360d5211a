// Package extract finds the URLs a crawler learns from what it fetches:
// the links of HTML pages and the entries of sitemaps.
package extract

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// Kind is the element a link comes from.
type Kind uint8

// Link kinds.
const (
	KindA         Kind = iota + 1 // <a href>
	KindArea                      // <area href>
	KindFrame                     // <frame src>
	KindIFrame                    // <iframe src>
	KindCanonical                 // <link rel="canonical" href>
)

var kindNames = [...]string{"", "a", "area", "frame", "iframe", "link-canonical"}

// String returns the name of the kind: the element, or "link-canonical".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Link is one link of a page.
type Link struct {
	URL      string // absolute, in urlx canonical form
	Anchor   string // text of the link (alt text for area and images), whitespace collapsed, at most Options.MaxAnchor bytes
	Nofollow bool   // the element's rel attribute holds "nofollow"
	Kind     Kind
}

// Robots holds the directives of a page's robots meta tags.
type Robots struct {
	NoIndex  bool // "noindex" or "none": do not keep the page
	NoFollow bool // "nofollow" or "none": do not follow its links
}

// Result is what Links finds in a page.
type Result struct {
	Links     []Link // in document order; a URL linked twice appears twice
	Canonical string // the first <link rel="canonical"> that resolves, or ""
	Base      string // the URL links were resolved against: the first <base href>, or the page's URL
	Robots    Robots // from <meta name="robots"> and <meta name=Options.Agent>
	Charset   string // the encoding the page was decoded from (WHATWG name)
	Truncated bool   // MaxLinks or MaxBytes cut extraction short
}

// Defaults for zero fields of Options.
const (
	DefaultMaxLinks  = 10000
	DefaultMaxBytes  = 8 << 20
	DefaultMaxAnchor = 256
	DefaultAgent     = "freshcrawl"
)

// Options bound and steer link extraction. Zero fields take the Default*
// values.
type Options struct {
	MaxLinks  int   // links kept per page; past it extraction stops
	MaxBytes  int64 // bytes of the body read; past it extraction stops
	MaxAnchor int   // bytes of anchor text kept per link
	// HonorNofollow leaves out links marked rel="nofollow", and every link
	// of a page whose robots meta tag says nofollow. Off, such links are
	// returned with Nofollow set (and Result.Robots says the rest).
	HonorNofollow bool
	// Agent is the meta tag name that addresses this crawler in
	// particular, as <meta name="robots"> addresses every crawler.
	Agent string
	// Canonicalizer canonicalises the URLs found (query sorting).
	Canonicalizer urlx.Canonicalizer
}

func (o *Options) defaults() {
	if o.MaxLinks == 0 {
		o.MaxLinks = DefaultMaxLinks
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxAnchor == 0 {
		o.MaxAnchor = DefaultMaxAnchor
	}
	if o.Agent == "" {
		o.Agent = DefaultAgent
	}
}

// pending is a link seen but not yet resolved: links are resolved at the
// end, because a <base href> anywhere in the document applies to all of
// them. href and anchor are offsets into the extractor's text buffer.
type pending struct {
	hrefStart, hrefEnd     int
	anchorStart, anchorEnd int
	kind                   Kind
	nofollow               bool
}

// extractor is the state of one Links call.
type extractor struct {
	opts     Options
	z        *html.Tokenizer
	buf      []byte // hrefs and anchor texts, back to back
	links    []pending
	open     int  // index in links of the <a> whose text is being read, or -1
	space    bool // a space is due before the open link's next word
	base     string
	baseSeen bool
	robots   Robots
	full     bool // MaxLinks reached
	name     [10]byte
	query    stringEncoder // the page's encoding for queries, or nil for UTF-8
	// reference turns the fast paths off: every <link> tag is read and
	// every href resolved by the full parser (urlx's Parse), as before
	// they existed. The differential tests compare the two.
	reference bool
}

// Links extracts the links of an HTML page, read from r, whose URL is base
// and whose Content-Type header is contentType (for the charset; "" if
// none). It reads at most opts.MaxBytes of r, decodes it as the HTML
// standard says a browser should (byte order mark, then the Content-Type
// charset, then a <meta> charset in the first 1,024 bytes, else UTF-8
// rather than the standard's windows-1252 when nothing is declared and the
// first 1,024 bytes are ASCII), and tokenises it with golang.org/x/net/html,
// which reads broken markup as browsers do.
//
// Links come from <a href>, <area href>, <frame src>, <iframe src> and
// <link rel="canonical" href>, including those inside <noscript> and
// <noframes>. They are resolved against the first <base href> (or base)
// and canonicalised; hrefs that do not resolve to an http or https URL
// (javascript:, mailto:, data:, ...) and links to the page itself by
// fragment ("#top") are dropped. As in browsers, the non-ASCII text of a
// query is percent-encoded in the page's encoding (a windows-1252 page's
// "?q=é" is "?q=%E9"), that of a path in UTF-8. An error is returned if base is not an
// absolute http or https URL, or if reading r fails; in the latter case
// the links found before the failure are returned too.
func Links(r io.Reader, base, contentType string, opts Options) (Result, error) {
	return extractLinks(r, base, contentType, opts, false)
}

// extractLinks is Links, with the fast paths off if reference is set.
func extractLinks(r io.Reader, base, contentType string, opts Options, reference bool) (Result, error) {
	opts.defaults()
	doc, err := opts.Canonicalizer.Parse(base)
	if err != nil {
		return Result{}, fmt.Errorf("extract links: page URL: %w", err)
	}
	br := &boundedReader{r: &stickyReader{r: r}, n: opts.MaxBytes}
	body, charset, err := decodeHTML(br, contentType)
	if err != nil {
		return Result{}, fmt.Errorf("extract links from %s: %w", doc, err)
	}
	x := &extractor{opts: opts, z: html.NewTokenizer(body), open: -1, query: queryEncoder(charset), reference: reference}
	sc := scratchPool.Get().(*scratch)
	x.buf, x.links = sc.buf[:0], sc.links[:0]
	readErr := x.run()
	res := x.resolve(doc)
	sc.put(x)
	res.Charset = charset
	res.Truncated = x.full || br.truncated
	if readErr != nil {
		return res, fmt.Errorf("extract links from %s: %w", doc, readErr)
	}
	return res, nil
}

// The extractor's buf and links come from a pool: they grow by doubling
// to tens of kilobytes on a page of a hundred links, and the next page
// needs as much again. resolve copies what the Result keeps out of them.
// Only scratch up to maxPooledBuf and maxPooledLinks is kept, so the pool
// holds no giant page's worth.
const (
	maxPooledBuf   = 64 << 10
	maxPooledLinks = 1 << 10
)

type scratch struct {
	buf   []byte
	links []pending
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// put gives s back to the pool with the extractor's buf and links, which
// may have grown.
func (s *scratch) put(x *extractor) {
	if cap(x.buf) > maxPooledBuf || cap(x.links) > maxPooledLinks {
		return
	}
	s.buf, s.links = x.buf, x.links
	scratchPool.Put(s)
}

// run tokenises the page, collecting links, base and meta robots.
func (x *extractor) run() error {
	z := x.z
	skipText := false // the next token is the content of script, style, ...
	for !x.full {
		tt := z.Next()
		skip := skipText
		skipText = false
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); err != io.EOF {
				return err
			}
			return nil
		case html.TextToken:
			if x.open >= 0 && !skip {
				x.appendText(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			skipText = x.startTag(x.tagName())
		case html.EndTagToken:
			x.endTag(x.tagName())
		}
	}
	return nil
}

// tagName returns the lower-cased name of the current tag, or "" for names
// longer than any the extractor looks for. It reads the tag's raw bytes
// because the tokenizer's TagName copies the name on every call, which was
// a sixth of all allocations.
func (x *extractor) tagName() []byte {
	raw := x.z.Raw()
	i := 1 // past '<'
	if i < len(raw) && raw[i] == '/' {
		i++
	}
	n := 0
	for ; i < len(raw); i++ {
		c := raw[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/' || c == '>' {
			break
		}
		if n == len(x.name) {
			return nil
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		x.name[n] = c
		n++
	}
	return x.name[:n]
}

// startTag handles a start tag and reports whether the tokenizer will
// return the element's content as one raw text token next.
func (x *extractor) startTag(name []byte) (raw bool) {
	switch string(name) {
	case "a":
		x.anchor()
	case "area":
		x.area()
	case "frame":
		x.frame(KindFrame)
	case "iframe":
		x.frame(KindIFrame)
		return true
	case "link":
		x.link()
	case "base":
		x.baseTag()
	case "meta":
		x.meta()
	case "img":
		x.img()
	case "li", "tr", "td", "th":
		x.closeAnchor() // see endTag
	case "noscript", "noframes":
		// Their content is fallback markup, with links a crawler wants;
		// the tokenizer would otherwise return it as raw text, as a
		// browser that runs scripts (or shows frames) does.
		x.z.NextIsNotRawText()
	case "script", "style", "title", "textarea", "xmp", "noembed", "plaintext":
		return true
	}
	return false
}

// anchor handles <a>: it closes an open one and opens a link whose text
// follows. SVG links use xlink:href.
func (x *extractor) anchor() {
	x.closeAnchor()
	href, rel, xhref := x.attrs("href", "rel", "xlink:href")
	if !href.ok {
		href = xhref
	}
	if href.ok && x.addLink(href.val, KindA, hasToken(rel.val, "nofollow")) {
		x.open, x.space = len(x.links)-1, false
	}
}

// area handles <area>, a link whose text is its alt attribute.
func (x *extractor) area() {
	href, rel, alt := x.attrs("href", "rel", "alt")
	if href.ok && x.addLink(href.val, KindArea, hasToken(rel.val, "nofollow")) {
		x.setAnchor(alt.val)
	}
}

// frame handles <frame> and <iframe>, links by their src.
func (x *extractor) frame(kind Kind) {
	if src, _, _ := x.attrs("src", "", ""); src.ok {
		x.addLink(src.val, kind, false)
	}
}

// link handles <link>, of which only rel=canonical is a link to follow.
// Most are stylesheets, fonts and icons, so a tag whose source holds
// neither "canonical" in any case nor a character reference (which could
// spell it) is left unread. (hasToken folds case by Unicode rules, but
// only 'k' and 's' have non-ASCII folds, and "canonical" has neither.)
func (x *extractor) link() {
	if raw := x.z.Raw(); !x.reference && !containsFold(raw, "canonical") && bytes.IndexByte(raw, '&') < 0 {
		return
	}
	href, rel, _ := x.attrs("href", "rel", "")
	if href.ok && hasToken(rel.val, "canonical") {
		x.addLink(href.val, KindCanonical, hasToken(rel.val, "nofollow"))
	}
}

// baseTag handles <base>: the first base element with an href sets the
// document's base URL (HTML §4.2.3), wherever it is.
func (x *extractor) baseTag() {
	if href, _, _ := x.attrs("href", "", ""); href.ok && !x.baseSeen {
		x.baseSeen, x.base = true, string(href.val)
	}
}

// meta handles <meta>, whose robots directives (for every robot or for
// ours by name) apply to the page.
func (x *extractor) meta() {
	name, content, _ := x.attrs("name", "content", "")
	if name.ok && (strings.EqualFold(string(name.val), "robots") || strings.EqualFold(string(name.val), x.opts.Agent)) {
		x.robotsDirectives(content.val)
	}
}

// img handles <img>: inside a link, its alt text is a word of the anchor.
func (x *extractor) img() {
	if x.open < 0 {
		return
	}
	if _, _, alt := x.attrs("", "", "alt"); alt.ok {
		x.space = true // the image is a word of its own
		x.appendText(alt.val)
		x.space = true
	}
}

type attr struct {
	val []byte
	ok  bool
}

// found reports whether attrs is done with the attribute named k.
func found(k string, a attr) bool {
	return a.ok || k == ""
}

// attrs returns the values of up to three attributes of the current tag
// (the first of each name, as the HTML parser keeps); "" asks for nothing.
// It stops reading once it has them all: the tokenizer copies each
// attribute it returns, twice.
func (x *extractor) attrs(k1, k2, k3 string) (a1, a2, a3 attr) {
	for more := true; more && !(found(k1, a1) && found(k2, a2) && found(k3, a3)); {
		var k, v []byte
		k, v, more = x.z.TagAttr()
		switch string(k) {
		case "":
		case k1:
			if !a1.ok {
				a1 = attr{v, true}
			}
		case k2:
			if !a2.ok {
				a2 = attr{v, true}
			}
		case k3:
			if !a3.ok {
				a3 = attr{v, true}
			}
		}
	}
	return a1, a2, a3
}

// maxHref is the longest href kept. urlx refuses longer input anyway
// (urlx.MaxInput); stopping here saves copying it.
const maxHref = urlx.MaxInput

// addLink records a link unless its href is obviously useless, and
// reports whether it did.
func (x *extractor) addLink(href []byte, kind Kind, nofollow bool) bool {
	href = trimSpace(href)
	if len(href) > maxHref || otherScheme(href) {
		return false
	}
	if len(x.links) == x.opts.MaxLinks {
		x.full = true
		return false
	}
	// The open <a>'s text must stay at the end of buf; a link inside it
	// (an iframe, say) ends it.
	x.closeAnchor()
	start := len(x.buf)
	x.buf = append(x.buf, href...)
	x.links = append(x.links, pending{
		hrefStart: start, hrefEnd: len(x.buf),
		anchorStart: len(x.buf), anchorEnd: len(x.buf),
		kind: kind, nofollow: nofollow,
	})
	return true
}

// setAnchor sets the anchor text of the last link.
func (x *extractor) setAnchor(text []byte) {
	x.open, x.space = len(x.links)-1, false
	x.appendText(text)
	x.open = -1
}

// appendText adds text to the open link's anchor, collapsing runs of
// whitespace to one space and stopping at MaxAnchor bytes. The open link
// is always the last one, so its anchor is at the end of buf.
func (x *extractor) appendText(text []byte) {
	l := &x.links[x.open]
	room := x.opts.MaxAnchor - (len(x.buf) - l.anchorStart)
	for _, c := range text {
		if room <= 0 {
			break
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' {
			x.space = len(x.buf) > l.anchorStart
			continue
		}
		if x.space && len(x.buf) > l.anchorStart {
			if room < 2 {
				break
			}
			x.buf = append(x.buf, ' ')
			room--
		}
		x.space = false
		x.buf = append(x.buf, c)
		room--
	}
	// Do not end inside a UTF-8 sequence cut short by the bound.
	if room <= 0 {
		end := len(x.buf)
		i := end - 1
		for i > l.anchorStart && end-i < utf8.UTFMax && !utf8.RuneStart(x.buf[i]) {
			i--
		}
		if !utf8.FullRune(x.buf[i:end]) {
			x.buf = x.buf[:i]
		}
	}
	l.anchorEnd = len(x.buf)
}

// endTag handles an end tag: </a> ends the open link's text, and so, to
// bound the text of an <a> left unclosed, do the ends of list items, table
// cells and the containers around them. (A browser would instead carry
// the unclosed link over into the next item.)
func (x *extractor) endTag(name []byte) {
	switch string(name) {
	case "a", "li", "td", "th", "tr", "ul", "ol", "table", "body", "html":
		x.closeAnchor()
	}
}

// closeAnchor ends the anchor text of the open <a>.
func (x *extractor) closeAnchor() {
	x.open = -1
}

// robotsDirectives reads the content of a robots meta tag: a comma- or
// space-separated list of directives, case-insensitive.
func (x *extractor) robotsDirectives(content []byte) {
	for f := range strings.FieldsFuncSeq(string(content), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' }) {
		switch strings.ToLower(f) {
		case "noindex":
			x.robots.NoIndex = true
		case "nofollow":
			x.robots.NoFollow = true
		case "none":
			x.robots.NoIndex, x.robots.NoFollow = true, true
		}
	}
}

// resolve turns the pending links into canonical URLs against the
// document's base URL.
func (x *extractor) resolve(doc *urlx.URL) Result {
	res := Result{Robots: x.robots, Base: doc.String()}
	base := doc
	if x.baseSeen {
		// A base href that does not resolve (or is not http) leaves the
		// document's URL as the base, as in HTML's fallback base URL.
		href := x.base
		if x.query != nil {
			href = encodeQuery(href, x.query)
		}
		if b, err := doc.Parse(href); err == nil {
			base, res.Base = b, b.String()
		}
	}
	text := string(x.buf) // one allocation for every href and anchor
	res.Links = make([]Link, 0, len(x.links))
	for _, p := range x.links {
		href := text[p.hrefStart:p.hrefEnd]
		if (href == "" || href[0] == '#') && base == doc {
			continue // the page itself
		}
		if x.query != nil {
			href = encodeQuery(href, x.query)
		}
		u, ok := x.resolveHref(base, href)
		if !ok {
			continue
		}
		if p.kind == KindCanonical && res.Canonical == "" {
			res.Canonical = u
		}
		if x.opts.HonorNofollow && (p.nofollow || x.robots.NoFollow) {
			continue
		}
		anchor := text[p.anchorStart:p.anchorEnd]
		if !utf8.ValidString(anchor) {
			// Bytes of a UTF-8 page that are not UTF-8 (the decoders of
			// other encodings never yield them) become U+FFFD, which is
			// longer: bound the anchor again.
			anchor = truncate(strings.ToValidUTF8(anchor, "\uFFFD"), x.opts.MaxAnchor)
		}
		res.Links = append(res.Links, Link{URL: u, Anchor: anchor, Nofollow: p.nofollow, Kind: p.kind})
	}
	return res
}

// resolveHref resolves an href against the base URL and returns it in
// canonical form, or false if it does not resolve. Resolve takes the
// plain paths most hrefs are without building a URL; the reference
// algorithm parses every one.
//
// A page links the same URL many times (a rustdoc item page has 300
// hrefs, 175 of them distinct), but keeping results per href in a map
// cost more than it saved: clearing a pooled map alone took as long as
// resolving every href.
func (x *extractor) resolveHref(base *urlx.URL, href string) (string, bool) {
	if x.reference {
		u, err := base.Parse(href)
		if err != nil {
			return "", false
		}
		return u.String(), true
	}
	u, err := base.Resolve(href)
	return u, err == nil
}

// truncate returns the longest prefix of the valid UTF-8 string s that
// has at most n bytes and ends at a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// trimSpace trims ASCII whitespace, as HTML does around URLs in
// attributes.
func trimSpace(b []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// otherScheme reports whether an href plainly has a scheme other than
// http and https (javascript:, mailto:, data:, tel:, ...), so that it can
// be dropped without the cost of parsing it. Anything unclear is left to
// urlx, which refuses such schemes too.
func otherScheme(href []byte) bool {
	for i, c := range href {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i > 0:
			s := href[:i]
			return !strings.EqualFold(string(s), "http") && !strings.EqualFold(string(s), "https")
		default:
			return false
		}
	}
	return false
}

// hasToken reports whether a space-separated attribute value (rel) holds
// token, ASCII case-insensitively.
func hasToken(v []byte, token string) bool {
	for f := range strings.FieldsSeq(string(v)) {
		if strings.EqualFold(f, token) {
			return true
		}
	}
	return false
}
