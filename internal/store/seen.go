package store

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// AddNew records urls in the seen set and reports, for each, whether it was
// new. Within one call the first occurrence of a URL is fresh and later ones
// are not. The check and the inserts, with the seen counter, commit as one
// batch.
func (s *Store) AddNew(urls []string) (fresh []bool, err error) {
	if len(urls) == 0 {
		return []bool{}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.db.NewBatch()
	defer b.Close()
	fresh, added, err := s.addNewLocked(b, urls)
	if err != nil {
		return nil, fmt.Errorf("store: add new: %w", err)
	}
	if added == 0 {
		return fresh, nil
	}
	if err := s.db.Apply(b, s.wopts); err != nil {
		return nil, fmt.Errorf("store: add new: commit %d urls: %w", added, err)
	}
	s.seenCount += added
	return fresh, nil
}

// addNewLocked stages in b the seen keys of the new URLs among urls and the
// updated counter. The caller holds s.mu and, after applying b, adds added
// to s.seenCount.
func (s *Store) addNewLocked(b *pebble.Batch, urls []string) (fresh []bool, added uint64, err error) {
	fresh = make([]bool, len(urls))
	inBatch := make(map[urlHash]struct{}, len(urls))
	for i, u := range urls {
		h := hashURL(u)
		if _, dup := inBatch[h]; dup {
			continue
		}
		inBatch[h] = struct{}{}
		key := hashKey(prefixSeen, h)
		ok, err := s.seen(h, key)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", u, err)
		}
		if ok {
			continue
		}
		if err := b.Set(key, nil, nil); err != nil {
			return nil, 0, fmt.Errorf("%s: %w", u, err)
		}
		fresh[i] = true
		added++
	}
	if added > 0 {
		if err := b.Set(keySeenCount, putBEUint64(s.seenCount+added), nil); err != nil {
			return nil, 0, err
		}
	}
	return fresh, added, nil
}

// Discover is AddNew followed by Push of the fresh URLs onto host's queue,
// committed as one batch. Use it for newly found links: with separate AddNew
// and Push calls, a crash between the two would leave URLs marked seen but
// queued nowhere, that is, lost.
func (s *Store) Discover(host string, urls []string) (fresh []bool, err error) {
	if err := checkHost(host); err != nil {
		return nil, fmt.Errorf("store: discover: %w", err)
	}
	if len(urls) == 0 {
		return []bool{}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.db.NewBatch()
	defer b.Close()
	fresh, added, err := s.addNewLocked(b, urls)
	if err != nil {
		return nil, fmt.Errorf("store: discover %s: %w", host, err)
	}
	if added == 0 {
		return fresh, nil
	}
	push := make([]string, 0, added)
	for i, u := range urls {
		if fresh[i] {
			push = append(push, u)
		}
	}
	if err := s.pushLocked(b, host, push); err != nil {
		return nil, fmt.Errorf("store: discover %s: %w", host, err)
	}
	if err := s.db.Apply(b, s.wopts); err != nil {
		return nil, fmt.Errorf("store: discover %s: commit %d urls: %w", host, added, err)
	}
	s.seenCount += added
	return fresh, nil
}

// Seen reports whether url has been recorded by AddNew.
func (s *Store) Seen(url string) (bool, error) {
	ok, err := s.has(hashKey(prefixSeen, hashURL(url)))
	if err != nil {
		return false, fmt.Errorf("store: seen %s: %w", url, err)
	}
	return ok, nil
}

// SeenCount returns the number of distinct URLs in the seen set. The count is
// persisted in the same batches as the set, so it survives restarts exactly.
func (s *Store) SeenCount() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seenCount
}

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
