package store

import "fmt"

// Seen reports whether url is in the seen set: whether a committed
// Txn.Enqueue has been given it.
func (s *Store) Seen(url string) (bool, error) {
	ok, err := s.has(hashKey(prefixSeen, hashURL(url)))
	if err != nil {
		return false, fmt.Errorf("store: seen %s: %w", url, err)
	}
	return ok, nil
}

// SeenCount returns the number of distinct URLs in the seen set. The count is
// persisted in the same batches as the set, so it survives restarts exactly.
// It does not wait for a transaction in progress: it counts what the last
// one committed.
func (s *Store) SeenCount() uint64 { return s.seenCount.Load() }

// seen reports whether the URL with hash h (seen key key) is in the seen
// set, from the cache if it can. The caller holds s.mu.
func (s *Store) seen(h urlHash, key []byte) (bool, error) {
	if s.known.has(h) {
		return true, nil
	}
	ok, err := s.has(key)
	if ok {
		s.known.add(h)
	}
	return ok, err
}

// seenCache holds hashes of URLs known to be in the seen set, up to about
// limit of them, in two generations: when the current one fills, it becomes
// the old one and the old one is dropped, so hashes used recently stay.
// The zero value (limit 0) holds nothing.
type seenCache struct {
	limit     int
	cur, prev map[urlHash]struct{}
}

func (c *seenCache) has(h urlHash) bool {
	if _, ok := c.cur[h]; ok {
		return true
	}
	if _, ok := c.prev[h]; ok {
		c.add(h)
		return true
	}
	return false
}

func (c *seenCache) add(h urlHash) {
	if c.limit <= 0 {
		return
	}
	if len(c.cur) >= c.limit/2 || c.cur == nil {
		c.prev, c.cur = c.cur, make(map[urlHash]struct{}, max(c.limit/2, 1))
	}
	c.cur[h] = struct{}{}
}
