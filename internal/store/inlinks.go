package store

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// Links to the crawl's URLs from pages it does not fetch: in a cluster,
// the count another partition sends with each URL ([URL, count],
// dissertation §3.9), summed over what it sent. The ranking adds them to
// the links its own pages make (IB', and as inflow for IR'). They are
// counters, changed in the transaction that admits the URLs:
//
//	m/c/inlinks/<hash hex>   the count

// CounterInlinks prefixes the inlink counters.
const CounterInlinks = "inlinks/"

// InlinksCounter names the counter of links to url from outside the crawl.
func InlinksCounter(url string) string {
	h := hashURL(url)
	return CounterInlinks + hex.EncodeToString(h[:])
}

// ForEachInlinks calls fn with each URL's hash and its count of links from
// outside the crawl. If fn returns an error, it stops and returns it,
// wrapped.
func (s *Store) ForEachInlinks(fn func(h Hash, n int64) error) error {
	return s.Counters(CounterInlinks, func(name string, n int64) error {
		var h Hash
		b, err := hex.DecodeString(strings.TrimPrefix(name, CounterInlinks))
		if err != nil || len(b) != hashLen {
			return fmt.Errorf("store: inlink counter %q", name)
		}
		copy(h[:], b)
		return fn(h, n)
	})
}
