package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// ErrOutOfOrder is returned (wrapped) by Txn.Done for an item that is not
// at the head of its queue.
var ErrOutOfOrder = errors.New("queue item is not at the head")

// Txn stages many changes — discovered URLs, consumed queue items, page rows
// and visits, due times, counters — and commits them as one Pebble batch, so
// the crawler can record the outcome of a group of fetches atomically and
// with one fsync. A Txn holds the store's write lock from Begin until Commit
// or Abort; reads it makes (is this URL new? where does this queue end?)
// see its own staged writes.
type Txn struct {
	s        *Store
	b        *pebble.Batch
	seen     map[urlHash]struct{}
	pages    map[urlHash]struct{} // the rows PutPage staged
	metas    map[string]*queueMeta
	counters map[string]int64
	added    uint64
	closed   bool
}

// Begin starts a transaction. The caller must end it with Commit or Abort.
func (s *Store) Begin() *Txn {
	s.mu.Lock()
	return &Txn{s: s, b: s.db.NewBatch(), seen: map[urlHash]struct{}{}, metas: map[string]*queueMeta{}}
}

func (t *Txn) meta(host string) (*queueMeta, error) {
	if m, ok := t.metas[host]; ok {
		return m, nil
	}
	m, err := t.s.readMeta(host)
	if err != nil {
		return nil, err
	}
	t.metas[host] = &m
	return &m, nil
}

// Enqueue marks the URLs of items seen and appends the ones not seen before
// to host's queue, in order. With limit > 0, a host whose queue has ever
// held limit items takes no more: further new URLs are marked seen and
// dropped (a trap defence: URLs per host). The count is the queue's tail,
// which never goes back: an emptied queue keeps it. It returns how many items were
// queued and how many new ones were dropped.
func (t *Txn) Enqueue(host string, items []Item, limit uint64) (queued, dropped int, err error) {
	if err := checkHost(host); err != nil {
		return 0, 0, fmt.Errorf("store: enqueue: %w", err)
	}
	m, err := t.meta(host)
	if err != nil {
		return 0, 0, fmt.Errorf("store: enqueue %s: %w", host, err)
	}
	for _, it := range items {
		h := hashURL(it.URL)
		if _, dup := t.seen[h]; dup {
			continue
		}
		key := hashKey(prefixSeen, h)
		ok, err := t.s.seen(h, key)
		if err != nil {
			return queued, dropped, fmt.Errorf("store: enqueue %s: %w", it.URL, err)
		}
		if ok {
			continue
		}
		t.seen[h] = struct{}{}
		if err := t.b.Set(key, nil, nil); err != nil {
			return queued, dropped, fmt.Errorf("store: enqueue %s: %w", it.URL, err)
		}
		t.added++
		if limit > 0 && m.tail >= limit {
			dropped++
			continue
		}
		if err := t.b.Set(queueKey(host, m.tail), encodeItem(it), nil); err != nil {
			return queued, dropped, fmt.Errorf("store: enqueue %s: %w", it.URL, err)
		}
		m.tail++
		queued++
	}
	return queued, dropped, nil
}

// Done removes the item with sequence number seq from the head of host's
// queue: its outcome is being committed in this transaction.
func (t *Txn) Done(host string, seq uint64) error {
	if err := checkHost(host); err != nil {
		return fmt.Errorf("store: done: %w", err)
	}
	m, err := t.meta(host)
	if err != nil {
		return fmt.Errorf("store: done %s: %w", host, err)
	}
	if seq != m.head || m.head == m.tail {
		return fmt.Errorf("store: done %s item %d (queue [%d,%d)): %w", host, seq, m.head, m.tail, ErrOutOfOrder)
	}
	if err := t.b.Delete(queueKey(host, seq), nil); err != nil {
		return fmt.Errorf("store: done %s: %w", host, err)
	}
	m.head++
	return nil
}

// PutPage stages p's state row and, if visit is not nil, appends it to the
// page's history; a visit with the Time of an earlier one replaces it. The
// caller must have flushed the page's WARC records (DESIGN.md §4).
func (t *Txn) PutPage(p Page, visit *Visit) error {
	h := hashURL(p.URL)
	if t.pages == nil {
		t.pages = map[urlHash]struct{}{}
	}
	t.pages[h] = struct{}{}
	if err := t.b.Set(hashKey(prefixPage, h), encodePage(&p), nil); err != nil {
		return fmt.Errorf("store: put page %s: %w", p.URL, err)
	}
	if visit != nil {
		if err := t.b.Set(appendTimeKey(visitPrefix(h), visit.Time), encodeVisit(visit), nil); err != nil {
			return fmt.Errorf("store: put page %s: %w", p.URL, err)
		}
	}
	return nil
}

// Staged reports whether the transaction puts url's row (PutPage): a
// read of the row from the store would miss that change.
func (t *Txn) Staged(url string) bool {
	_, ok := t.pages[hashURL(url)]
	return ok
}

// Schedule moves url's entry in host's due index from old to due. A zero
// old means the URL had no entry; a zero due removes it.
func (t *Txn) Schedule(host, url string, old, due time.Time) error {
	if err := checkHost(host); err != nil {
		return fmt.Errorf("store: schedule: %w", err)
	}
	h := hashURL(url)
	if !old.IsZero() {
		if err := t.b.Delete(dueKey(host, old, h), nil); err != nil {
			return fmt.Errorf("store: schedule %s: %w", url, err)
		}
	}
	if !due.IsZero() {
		if err := t.b.Set(dueKey(host, due, h), []byte(url), nil); err != nil {
			return fmt.Errorf("store: schedule %s: %w", url, err)
		}
	}
	return nil
}

// SetLastMod records lm as the latest modification time a sitemap read at
// read gave for url.
func (t *Txn) SetLastMod(url string, lm, read time.Time) error {
	if err := t.b.Set(hashKey(prefixLastMod, hashURL(url)), appendTime(appendTime(nil, lm), read), nil); err != nil {
		return fmt.Errorf("store: set lastmod %s: %w", url, err)
	}
	return nil
}

// Add adds delta to the named counter.
func (t *Txn) Add(counter string, delta int64) {
	if t.counters == nil {
		t.counters = map[string]int64{}
	}
	t.counters[counter] += delta
}

// SetSetting stages a named setting (for example the crawl's scope), which
// outlives the process.
func (t *Txn) SetSetting(name, value string) error {
	if err := t.b.Set(settingKey(name), []byte(value), nil); err != nil {
		return fmt.Errorf("store: set %s: %w", name, err)
	}
	return nil
}

// Commit applies every staged change atomically and releases the store.
func (t *Txn) Commit() error {
	if t.closed {
		return errors.New("store: commit of a closed transaction")
	}
	defer t.close()
	for host, m := range t.metas {
		if err := t.b.Set(metaKey(host), encodeMeta(*m), nil); err != nil {
			return fmt.Errorf("store: commit: %w", err)
		}
	}
	for name, d := range t.counters {
		v, err := t.s.readUint64(counterKey(name))
		if err != nil {
			return fmt.Errorf("store: commit: counter %s: %w", name, err)
		}
		if err := t.b.Set(counterKey(name), putBEUint64(uint64(int64(v)+d)), nil); err != nil {
			return fmt.Errorf("store: commit: %w", err)
		}
	}
	if t.added > 0 {
		if err := t.b.Set(keySeenCount, putBEUint64(t.s.seenCount.Load()+t.added), nil); err != nil {
			return fmt.Errorf("store: commit: %w", err)
		}
	}
	if t.b.Empty() {
		return nil
	}
	if err := t.s.db.Apply(t.b, t.s.wopts); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	t.s.seenCount.Add(t.added)
	for h := range t.seen {
		t.s.known.add(h)
	}
	return nil
}

// Abort drops every staged change and releases the store.
func (t *Txn) Abort() {
	if !t.closed {
		t.close()
	}
}

func (t *Txn) close() {
	t.closed = true
	t.b.Close()
	t.s.mu.Unlock()
}

func counterKey(name string) []byte { return append([]byte(prefixCounter), name...) }

func settingKey(name string) []byte { return append([]byte(prefixSetting), name...) }

// Counter returns the value of the named counter (zero if never added to).
func (s *Store) Counter(name string) (int64, error) {
	v, err := s.readUint64(counterKey(name))
	if err != nil {
		return 0, fmt.Errorf("store: counter %s: %w", name, err)
	}
	return int64(v), nil
}

// Counters calls fn for every counter whose name starts with prefix, in
// name order.
func (s *Store) Counters(prefix string, fn func(name string, value int64) error) error {
	err := s.scan(counterKey(prefix), func(k, v []byte) error {
		if len(v) != 8 {
			return fmt.Errorf("counter %q: %d bytes: %w", k, len(v), ErrCorrupt)
		}
		return fn(string(k[len(prefixCounter):]), int64(beUint64(v)))
	})
	if err != nil {
		return fmt.Errorf("store: counters %s: %w", prefix, err)
	}
	return nil
}

// Setting returns the named setting and whether it exists.
func (s *Store) Setting(name string) (string, bool, error) {
	v, ok, err := s.get(settingKey(name))
	if err != nil {
		return "", false, fmt.Errorf("store: setting %s: %w", name, err)
	}
	return string(v), ok, nil
}

// Settings calls fn for every setting whose name starts with prefix, in
// name order.
func (s *Store) Settings(prefix string, fn func(name, value string) error) error {
	lo := settingKey(prefix)
	err := s.scan(lo, func(k, v []byte) error {
		return fn(string(k[len(prefixSetting):]), string(v))
	})
	if err != nil {
		return fmt.Errorf("store: settings %s: %w", prefix, err)
	}
	return nil
}

// LastMod returns the latest sitemap lastmod recorded for url and when the
// sitemap that gave it was read (zero if recorded before that was kept),
// or zero times.
func (s *Store) LastMod(url string) (lm, read time.Time, err error) {
	v, ok, err := s.get(hashKey(prefixLastMod, hashURL(url)))
	if err != nil || !ok {
		return time.Time{}, time.Time{}, err
	}
	d := decoder{b: v}
	lm = d.time()
	if len(d.b) > 0 { // rows written before the read time was kept have none
		read = d.time()
	}
	if err := d.finish("lastmod"); err != nil {
		return time.Time{}, time.Time{}, fmt.Errorf("store: lastmod %s: %w", url, err)
	}
	return lm, read, nil
}

// dueKey is d/<host>\x00<due, 12 bytes><hash16>: one host's entries sort by
// due time.
func dueKey(host string, due time.Time, h urlHash) []byte {
	k := duePrefix(host)
	k = appendTimeKey(k, due)
	return append(k, h[:]...)
}

func duePrefix(host string) []byte {
	k := make([]byte, 0, len(prefixDue)+len(host)+1+12+hashLen)
	k = append(k, prefixDue...)
	k = append(k, host...)
	return append(k, 0)
}

// DueItem is a URL in the due index with the time its revisit is due.
type DueItem struct {
	URL string
	Due time.Time
}

// Due returns up to n of host's scheduled URLs due at or before before,
// earliest first.
func (s *Store) Due(host string, before time.Time, n int) ([]DueItem, error) {
	if err := checkHost(host); err != nil {
		return nil, fmt.Errorf("store: due: %w", err)
	}
	lo := duePrefix(host)
	// The bound is before's key followed by more 0xff bytes than a hash
	// has, which sorts after every entry due at before. before.Add(1ns)
	// would not: at the largest time it wraps the nanoseconds to zero.
	hi := appendTimeKey(duePrefix(host), before)
	for range hashLen + 1 {
		hi = append(hi, 0xff)
	}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, fmt.Errorf("store: due %s: %w", host, err)
	}
	defer it.Close()
	var out []DueItem
	for ok := it.First(); ok && len(out) < n; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			return nil, fmt.Errorf("store: due %s: %w", host, err)
		}
		due, err := decodeTimeKey(it.Key()[len(lo):])
		if err != nil {
			return nil, fmt.Errorf("store: due %s: %w", host, err)
		}
		out = append(out, DueItem{URL: string(v), Due: due})
	}
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("store: due %s: %w", host, err)
	}
	return out, nil
}

// DueHosts calls fn for every host with scheduled URLs, in host order, with
// the earliest due time among them. It costs one seek per host; a restarted
// crawler rebuilds its in-memory schedule with it. If fn returns an error,
// DueHosts stops and returns that error unchanged.
func (s *Store) DueHosts(fn func(host string, next time.Time) error) error {
	lo := []byte(prefixDue)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: prefixEnd(lo)})
	if err != nil {
		return fmt.Errorf("store: due hosts: %w", err)
	}
	defer it.Close()
	for ok := it.First(); ok; {
		k := it.Key()[len(lo):]
		i := indexByte(k, 0)
		if i < 0 || len(k) != i+1+12+hashLen {
			return fmt.Errorf("store: due hosts: key %q: %w", it.Key(), ErrCorrupt)
		}
		host := string(k[:i])
		next, err := decodeTimeKey(k[i+1:])
		if err != nil {
			return fmt.Errorf("store: due hosts: %s: %w", host, err)
		}
		if err := fn(host, next); err != nil {
			return err
		}
		skip := append([]byte(prefixDue), host...)
		ok = it.SeekGE(append(skip, 1))
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("store: due hosts: %w", err)
	}
	return nil
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// decodeTimeKey reverses appendTimeKey on the first 12 bytes of b.
func decodeTimeKey(b []byte) (time.Time, error) {
	if len(b) < 12 {
		return time.Time{}, ErrCorrupt
	}
	sec := int64(binary.BigEndian.Uint64(b) ^ (1 << 63))
	ns := binary.BigEndian.Uint32(b[8:])
	if ns >= 1e9 {
		return time.Time{}, ErrCorrupt
	}
	return time.Unix(sec, int64(ns)).UTC(), nil
}
