// Package urlx parses, resolves and canonicalises the http and https URLs the
// crawler meets, and derives the keys it groups them by: host, site (the
// registered domain) and partition.
//
// # Parsing
//
// URLs and references are read the way browsers read them, by the WHATWG
// URL Standard's basic URL parser, and then brought to one canonical form,
// so that two spellings of the same resource give the same string. For the
// special schemes http and https the standard's parser reduces to a short
// sequence of steps (trim, split off fragment and query, find the scheme
// and the authority, resolve the path segments), which this package
// follows directly; the host (IDNA, IPv4 and IPv6 forms) is parsed by
// github.com/nlnwa/whatwg-url, and FuzzCanonical checks every result
// against that library's complete parser. The library is not used for
// whole URLs because it costs 3 to 9 µs and 30 to 80 allocations per URL,
// and some shapes take it time quadratic in their length (an 8 KiB
// userinfo 19 ms, an 8 KiB query 28 ms, an 8 KiB run of '%' resolved
// against a base 350 ms): a page could make the crawler spend minutes on
// its links. Here a URL with a plain host name costs well under a
// microsecond and two to five allocations, and any URL time linear in its
// length.
//
// # Canonical form
//
//	scheme "://" host [":" port] path ["?" query]
//
// where
//
//   - scheme is "http" or "https"; any other scheme is refused with ErrScheme.
//   - host is lower-case ASCII: internationalised names in punycode (UTS #46
//     as the WHATWG standard applies it), IPv4 addresses in dotted decimal
//     (so 0x7f.1 is 127.0.0.1), IPv6 addresses in brackets in their shortest
//     form. It holds only letters, digits, '-', '_' and '.'; a host with any
//     other character (which no DNS name has) is refused with ErrHost. A
//     trailing dot is kept: it names the same DNS node, but a server may
//     treat the Host header differently.
//   - port is present only when it is not the scheme's default (80, 443).
//   - path starts with "/" (an empty path becomes "/") and has no "." or
//     ".." segments. Empty segments ("//") are kept: servers may tell them
//     apart.
//   - path and query hold only RFC 3986 unreserved characters, sub-delims,
//     ':', '@', '/' (and '?' in the query) and percent-escapes with
//     upper-case hex digits. Escapes of unreserved characters are decoded
//     (%7E is ~, %41 is A); escapes of reserved characters stay escaped
//     (%2F is not /); every other byte, including a '%' that starts no
//     escape, non-ASCII text (as UTF-8) and invalid UTF-8 (as U+FFFD), is
//     escaped. A "'" in the query is escaped as %27, as browsers do.
//   - query is dropped when empty ("http://a/?" is "http://a/"), as
//     Heritrix's FixupQueryString does; RFC 3986 §6.2.3 would keep it, but
//     no server we know of tells the two apart. Parameter order is kept
//     unless Canonicalizer.SortQuery is set, because order can matter to a
//     server.
//   - userinfo and fragment are removed.
//
// Every canonical URL is also a valid RFC 3986 URI that net/url parses, and
// canonicalising it again returns it unchanged. Inputs over MaxInput bytes
// or MaxSlashes slashes, and results that would exceed them, are refused
// with ErrTooLong.
package urlx

import (
	"errors"
	"fmt"
	"strings"
)

// Errors a caller can branch on. Parse and Canonical wrap them with detail.
var (
	// ErrScheme is returned for URLs whose scheme is not http or https.
	ErrScheme = errors.New("urlx: scheme is not http or https")
	// ErrInvalid is returned for strings that are not URLs (or not absolute
	// where an absolute URL is needed).
	ErrInvalid = errors.New("urlx: invalid URL")
	// ErrHost is returned for hosts that hold characters no DNS name or IP
	// address has, or (other than plain ASCII names) are over 1 KiB long.
	ErrHost = errors.New("urlx: invalid host")
)

// Bounds on input. Real URLs are far inside them; they exist so that
// hostile input cannot make parsing expensive or results unbounded.
const (
	// MaxInput is the longest URL or reference accepted, and the longest
	// canonical URL produced, in bytes: four times DefaultMaxLength, and
	// the request-line limit of common servers (Apache's LimitRequestLine
	// is 8190).
	MaxInput = 8 << 10
	// MaxSlashes is the most '/' and '\' an input, or a result, may hold.
	// No real URL has more; Limits refuses paths a sixteenth as deep by
	// default.
	MaxSlashes = 256
)

// Canonicalizer turns URLs into their canonical form. The zero value is the
// default canonicalisation described in the package documentation.
type Canonicalizer struct {
	// SortQuery sorts query parameters by name (a stable sort, so repeated
	// names keep their order). Off by default: most servers ignore the
	// order, but some do not, and sorting then merges distinct pages.
	SortQuery bool
}

// URL is a parsed canonical http or https URL. It is immutable and safe for
// concurrent use; resolve references against it with Parse.
type URL struct {
	s         string // canonical form
	hostStart int    // index of the host in s
	hostEnd   int    // index just past the host
	pathStart int    // index of the path ("/") in s
	queryAt   int    // index of '?' in s, or len(s)
	sortQuery bool   // the Canonicalizer's option, for references
}

// Parse parses an absolute URL and returns it in canonical form.
func Parse(raw string) (*URL, error) { return Canonicalizer{}.Parse(raw) }

// Canonical returns the canonical form of an absolute URL.
func Canonical(raw string) (string, error) { return Canonicalizer{}.Canonical(raw) }

// CanonicalAll returns the canonical forms of URLs given by a person (seeds),
// space around them trimmed; the first that is not an absolute http or
// https URL is an error that names it.
func CanonicalAll(raws []string) ([]string, error) {
	out := make([]string, 0, len(raws))
	for _, r := range raws {
		u, err := Canonical(strings.TrimSpace(r))
		if err != nil {
			return nil, fmt.Errorf("%q: %w", r, err)
		}
		out = append(out, u)
	}
	return out, nil
}

// Resolve resolves ref against the absolute URL base, as a browser resolves
// a link, and returns the result in canonical form.
func Resolve(base, ref string) (string, error) {
	b, err := Parse(base)
	if err != nil {
		return "", fmt.Errorf("base: %w", err)
	}
	u, err := b.Parse(ref)
	if err != nil {
		return "", err
	}
	return u.s, nil
}

// Parse parses an absolute URL and returns it in canonical form.
func (c Canonicalizer) Parse(raw string) (*URL, error) { return c.parse(raw, nil) }

// Canonical returns the canonical form of an absolute URL.
func (c Canonicalizer) Canonical(raw string) (string, error) {
	u, err := c.parse(raw, nil)
	if err != nil {
		return "", err
	}
	return u.s, nil
}

// Parse resolves a reference (an href, a Location header) against u and
// returns the result in canonical form, canonicalised as u was.
func (u *URL) Parse(ref string) (*URL, error) {
	return Canonicalizer{SortQuery: u.sortQuery}.parse(ref, u)
}

// String returns the canonical form of u.
func (u *URL) String() string { return u.s }

// Scheme returns "http" or "https".
func (u *URL) Scheme() string { return u.s[:u.hostStart-3] }

// Host returns the host of u without port: a lower-case ASCII name, a
// dotted IPv4 address, or a bracketed IPv6 address.
func (u *URL) Host() string { return u.s[u.hostStart:u.hostEnd] }

// Port returns the port of u, or "" for the scheme's default port.
func (u *URL) Port() string {
	if u.hostEnd == u.pathStart {
		return ""
	}
	return u.s[u.hostEnd+1 : u.pathStart]
}

// Authority returns the host and, if not the default, the port of u: the
// Host header a request for u carries.
func (u *URL) Authority() string { return u.s[u.hostStart:u.pathStart] }

// Path returns the escaped path of u; it starts with "/".
func (u *URL) Path() string { return u.s[u.pathStart:u.queryAt] }

// Query returns the escaped query of u without the '?', or "".
func (u *URL) Query() string {
	if u.queryAt == len(u.s) {
		return ""
	}
	return u.s[u.queryAt+1:]
}

// RequestURI returns the path and query of u, as sent in a request line.
func (u *URL) RequestURI() string { return u.s[u.pathStart:] }

// SiteKey returns the site u belongs to; see the function SiteKey.
func (u *URL) SiteKey() string { return SiteKey(u.Host()) }
