// Package store is the crawler's durable state: the set of URLs ever seen, the
// on-disk per-host frontier and the page-state rows with their visit history,
// all in one Pebble directory.
//
// Every mutating call commits exactly one Pebble batch, so a kill -9 at any
// moment leaves the store as it was before or after that call, never in
// between (DESIGN.md §4, "Nothing lost"). Calls that return without error are
// in the write-ahead log; with the default Options they are also fsynced.
//
// URLs are taken as given: callers canonicalise them (internal/urlx) first,
// so that one page has one key.
//
// Key layout (all keys start with a one-letter prefix and a slash):
//
//	m/seen                       uint64 big-endian: number of s/ keys
//	s/<hash16>                   empty: the URL with this hash has been seen
//	h/<host>                     queue meta: head, tail sequence numbers
//	q/<host>\x00<seq BE8>        one queued item: kind, hops, URL
//	p/<hash16>                   Page, versioned binary encoding
//	v/<hash16>/<sec BE8><ns BE4> Visit, versioned binary encoding
//	d/<host>\x00<time 12><hash16> URL: the page's revisit is due then
//	l/<hash16>                   time: the latest sitemap lastmod of the URL
//	g/<hash16>                   the URL hashes the page links to (links.go)
//	t/<host>                     HostState, versioned binary encoding (host.go)
//	u/<host>\x00<group>          a URL-pattern group's pooled change history
//	m/c/<name>                   uint64 big-endian: a named counter
//	c/<name>                     a named setting of the crawl
//	o/<seq BE8>                  URLs found for other partitions, unsent (outbox.go)
//	r/<host>                     the host's last answer and delay (answer.go)
package store

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"log"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
)

// Default option values, used where an Options field is zero.
const (
	// DefaultCacheSize is the default block cache size: 64 MiB.
	DefaultCacheSize = 64 << 20
	// DefaultMemTableSize is the default memtable size: 16 MiB. Pebble keeps
	// up to two memtables (one being flushed), so this bounds write buffering
	// at about 32 MiB.
	DefaultMemTableSize = 16 << 20
	// DefaultBloomBitsPerKey is the default bloom filter size, which gives
	// about a 1 % false-positive rate on point reads of absent keys.
	DefaultBloomBitsPerKey = 10
	// DefaultSeenCache is the default size of the in-memory cache of seen
	// URL hashes: 2^20 hashes, about 50 MB.
	DefaultSeenCache = 1 << 20
)

// Options configures a Store. The zero value is valid and gives the
// documented defaults.
type Options struct {
	// CacheSize is the Pebble block cache size in bytes. Zero means
	// DefaultCacheSize.
	CacheSize int64
	// MemTableSize is the Pebble memtable size in bytes. Zero means
	// DefaultMemTableSize.
	MemTableSize uint64
	// BloomBitsPerKey sets the bloom filter used on every LSM level, so that
	// the Get of a URL never seen before (the common case in Txn.Enqueue) rarely
	// touches disk. Zero means DefaultBloomBitsPerKey.
	BloomBitsPerKey int
	// NoSync, when true, commits batches to the write-ahead log without
	// fsync: a killed process still loses nothing, but a machine crash may
	// lose the last writes. The zero value (false) fsyncs every commit, which
	// is what state commits need.
	NoSync bool
	// ReadOnly opens the store for reading only (freshcrawl status): nothing
	// is written, not even Pebble's bookkeeping files.
	ReadOnly bool
	// SeenCache is how many URL hashes known to be in the seen set are
	// kept in memory, so that links to pages already known (most links)
	// cost no Pebble lookup. Zero means DefaultSeenCache; negative, none.
	SeenCache int
	// Logf, if set, receives Pebble's log messages (WAL recovery,
	// background errors). If nil, informational messages are dropped and
	// errors go to the standard library logger.
	Logf func(format string, args ...any)
}

// ErrNotFound is returned (wrapped) when a requested record does not exist.
var ErrNotFound = errors.New("not found")

// ErrCorrupt is returned (wrapped) when a stored record cannot be decoded.
var ErrCorrupt = errors.New("corrupt record")

// ErrInvalidHost is returned (wrapped) for an empty host or one containing a
// NUL byte, which would break the queue key layout.
var ErrInvalidHost = errors.New("invalid host")

// Store is the crawler's durable state in one Pebble directory. Its methods
// are safe for concurrent use. A Store must not be used after Close.
type Store struct {
	db    *pebble.DB
	wopts *pebble.WriteOptions

	// mu is held by a Txn from Begin to Commit or Abort, so that the reads
	// it makes (is this URL new? where does this queue end?) stay valid
	// until its batch is applied. It covers the transaction only: a reader
	// of seenCount (the crawler's workers, planning a revisit) must not
	// wait out a commit's fsync.
	mu    sync.Mutex
	known seenCache // hashes known to be in the seen set; guarded by mu
	out   outbox    // the outbox's next sequence number; guarded by mu (outbox.go)
	// seenCount mirrors the persisted m/seen counter. Commit writes it
	// under mu; it is read without.
	seenCount atomic.Uint64
	// legacy is set on a read-only store of a crawl from before host
	// states had keys of their own (host.go).
	legacy legacyKeys
}

// Open opens (creating if needed) the store in dir. If another process, or
// another Store in this one, has the store open, the error wraps ErrLocked.
func Open(dir string, opts Options) (*Store, error) {
	if opts.CacheSize <= 0 {
		opts.CacheSize = DefaultCacheSize
	}
	if opts.MemTableSize == 0 {
		opts.MemTableSize = DefaultMemTableSize
	}
	if opts.BloomBitsPerKey <= 0 {
		opts.BloomBitsPerKey = DefaultBloomBitsPerKey
	}
	cache := pebble.NewCache(opts.CacheSize)
	// The DB takes its own reference; dropping ours lets Close free it.
	defer cache.Unref()
	po := &pebble.Options{
		Cache:        cache,
		MemTableSize: opts.MemTableSize,
		Logger:       pebbleLogger{opts.Logf},
		ReadOnly:     opts.ReadOnly,
	}
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(opts.BloomBitsPerKey)
	}
	db, err := pebble.Open(dir, po)
	if err != nil {
		if isLocked(err) {
			return nil, fmt.Errorf("store: open %s: %w: %w", dir, ErrLocked, err)
		}
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	s := &Store{db: db, wopts: pebble.Sync}
	switch {
	case opts.SeenCache == 0:
		s.known.limit = DefaultSeenCache
	case opts.SeenCache > 0:
		s.known.limit = opts.SeenCache
	}
	if opts.NoSync {
		s.wopts = pebble.NoSync
	}
	n, err := s.readUint64(keySeenCount)
	if err == nil {
		s.seenCount.Store(n)
		err = s.openHostStates(opts.ReadOnly)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	return s, nil
}

// Close flushes nothing extra (every commit is already in the WAL) and
// releases the database.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("store: close: %w", err)
	}
	return nil
}

// pebbleLogger adapts Options.Logf to Pebble's logger interface.
type pebbleLogger struct {
	logf func(format string, args ...any)
}

func (l pebbleLogger) Infof(format string, args ...any) {
	if l.logf != nil {
		l.logf(format, args...)
	}
}

func (l pebbleLogger) Errorf(format string, args ...any) {
	if l.logf != nil {
		l.logf(format, args...)
		return
	}
	log.Printf("store: pebble: "+format, args...)
}

// Fatalf is called by Pebble on broken internal invariants; like Pebble's
// default logger, it does not return.
func (l pebbleLogger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf("store: pebble: "+format, args...))
}

// Key prefixes. See the package comment for the layout.
var keySeenCount = []byte("m/seen")

const (
	prefixSeen  = "s/"
	prefixMeta  = "h/"
	prefixQueue = "q/"
	prefixPage  = "p/"
	prefixVisit = "v/"

	prefixDue       = "d/"
	prefixLastMod   = "l/"
	prefixHostState = "t/"
	prefixGroup     = "u/"
	prefixCounter   = "m/c/"
	prefixSetting   = "c/"
)

// hashLen is the length of a URL hash: 128 bits of SHA-256, so that a
// collision among 10^10 URLs has probability about 10^-19.
const hashLen = 16

type urlHash [hashLen]byte

func hashURL(u string) urlHash {
	// Sum256 neither keeps nor changes its argument, so the string's
	// bytes are read in place: a copy was a third of the cost of hashing
	// a page's links.
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(u), len(u)))
	return urlHash(sum[:hashLen])
}

func hashKey(prefix string, h urlHash) []byte {
	k := make([]byte, 0, len(prefix)+hashLen)
	k = append(k, prefix...)
	return append(k, h[:]...)
}

// prefixEnd returns the smallest key greater than every key with prefix p.
// Prefixes here never end in 0xff, so incrementing the last byte suffices.
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	end[len(end)-1]++
	return end
}

// get returns a copy of the value at key, or nil, false if absent.
func (s *Store) get(key []byte) ([]byte, bool, error) {
	v, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	out := append([]byte(nil), v...)
	closer.Close()
	return out, true, nil
}

// has reports whether key exists without copying its value.
func (s *Store) has(key []byte) (bool, error) {
	_, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	closer.Close()
	return true, nil
}

func (s *Store) readUint64(key []byte) (uint64, error) {
	v, ok, err := s.get(key)
	if err != nil || !ok {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("%q: %w", key, ErrCorrupt)
	}
	return beUint64(v), nil
}
