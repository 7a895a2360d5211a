package robots

import (
	"container/list"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// CacheConfig configures a Cache. A zero field takes its default.
type CacheConfig struct {
	// MaxEntries bounds how many authorities the cache holds; the least
	// recently used goes first. Default 10000.
	MaxEntries int
	// TTL is how long a fetched file, or a file found absent, is trusted.
	// Default 24 h: RFC 9309 §2.4 says a crawler should not use a cached
	// copy for longer unless the file is unreachable.
	TTL time.Duration
	// ErrorTTL is how long an unreachable answer stands before the crawler
	// should ask again. Default 1 h.
	ErrorTTL time.Duration
	// UnreachableLimit is how long robots.txt may stay unreachable before
	// the host stops being shut out. Default 30 days, the "reasonably long
	// period" of RFC 9309 §2.3.1.4.
	UnreachableLimit time.Duration
}

// Cache holds the robots.txt of many authorities, each with the time it
// was fetched and how long it stays fresh. It applies RFC 9309's rules for
// status codes and unreachable servers (§2.3.1, §2.4). Time is passed in by
// the caller. A Cache is safe for concurrent use.
type Cache struct {
	cfg   CacheConfig
	mu    sync.Mutex
	lru   list.List // of *cacheItem, most recently used first
	items map[string]*list.Element
}

// Entry is what a Cache knows of one authority's robots.txt.
type Entry struct {
	// File holds the rules to obey; nil if the cache knows nothing.
	File *File
	// Status is the HTTP status of the last fetch, 0 for a network error.
	Status int
	// Fetched is when the last fetch ended.
	Fetched time.Time
	// Expires is when the entry goes stale and the file should be fetched
	// again.
	Expires time.Time
	// UnreachableSince is when the current run of unreachable answers
	// began; zero if the last answer was not one.
	UnreachableSince time.Time
}

type cacheItem struct {
	key   string
	entry Entry
	// good is the last file fetched with a 2xx status. It is kept through
	// unreachable periods, for a 304 to confirm or for the fallback after
	// UnreachableLimit.
	good *File
}

// NewCache returns an empty cache.
func NewCache(cfg CacheConfig) *Cache {
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = 10000
	}
	if cfg.TTL <= 0 {
		cfg.TTL = 24 * time.Hour
	}
	if cfg.ErrorTTL <= 0 {
		cfg.ErrorTTL = time.Hour
	}
	if cfg.UnreachableLimit <= 0 {
		cfg.UnreachableLimit = 30 * 24 * time.Hour
	}
	return &Cache{cfg: cfg, items: make(map[string]*list.Element)}
}

// Key returns the cache key of a URL's authority: scheme, host and port,
// in lower case and with the default port made explicit, so that
// http://Example.com/a and http://example.com:80/b share a robots.txt
// (RFC 9309 §2.3: the file applies to one scheme, host and port).
func Key(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// Get returns the entry for key and whether it is fresh at now. A stale
// entry is returned too, for its history; the crawler should fetch the file
// again before it obeys it. If the cache knows nothing of key, the Entry's
// File is nil.
func (c *Cache) Get(key string, now time.Time) (Entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return Entry{}, false
	}
	c.lru.MoveToFront(el)
	e := el.Value.(*cacheItem).entry
	return e, now.Before(e.Expires)
}

// Record stores the answer to a robots.txt fetch for key, made at now, and
// returns the entry that results. Pass 0 as the status for a network error,
// and the last 3xx if MaxRedirects ran out.
//
//   - 2xx: the body is parsed; it is fresh for TTL.
//   - 304: the cached file, if there is one, is confirmed for TTL.
//   - any other 3xx or 4xx: allow all for TTL.
//   - 5xx, 429, network error: disallow all for ErrorTTL, so the crawler
//     retries soon. Once the file has been unreachable for UnreachableLimit
//     the last file fetched with a 2xx is used instead, or if there is none,
//     allow all (RFC 9309 §2.3.1.4 allows both).
func (c *Cache) Record(key string, status int, body []byte, now time.Time) Entry {
	var parsed *File
	if Classify(status) == Available {
		parsed = Parse(body) // outside the lock: parsing is the slow part
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	it := c.item(key)
	e := Entry{Status: status, Fetched: now, Expires: now.Add(c.cfg.TTL)}
	switch {
	case status == http.StatusNotModified && it.good != nil:
		e.File = it.good
	case parsed != nil:
		e.File, it.good = parsed, parsed
	case Classify(status) == Unavailable:
		e.File, it.good = AllowAll(), nil
	default:
		e.UnreachableSince = now
		if !it.entry.UnreachableSince.IsZero() {
			e.UnreachableSince = it.entry.UnreachableSince
		}
		e.Expires = now.Add(c.cfg.ErrorTTL)
		switch {
		case now.Sub(e.UnreachableSince) < c.cfg.UnreachableLimit:
			e.File = DisallowAll()
		case it.good != nil:
			e.File = it.good
		default:
			e.File = AllowAll()
		}
	}
	it.entry = e
	return e
}

// Len returns the number of entries in the cache.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Peek returns the entry for key, if the cache has one, without making it
// the most recently used.
func (c *Cache) Peek(key string) (Entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return Entry{}, false
	}
	return el.Value.(*cacheItem).entry, true
}

// Each calls fn with every entry and its key, most recently used first,
// without changing their order. fn must not call the cache.
func (c *Cache) Each(fn func(key string, e Entry)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.lru.Front(); el != nil; el = el.Next() {
		it := el.Value.(*cacheItem)
		fn(it.key, it.entry)
	}
}

// item returns key's item, most recently used now, adding it and evicting
// the least recently used if need be. The caller holds c.mu.
func (c *Cache) item(key string) *cacheItem {
	if el, ok := c.items[key]; ok {
		c.lru.MoveToFront(el)
		return el.Value.(*cacheItem)
	}
	it := &cacheItem{key: key}
	c.items[key] = c.lru.PushFront(it)
	for c.lru.Len() > c.cfg.MaxEntries {
		old := c.lru.Remove(c.lru.Back()).(*cacheItem)
		delete(c.items, old.key)
	}
	return it
}
