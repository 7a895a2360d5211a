package urlx

import (
	"errors"
	"fmt"
	"strings"
)

// Reasons Limits.Check refuses a URL; it wraps them with the numbers.
var (
	ErrTooLong       = errors.New("urlx: URL too long")
	ErrTooDeep       = errors.New("urlx: path too deep")
	ErrRepeatSegment = errors.New("urlx: path segment repeated")
	ErrTooManyParams = errors.New("urlx: too many query parameters")
)

// Default limits, used for zero fields of Limits.
const (
	// DefaultMaxLength is the length most crawlers and sitemaps.org cap
	// URLs at (sitemap locs "must be less than 2,048 characters").
	DefaultMaxLength = 2048
	// DefaultMaxDepth is the most path segments a URL may have.
	DefaultMaxDepth = 16
	// DefaultMaxRepeats is how often one path segment may occur: 2, so
	// /a/b/a/b passes and /a/b/a/b/a/b (a relative link resolved again and
	// again, the classic trap) does not. Nutch's default URL filter rule
	// -.*(/[^/]+)/[^/]+\1/[^/]+\1/ draws the line at the same place.
	DefaultMaxRepeats = 2
	// DefaultMaxParams is the most query parameters a URL may have; more
	// is the mark of faceted-search and session-parameter explosions.
	DefaultMaxParams = 32
)

// Limits is a crawler-trap policy for canonical URLs. A zero field takes
// its default (the Default* constants); a negative field turns its check
// off.
type Limits struct {
	MaxLength  int // bytes of the whole URL
	MaxDepth   int // path segments (/a/b/ has 2, / has 0)
	MaxRepeats int // occurrences of any one non-empty path segment
	MaxParams  int // '&'-separated query parameters
}

// Check returns nil if the canonical URL u is within the limits, or an
// error wrapping ErrTooLong, ErrTooDeep, ErrRepeatSegment or
// ErrTooManyParams (checked in that order).
func (l Limits) Check(u string) error {
	maxLen := limit(l.MaxLength, DefaultMaxLength)
	if maxLen >= 0 && len(u) > maxLen {
		return fmt.Errorf("%w: %d bytes > %d", ErrTooLong, len(u), maxLen)
	}
	path, query := splitPathQuery(u)

	maxDepth := limit(l.MaxDepth, DefaultMaxDepth)
	depth := strings.Count(path, "/")
	if strings.HasSuffix(path, "/") {
		depth-- // a trailing slash ends the last segment, it opens none
	}
	if maxDepth >= 0 && depth > maxDepth {
		return fmt.Errorf("%w: %d segments > %d", ErrTooDeep, depth, maxDepth)
	}

	if maxRep := limit(l.MaxRepeats, DefaultMaxRepeats); maxRep >= 0 {
		if seg, n := mostRepeated(path); n > maxRep {
			return fmt.Errorf("%w: %q %d times > %d", ErrRepeatSegment, seg, n, maxRep)
		}
	}

	if maxParams := limit(l.MaxParams, DefaultMaxParams); maxParams >= 0 && query != "" {
		if n := strings.Count(query, "&") + 1; n > maxParams {
			return fmt.Errorf("%w: %d > %d", ErrTooManyParams, n, maxParams)
		}
	}
	return nil
}

func limit(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// splitPathQuery returns the path and query (without '?') of a canonical
// URL.
func splitPathQuery(u string) (path, query string) {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	i := strings.IndexByte(u, '/')
	if i < 0 {
		return "/", ""
	}
	path = u[i:]
	if j := strings.IndexByte(path, '?'); j >= 0 {
		path, query = path[:j], path[j+1:]
	}
	return path, query
}

// mostRepeated returns the non-empty path segment that occurs most often
// and its count. Paths are usually short (the depth check runs first), and
// then counting by pairwise comparison beats building a map.
func mostRepeated(path string) (seg string, n int) {
	var buf [DefaultMaxDepth + 1]string
	segs := buf[:0]
	for s := range strings.SplitSeq(strings.TrimPrefix(path, "/"), "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	if len(segs) > 64 {
		counts := make(map[string]int, len(segs))
		for _, s := range segs {
			counts[s]++
			if c := counts[s]; c > n {
				seg, n = s, c
			}
		}
		return seg, n
	}
	for i, s := range segs {
		c := 1
		for _, t := range segs[i+1:] {
			if t == s {
				c++
			}
		}
		if c > n {
			seg, n = s, c
		}
	}
	return seg, n
}
