package robots

import (
	"bytes"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// MaxSize is how much of a robots.txt file Parse reads: 500 KiB, the least
// RFC 9309 §2.5 lets a crawler parse. Content beyond it is ignored, so a
// fetcher need not read more.
const MaxSize = 500 << 10

// Parse parses a robots.txt file. It never fails: lines it cannot read,
// including rules before the first User-agent line, are ignored, as Google's
// parser ignores them. Parse reads the first MaxSize bytes and drops the
// line the limit cuts in two, since a truncated Allow could allow more than
// the site meant.
//
// Lines end in CR, LF or CRLF; a UTF-8 byte order mark is skipped; '#'
// starts a comment; field names are case-insensitive; whitespace around
// names and values is ignored. A group is one or more User-agent lines
// followed by Allow, Disallow and Crawl-delay lines (RFC 9309 §2.1); blank,
// comment, Sitemap and unknown lines do not end it. Sitemap lines belong to
// no group.
func Parse(body []byte) *File {
	if len(body) > MaxSize {
		if c := body[MaxSize]; c != '\n' && c != '\r' {
			body = body[:bytes.LastIndexAny(body[:MaxSize], "\r\n")+1]
		} else {
			body = body[:MaxSize]
		}
	}
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	var p parser
	for len(body) > 0 {
		line := body
		if i := bytes.IndexAny(body, "\r\n"); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		p.line(line)
	}
	return p.file()
}

// fileGroup is one group as written in the file.
type fileGroup struct {
	rules    []rule
	delay    time.Duration
	hasDelay bool
}

type parser struct {
	groups   []*fileGroup
	agents   map[string][]int // product token → indices into groups
	star     []int            // indices of the "*" groups
	open     bool             // the last group is still taking User-agent lines
	sitemaps []string
}

type field int

const (
	fieldUnknown field = iota
	fieldUserAgent
	fieldAllow
	fieldDisallow
	fieldCrawlDelay
	fieldSitemap
)

// fieldOf returns the field a lower-case field name names. Besides the
// standard names it knows the misspellings Google's parser accepts.
func fieldOf(name string) field {
	switch name {
	case "user-agent", "useragent", "user agent":
		return fieldUserAgent
	case "allow":
		return fieldAllow
	case "disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw":
		return fieldDisallow
	case "crawl-delay", "crawldelay", "crawl delay":
		return fieldCrawlDelay
	case "sitemap", "site-map":
		return fieldSitemap
	}
	return fieldUnknown
}

func (p *parser) line(line []byte) {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	key, value, ok := splitLine(line)
	if !ok || len(key) > len("crawl-delay") {
		return
	}
	var lower [len("crawl-delay")]byte
	for i, c := range key {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	switch f := fieldOf(string(lower[:len(key)])); f {
	case fieldUserAgent:
		p.userAgent(value)
	case fieldAllow, fieldDisallow:
		if g := p.member(); g != nil {
			if r, ok := compileRule(string(value), f == fieldAllow); ok {
				g.rules = append(g.rules, r)
			}
		}
	case fieldCrawlDelay:
		if g := p.member(); g != nil {
			if d, ok := parseDelay(value); ok && (!g.hasDelay || d > g.delay) {
				g.delay, g.hasDelay = d, true
			}
		}
	case fieldSitemap:
		p.sitemap(string(value))
	}
}

// splitLine splits a line, comment removed, into its field name and value.
// Google's parser also reads a line without a colon when whitespace
// separates exactly two words ("Disallow /x"); so does this one.
func splitLine(line []byte) (key, value []byte, ok bool) {
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		key = trimSpace(line[:i])
		return key, trimSpace(line[i+1:]), len(key) > 0
	}
	line = trimSpace(line)
	i := bytes.IndexAny(line, " \t")
	if i < 0 {
		return nil, nil, false
	}
	key, value = line[:i], trimSpace(line[i:])
	if bytes.ContainsAny(value, " \t") {
		return nil, nil, false
	}
	return key, value, true
}

func trimSpace(b []byte) []byte {
	return bytes.Trim(b, " \t\v\f")
}

// userAgent handles a User-agent line: it joins the group being opened or
// opens a new one.
func (p *parser) userAgent(value []byte) {
	if !p.open {
		p.groups = append(p.groups, &fileGroup{})
		p.open = true
	}
	gi := len(p.groups) - 1
	// Google's parser takes "*" followed by anything but whitespace as no
	// token at all.
	if len(value) > 0 && value[0] == '*' && (len(value) == 1 || value[1] == ' ' || value[1] == '\t') {
		if n := len(p.star); n == 0 || p.star[n-1] != gi {
			p.star = append(p.star, gi)
		}
		return
	}
	tok := ProductToken(string(value))
	if tok == "" {
		return
	}
	if p.agents == nil {
		p.agents = make(map[string][]int)
	}
	if idx := p.agents[tok]; len(idx) == 0 || idx[len(idx)-1] != gi {
		p.agents[tok] = append(idx, gi)
	}
}

// member returns the group a rule line belongs to, or nil for a line before
// the first User-agent line. The line closes the group to User-agent lines.
func (p *parser) member() *fileGroup {
	if len(p.groups) == 0 {
		return nil
	}
	p.open = false
	return p.groups[len(p.groups)-1]
}

func (p *parser) sitemap(v string) {
	u, err := url.Parse(v)
	if err != nil || u.Host == "" || !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https") {
		return
	}
	for _, s := range p.sitemaps {
		if s == v {
			return
		}
	}
	p.sitemaps = append(p.sitemaps, v)
}

// file builds the File: each product token gets one Group holding the
// rules of every file group that names it (RFC 9309 §2.2.1).
func (p *parser) file() *File {
	for _, g := range p.groups {
		g.rules = sortRules(g.rules)
	}
	f := &File{sitemaps: p.sitemaps}
	if len(p.agents) > 0 {
		f.agents = make(map[string]*Group, len(p.agents))
		for tok, idx := range p.agents {
			f.agents[tok] = p.merge(idx)
		}
	}
	if len(p.star) > 0 {
		f.star = p.merge(p.star)
	}
	return f
}

func (p *parser) merge(idx []int) *Group {
	g := &Group{}
	for _, i := range idx {
		fg := p.groups[i]
		if len(fg.rules) > 0 {
			g.sets = append(g.sets, fg.rules)
		}
		if fg.hasDelay && (!g.hasDelay || fg.delay > g.delay) {
			g.delay, g.hasDelay = fg.delay, true
		}
	}
	return g
}

// ProductToken returns the product token that starts s, in lower case: its
// leading letters, digits, '-' and '_'. RFC 9309 §2.2.1 tokens are letters,
// '-' and '_'; digits are accepted too, since real crawler names use them.
func ProductToken(s string) string {
	s = strings.TrimLeft(s, " \t")
	n := 0
	for n < len(s) && isTokenChar(s[n]) {
		n++
	}
	return strings.ToLower(s[:n])
}

func isTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// parseDelay reads a Crawl-delay value: a non-negative decimal number of
// seconds ("10", "0.5", ".5"). Anything else is ignored. Values beyond what
// a time.Duration holds are clamped to the largest one.
func parseDelay(v []byte) (time.Duration, bool) {
	digits, dots := 0, 0
	for _, c := range v {
		switch {
		case '0' <= c && c <= '9':
			digits++
		case c == '.':
			dots++
		default:
			return 0, false
		}
	}
	if digits == 0 || dots > 1 {
		return 0, false
	}
	// The only error left is overflow, which ParseFloat reports with +Inf.
	sec, err := strconv.ParseFloat(string(v), 64)
	if err != nil && !math.IsInf(sec, 1) {
		return 0, false
	}
	if sec >= float64(math.MaxInt64)/float64(time.Second) {
		return math.MaxInt64, true
	}
	return time.Duration(sec * float64(time.Second)), true
}
