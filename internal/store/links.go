package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// The link graph the crawl has seen: for each page fetched with content,
// the pages it links to, as URL hashes. It is what the importance metrics
// of dissertation ch. 2 (PageRank, backlinks) are computed over, and it
// outlives the process like the rest of the state.
//
//	g/<hash16>   uvarint n, then n target hashes of 16 bytes, sorted

const prefixLinks = "g/"

// Hash identifies a URL: the first 128 bits of the SHA-256 of its
// canonical form, as the store keys it.
type Hash [hashLen]byte

// HashURL returns the hash the store keys url by.
func HashURL(url string) Hash { return Hash(hashURL(url)) }

// maxLinks bounds the targets recorded for one page; the extractor keeps at
// most 10,000 links a page.
const maxLinks = 1 << 16

// SetLinks records the pages the page at url links to (canonical URLs),
// replacing what was recorded before. Repeats count once; a page that
// links to nothing has its record removed.
func (t *Txn) SetLinks(url string, targets []string) error {
	key := hashKey(prefixLinks, hashURL(url))
	if len(targets) == 0 {
		return t.DeleteLinks(url)
	}
	hs := make([]Hash, len(targets))
	for i, u := range targets {
		hs[i] = HashURL(u)
	}
	slices.SortFunc(hs, func(a, b Hash) int { return compareHash(a, b) })
	hs = slices.Compact(hs)
	if len(hs) > maxLinks {
		hs = hs[:maxLinks]
	}
	v := binary.AppendUvarint(make([]byte, 0, binary.MaxVarintLen32+len(hs)*hashLen), uint64(len(hs)))
	for _, h := range hs {
		v = append(v, h[:]...)
	}
	if err := t.b.Set(key, v, nil); err != nil {
		return fmt.Errorf("store: set links of %s: %w", url, err)
	}
	return nil
}

// DeleteLinks removes the record of the page's links: it is gone, or no
// longer a page with content.
func (t *Txn) DeleteLinks(url string) error {
	if err := t.b.Delete(hashKey(prefixLinks, hashURL(url)), nil); err != nil {
		return fmt.Errorf("store: delete links of %s: %w", url, err)
	}
	return nil
}

// Compare orders hashes as the store keys them, for sorted lists of them
// (ForEachLinks' and Links' targets).
func (h Hash) Compare(o Hash) int { return compareHash(h, o) }

func compareHash(a, b Hash) int {
	for i := range a {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i])
		}
	}
	return 0
}

// ErrLinks is wrapped by errors reading a damaged link record.
var ErrLinks = errors.New("store: damaged link record")

// ForEachLinks calls fn for every page with recorded links, in hash order,
// with its hash and its targets' hashes (sorted, distinct). The targets
// slice is valid only during the call. If fn returns an error, it stops
// and returns that error unchanged.
func (s *Store) ForEachLinks(fn func(page Hash, targets []Hash) error) error {
	var targets []Hash
	err := s.scan([]byte(prefixLinks), func(k, v []byte) error {
		var ok bool
		if targets, ok = decodeLinks(targets[:0], v); !ok || len(k) != len(prefixLinks)+hashLen {
			return fmt.Errorf("%w: %x", ErrLinks, k)
		}
		if err := fn(Hash(k[len(prefixLinks):]), targets); err != nil {
			return errStop{err}
		}
		return nil
	})
	var stop errStop
	if errors.As(err, &stop) {
		return stop.err
	}
	if err != nil {
		return fmt.Errorf("store: for each links: %w", err)
	}
	return nil
}

// Links returns the recorded targets of the page at url, or nil.
func (s *Store) Links(url string) ([]Hash, error) {
	v, ok, err := s.get(hashKey(prefixLinks, hashURL(url)))
	if err != nil || !ok {
		return nil, err
	}
	out, ok := decodeLinks(nil, v)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrLinks, url)
	}
	return out, nil
}

// decodeLinks appends the targets of a link record to dst; ok is false
// for a damaged record.
func decodeLinks(dst []Hash, v []byte) (_ []Hash, ok bool) {
	n, w := binary.Uvarint(v)
	if w <= 0 || n > maxLinks || uint64(len(v)-w) != n*hashLen {
		return dst, false
	}
	for rest := v[w:]; len(rest) > 0; rest = rest[hashLen:] {
		dst = append(dst, Hash(rest[:hashLen]))
	}
	return dst, true
}
