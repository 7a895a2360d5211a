package cluster

import "github.com/cespare/xxhash/v2"

// Replicated is the set of popular URLs every node holds (§3.8): the top k
// by in-links of a previous crawl. A link to one of them is never
// exchanged, since in-degree is Zipfian and they draw a large share of
// all links; the ones in a node's own partitions serve as its seeds. It
// holds 64-bit hashes, 8 bytes a URL (10^5 URLs, the paper's advice, in
// under 2 MB with the map's overhead); a collision, at 10^5 URLs one
// chance in 10^9 per lookup, costs one link not exchanged.
type Replicated struct {
	set map[uint64]struct{}
}

// NewReplicated returns the set of urls (canonical).
func NewReplicated(urls []string) *Replicated {
	r := &Replicated{set: make(map[uint64]struct{}, len(urls))}
	for _, u := range urls {
		r.set[xxhash.Sum64String(u)] = struct{}{}
	}
	return r
}

// Has reports whether url is in the set. A nil set holds nothing.
func (r *Replicated) Has(url string) bool {
	if r == nil {
		return false
	}
	_, ok := r.set[xxhash.Sum64String(url)]
	return ok
}

// Len returns the number of URLs in the set.
func (r *Replicated) Len() int {
	if r == nil {
		return 0
	}
	return len(r.set)
}
