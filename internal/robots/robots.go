// Package robots implements the Robots Exclusion Protocol of RFC 9309:
// parsing robots.txt, choosing the group that binds a crawler, matching
// paths against its rules, the meaning of HTTP status codes, and a cache of
// parsed files per authority.
//
// Where the RFC leaves room, the package does what Google's parser does
// (unparseable lines and rules outside a group are ignored, a missing colon
// is tolerated) and is strict where politeness is at stake (a 5xx or 429
// answer disallows everything). Crawl-delay is not part of RFC 9309; it is
// parsed as the de facto extension most crawlers honour.
//
// Files and Groups are immutable once built and safe for concurrent use.
package robots

import (
	"slices"
	"time"
)

// File is a parsed robots.txt file.
type File struct {
	agents   map[string]*Group // by lower-case product token
	star     *Group            // the "*" group, nil if the file has none
	sitemaps []string
}

// Group is the set of rules that binds one crawler: every group of the file
// that names its product token, merged (RFC 9309 §2.2.1), or the "*" group,
// or no rules at all.
type Group struct {
	// sets holds the rules of each file group merged into this one, each
	// sorted by precedence. They are kept apart rather than copied into one
	// slice, so that a file naming many agents in many groups cannot make
	// Parse build a quadratic number of rules.
	sets     [][]rule
	delay    time.Duration
	hasDelay bool
}

// allowAll is the group of a crawler that no group binds. It is never
// modified.
var allowAll = &Group{}

// Group returns the group that binds the crawler whose User-Agent header is
// userAgent. The product token is the user agent up to its first character
// that is not a letter, digit, '-' or '_' (so "freshcrawl/0.1 (+url)" is
// "freshcrawl"), compared case-insensitively (RFC 9309 §2.2.1). Without a
// group for the token the "*" group applies; without that, every path is
// allowed. Group never returns nil.
func (f *File) Group(userAgent string) *Group {
	if f == nil {
		return allowAll
	}
	if g, ok := f.agents[ProductToken(userAgent)]; ok {
		return g
	}
	if f.star != nil {
		return f.star
	}
	return allowAll
}

// Sitemaps returns the absolute http and https URLs of the file's Sitemap
// lines, in file order without duplicates, wherever they stand in the file.
func (f *File) Sitemaps() []string {
	if f == nil {
		return nil
	}
	return slices.Clone(f.sitemaps)
}

// Allowed reports whether the group lets the crawler fetch pathAndQuery, the
// URL's path and query as sent in the request line (url.URL.RequestURI).
// The longest matching rule decides, Allow winning a tie; no matching rule
// means allowed; /robots.txt is always allowed (RFC 9309 §2.2.2).
func (g *Group) Allowed(pathAndQuery string) bool {
	p := canonPath(pathAndQuery)
	if p == "/robots.txt" {
		return true
	}
	r := g.decide(p)
	return r == nil || r.allow
}

// CrawlDelay returns the group's Crawl-delay and whether it has one. When
// several merged groups give one, the longest applies.
func (g *Group) CrawlDelay() (time.Duration, bool) {
	if g == nil {
		return 0, false
	}
	return g.delay, g.hasDelay
}

// Delay is the gap a crawler leaves between two requests to the host: its
// own floor, or the group's Crawl-delay if longer, up to ceiling.
func (g *Group) Delay(floor, ceiling time.Duration) time.Duration {
	if cd, ok := g.CrawlDelay(); ok {
		return max(floor, min(cd, ceiling))
	}
	return floor
}

// decide returns the rule that decides for the canonical path p, or nil if
// no rule matches.
func (g *Group) decide(p string) *rule {
	if g == nil {
		return nil
	}
	var best *rule
	for _, rules := range g.sets {
		for i := range rules {
			r := &rules[i]
			if best != nil && !r.precedes(best) {
				// Rules are sorted by precedence: none of the rest can win.
				break
			}
			if r.match(p) {
				best = r
				break
			}
		}
	}
	return best
}
