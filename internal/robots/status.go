package robots

import (
	"net/http"
	"strconv"
)

// MaxRedirects is how many consecutive redirects a fetcher follows when it
// fetches /robots.txt (RFC 9309 §2.3.1.2: at least five, even to another
// host). The file reached is obeyed for the authority first asked for, and
// is cached under that authority's Key. A fetcher that gives up after
// MaxRedirects passes the last 3xx status to FromResponse or Cache.Record,
// which treat the file as unavailable.
const MaxRedirects = 5

// Availability is what an answer to a robots.txt request means for the
// crawler (RFC 9309 §2.3.1).
type Availability int

const (
	// Available means the server sent the file (2xx): its rules apply.
	Available Availability = iota
	// Unavailable means the server says there is no file (4xx, or 3xx
	// after MaxRedirects): everything is allowed.
	Unavailable
	// Unreachable means the server failed to answer (5xx, 429, or no HTTP
	// answer at all): everything is disallowed.
	Unreachable
)

// String returns the availability's name.
func (a Availability) String() string {
	switch a {
	case Available:
		return "available"
	case Unavailable:
		return "unavailable"
	case Unreachable:
		return "unreachable"
	}
	return "Availability(" + strconv.Itoa(int(a)) + ")"
}

// Classify returns what the HTTP status of a robots.txt answer means. A
// status of 0 stands for a network error: no answer at all.
//
// RFC 9309 §2.3.1.3 counts every 4xx as unavailable, so 401 and 403 allow
// all. 429 Too Many Requests is the exception: it asks the crawler to slow
// down, and reading it as "allow all" would answer overload with more load,
// so it counts as unreachable, as Google counts it. 304 Not Modified is no
// redirect: it confirms a cached copy, which Cache.Record uses; here, with
// no copy to confirm, it counts as unreachable. Statuses outside 200–599 are
// not valid answers and count as unreachable too.
func Classify(status int) Availability {
	switch {
	case status >= 200 && status < 300:
		return Available
	case status == http.StatusTooManyRequests, status == http.StatusNotModified:
		return Unreachable
	case status >= 300 && status < 500:
		return Unavailable
	}
	return Unreachable
}

// FromResponse returns the rules a robots.txt answer sets (RFC 9309
// §2.3.1): the parsed body for a 2xx status, allow all for an unavailable
// file, disallow all ("complete disallow") for an unreachable one. Pass 0
// as the status for a network error. Conditional requests need the cached
// copy a 304 confirms: use Cache.Record for them.
//
// RFC 9309 lets a crawler that has found the file unreachable for a long
// time (30 days, say) treat it as unavailable or keep using a cached copy;
// Cache.Record does that.
func FromResponse(status int, body []byte) *File {
	switch Classify(status) {
	case Available:
		return Parse(body)
	case Unavailable:
		return AllowAll()
	}
	return DisallowAll()
}

// AllowAll returns a File that allows every path to every crawler.
func AllowAll() *File {
	return &File{}
}

// DisallowAll returns a File that disallows every path but /robots.txt to
// every crawler.
func DisallowAll() *File {
	r, _ := compileRule("/", false)
	return &File{star: &Group{sets: [][]rule{{r}}}}
}
