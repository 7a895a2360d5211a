package store

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// The outbox of a crawl that is one partition of a cluster
// (internal/cluster): the links it found to URLs that other partitions
// own, written in the transaction that records the page they came from,
// and kept until they have been sent. So a link found is never lost
// between nodes: either the page's outcome and its links are both
// committed, or neither is and the page is fetched again.
//
//	o/<seq BE8>   uvarint n, then n × (uvarint length, URL)

const prefixOutbox = "o/"

// outbox is the store's outbox sequence, guarded by Store.mu.
type outbox struct {
	next  uint64 // the sequence number of the next row
	ready bool   // next has been read from the store
}

func outboxKey(seq uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte(prefixOutbox), seq)
}

// AddOutbox stages a row of URLs owned by other partitions, after every
// row before it. An empty list stages nothing.
func (t *Txn) AddOutbox(urls []string) error {
	if len(urls) == 0 {
		return nil
	}
	if err := t.s.readOutbox(); err != nil {
		return err
	}
	v := binary.AppendUvarint(nil, uint64(len(urls)))
	for _, u := range urls {
		v = binary.AppendUvarint(v, uint64(len(u)))
		v = append(v, u...)
	}
	seq := t.s.out.next
	t.s.out.next++ // a row aborted leaves a gap, which is harmless
	if err := t.b.Set(outboxKey(seq), v, nil); err != nil {
		return fmt.Errorf("store: outbox: %w", err)
	}
	return nil
}

// readOutbox finds the next sequence number, once: one past the last row.
// The caller holds s.mu.
func (s *Store) readOutbox() error {
	if s.out.ready {
		return nil
	}
	prefix := []byte(prefixOutbox)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
	if err != nil {
		return fmt.Errorf("store: outbox: %w", err)
	}
	defer it.Close()
	if it.Last() {
		k := it.Key()
		if len(k) != len(prefixOutbox)+8 {
			return fmt.Errorf("%w: outbox key %x", ErrOutbox, k)
		}
		s.out.next = binary.BigEndian.Uint64(k[len(prefixOutbox):]) + 1
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("store: outbox: %w", err)
	}
	s.out.ready = true
	return nil
}

// ErrOutbox is wrapped by errors reading a damaged outbox row.
var ErrOutbox = errors.New("store: damaged outbox row")

// Outbox calls fn with up to max of the oldest outbox rows, in order:
// each row's sequence number and URLs (valid only during the call). If fn
// returns an error, Outbox stops and returns it.
func (s *Store) Outbox(max int, fn func(seq uint64, urls []string) error) error {
	n := 0
	var urls []string
	err := s.scanUntil([]byte(prefixOutbox), func(k, v []byte) error {
		if n == max {
			return errOutboxFull
		}
		n++
		var ok bool
		if urls, ok = decodeOutbox(urls[:0], v); !ok || len(k) != len(prefixOutbox)+8 {
			return fmt.Errorf("%w: %x", ErrOutbox, k)
		}
		return fn(binary.BigEndian.Uint64(k[len(prefixOutbox):]), urls)
	})
	if errors.Is(err, errOutboxFull) {
		return nil
	}
	return err
}

// errOutboxFull stops Outbox's scan at max rows.
var errOutboxFull = errors.New("outbox: enough rows")

func decodeOutbox(dst []string, v []byte) ([]string, bool) {
	n, k := binary.Uvarint(v)
	if k <= 0 || n > uint64(len(v)) {
		return nil, false
	}
	v = v[k:]
	for range n {
		l, k := binary.Uvarint(v)
		if k <= 0 || l > uint64(len(v)-k) {
			return nil, false
		}
		dst = append(dst, string(v[k:k+int(l)]))
		v = v[k+int(l):]
	}
	return dst, len(v) == 0
}

// Counters of a partition's exchange with the others (Store.Counter).
const (
	CounterSent     = "exchange/sent"     // [URL, count] entries sent to other partitions
	CounterLinks    = "exchange/links"    // the links to other partitions they stood for
	CounterReceived = "exchange/received" // URLs received from other partitions
	CounterAdmitted = "exchange/admitted" // of which new here
)

// DropOutbox removes the outbox rows up to and including seq, once they
// have been sent as sent entries for links links, which it counts.
func (s *Store) DropOutbox(seq uint64, sent int, links int64) error {
	t := s.Begin()
	if err := t.b.DeleteRange(outboxKey(0), outboxKey(seq+1), nil); err != nil {
		t.Abort()
		return fmt.Errorf("store: drop outbox: %w", err)
	}
	t.Add(CounterSent, int64(sent))
	t.Add(CounterLinks, links)
	return t.Commit()
}

// OutboxRows returns the number of outbox rows not yet sent.
func (s *Store) OutboxRows() (int, error) {
	n := 0
	err := s.scan([]byte(prefixOutbox), func(_, _ []byte) error { n++; return nil })
	return n, err
}
