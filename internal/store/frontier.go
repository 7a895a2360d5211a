package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/cockroachdb/pebble/v2"
)

// The frontier is one FIFO queue per host. Items live at
// q/<host>\x00<seq>, and h/<host> holds the queue's [head, tail) sequence
// numbers. The meta row stays when the queue empties, so the tail counts
// every item the host ever had queued (Txn.Enqueue's per-host limit reads
// it); Hosts skips empty queues.

func checkHost(host string) error {
	if host == "" || strings.IndexByte(host, 0) >= 0 {
		return fmt.Errorf("%q: %w", host, ErrInvalidHost)
	}
	return nil
}

func metaKey(host string) []byte {
	return append([]byte(prefixMeta), host...)
}

func queuePrefix(host string) []byte {
	k := make([]byte, 0, len(prefixQueue)+len(host)+1+8)
	k = append(k, prefixQueue...)
	k = append(k, host...)
	return append(k, 0)
}

func queueKey(host string, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(queuePrefix(host), seq)
}

func (s *Store) readMeta(host string) (queueMeta, error) {
	v, ok, err := s.get(metaKey(host))
	if err != nil || !ok {
		return queueMeta{}, err
	}
	return decodeMeta(v)
}

// Item is one queued URL with what the crawler needs to know about why it
// is queued.
type Item struct {
	URL string
	// Kind is what the URL is to the crawler: KindPage or KindSitemap.
	Kind uint8
	// Hops counts the redirects that led to URL.
	Hops uint8
}

// QueuedItem is an Item with its position in its host's queue.
type QueuedItem struct {
	Item
	Seq uint64
}

// DropThrough removes from the head of a host's queue (as Queued read
// it, in order) the items up to and including the largest of seqs,
// which have left the queue.
func DropThrough(head []QueuedItem, seqs ...uint64) []QueuedItem {
	if len(seqs) == 0 {
		return head
	}
	last := slices.Max(seqs)
	i := 0
	for i < len(head) && head[i].Seq <= last {
		i++
	}
	if i == len(head) {
		return nil
	}
	return head[i:]
}

// encodeItem lays an item out as kind, hops, then the URL bytes.
func encodeItem(it Item) []byte {
	b := make([]byte, 0, 2+len(it.URL))
	b = append(b, it.Kind, it.Hops)
	return append(b, it.URL...)
}

func decodeItem(b []byte) (Item, error) {
	if len(b) < 2 {
		return Item{}, fmt.Errorf("decode queue item: length %d: %w", len(b), ErrCorrupt)
	}
	return Item{Kind: b[0], Hops: b[1], URL: string(b[2:])}, nil
}

// Peek returns up to n items from the head of host's queue without removing
// them, starting at sequence number from (or the head, if later). A crawler
// removes an item with Txn.Done once its outcome is committed, so a crash
// while it is being fetched leaves it queued.
func (s *Store) Peek(host string, from uint64, n int) ([]QueuedItem, error) {
	if err := checkHost(host); err != nil {
		return nil, fmt.Errorf("store: peek: %w", err)
	}
	m, err := s.readMeta(host)
	if err != nil {
		return nil, fmt.Errorf("store: peek %s: %w", host, err)
	}
	from = max(from, m.head)
	if n <= 0 || from >= m.tail {
		return nil, nil
	}
	hi := min(m.tail, from+uint64(n))
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: queueKey(host, from), UpperBound: queueKey(host, hi)})
	if err != nil {
		return nil, fmt.Errorf("store: peek %s: %w", host, err)
	}
	defer it.Close()
	out := make([]QueuedItem, 0, hi-from)
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			return nil, fmt.Errorf("store: peek %s: %w", host, err)
		}
		item, err := decodeItem(v)
		if err != nil {
			return nil, fmt.Errorf("store: peek %s: %w", host, err)
		}
		k := it.Key()
		out = append(out, QueuedItem{Item: item, Seq: beUint64(k[len(k)-8:])})
	}
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("store: peek %s: %w", host, err)
	}
	return out, nil
}

// Len returns the number of URLs queued for host.
func (s *Store) Len(host string) (int, error) {
	if err := checkHost(host); err != nil {
		return 0, fmt.Errorf("store: len: %w", err)
	}
	m, err := s.readMeta(host)
	if err != nil {
		return 0, fmt.Errorf("store: len %s: %w", host, err)
	}
	return int(m.tail - m.head), nil
}

// Hosts calls fn for every host with a non-empty queue, in key order, with
// the queue's length; it is how a restarted crawler rebuilds its in-memory
// schedule. If fn returns an error, Hosts stops and returns that error
// unchanged.
func (s *Store) Hosts(fn func(host string, n int) error) error {
	lo := []byte(prefixMeta)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: prefixEnd(lo)})
	if err != nil {
		return fmt.Errorf("store: hosts: %w", err)
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		host := string(bytes.TrimPrefix(it.Key(), lo))
		v, err := it.ValueAndErr()
		if err != nil {
			return fmt.Errorf("store: hosts: %s: %w", host, err)
		}
		m, err := decodeMeta(v)
		if err != nil {
			return fmt.Errorf("store: hosts: %s: %w", host, err)
		}
		if m.head == m.tail {
			continue
		}
		if err := fn(host, int(m.tail-m.head)); err != nil {
			return err
		}
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("store: hosts: %w", err)
	}
	return nil
}
