package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/cockroachdb/pebble/v2"
)

// HostState is what a crawl has learnt about how one host's pages change:
// how far its validators and its sitemaps' lastmod dates agree with the
// content, how many revisits went out since the last unconditional one,
// and the pooled change history of its pages. The refresh module judges
// and updates it; the store keeps the pool opaque (an encoded
// change.Stats), as it keeps Page.Change.
type HostState struct {
	// LastModified and ETag count how the host's validators agreed with
	// the content checksums; Sitemap how its sitemaps' lastmod dates did.
	LastModified, ETag, Sitemap Agreement
	// Probes counts the revisits since the last one made without
	// validators.
	Probes uint32
	// Pool is the change history of the host's pages, pooled.
	Pool []byte
}

// Agreement counts how a claim of a host (a validator that changed or
// not, a lastmod that says the page changed) agreed with what the content
// showed, and how often it did not.
type Agreement struct{ Agree, Disagree uint32 }

// hostStateVersion is the first byte of an encoded HostState; version 1
// had no sitemap counts.
const hostStateVersion = 2

func hostStateKey(host string) []byte { return append([]byte(prefixHostState), host...) }

// groupKey is u/<host>\x00<group>: the pools of one host's URL-pattern
// groups sort together.
func groupKey(host, group string) []byte {
	k := make([]byte, 0, len(prefixGroup)+len(host)+1+len(group))
	k = append(k, prefixGroup...)
	k = append(k, host...)
	k = append(k, 0)
	return append(k, group...)
}

func encodeHostState(hs *HostState) []byte {
	b := make([]byte, 0, 16+len(hs.Pool))
	b = append(b, hostStateVersion)
	for _, v := range hs.counts() {
		b = binary.AppendUvarint(b, uint64(*v))
	}
	return append(b, hs.Pool...)
}

// counts lists the counts in their encoded order.
func (hs *HostState) counts() []*uint32 {
	return []*uint32{&hs.LastModified.Agree, &hs.LastModified.Disagree, &hs.ETag.Agree, &hs.ETag.Disagree,
		&hs.Probes, &hs.Sitemap.Agree, &hs.Sitemap.Disagree}
}

func decodeHostState(b []byte) (HostState, error) {
	var hs HostState
	d := decoder{b: b}
	v := d.byte()
	if d.err == nil && (v < 1 || v > hostStateVersion) {
		return HostState{}, fmt.Errorf("decode host state: version %d: %w", v, ErrCorrupt)
	}
	counts := hs.counts()
	if v == 1 {
		counts = counts[:5]
	}
	for _, p := range counts {
		*p = d.uint32()
	}
	if d.err != nil {
		return HostState{}, fmt.Errorf("decode host state: %w", d.err)
	}
	hs.Pool = append([]byte(nil), d.b...)
	return hs, nil
}

// PutHostState stages host's state.
func (t *Txn) PutHostState(host string, hs HostState) error {
	if err := checkHost(host); err != nil {
		return fmt.Errorf("store: put host state: %w", err)
	}
	if err := t.b.Set(hostStateKey(host), encodeHostState(&hs), nil); err != nil {
		return fmt.Errorf("store: put host state %s: %w", host, err)
	}
	return nil
}

// HostState returns host's state and whether there is one.
func (s *Store) HostState(host string) (HostState, bool, error) {
	v, ok, err := s.get(s.legacy.hostKey(host))
	if err != nil || !ok {
		return HostState{}, false, err
	}
	hs, err := decodeHostState(v)
	if err != nil {
		return HostState{}, false, fmt.Errorf("store: host state %s: %w", host, err)
	}
	return hs, true, nil
}

// ForEachHostState calls fn with every host's state, in host order. A
// record that does not decode comes with a zero state and an error
// wrapping ErrCorrupt, for fn to judge; an error fn returns stops the walk
// and is returned unchanged.
func (s *Store) ForEachHostState(fn func(host string, hs HostState, err error) error) error {
	prefix := s.legacy.hostPrefix()
	err := s.scan(prefix, func(k, v []byte) error {
		host := string(k[len(prefix):])
		hs, err := decodeHostState(v)
		if err != nil {
			err = fmt.Errorf("store: host state %s: %w", host, err)
		}
		if err := fn(host, hs, err); err != nil {
			return errStop{err}
		}
		return nil
	})
	return stopped(err, "store: host states")
}

// PutGroupPool stages the pooled change history of one URL-pattern group
// of host's pages (an encoded change.Stats; the store keeps it opaque).
func (t *Txn) PutGroupPool(host, group string, pool []byte) error {
	if err := checkHost(host); err != nil {
		return fmt.Errorf("store: put group pool: %w", err)
	}
	if err := t.b.Set(groupKey(host, group), pool, nil); err != nil {
		return fmt.Errorf("store: put group pool %s %s: %w", host, group, err)
	}
	return nil
}

// GroupPool returns the pool of host's URL-pattern group and whether there
// is one.
func (s *Store) GroupPool(host, group string) ([]byte, bool, error) {
	v, ok, err := s.get(s.legacy.groupKey(host, group))
	if err != nil {
		return nil, false, fmt.Errorf("store: group pool %s %s: %w", host, group, err)
	}
	return v, ok, nil
}

// ForEachGroupPool calls fn with every URL-pattern group's pool, host by
// host. The pool is valid only during the call; an error fn returns stops
// the walk and is returned unchanged.
func (s *Store) ForEachGroupPool(fn func(host, group string, pool []byte) error) error {
	prefix, sep := s.legacy.groupPrefix()
	err := s.scan(prefix, func(k, v []byte) error {
		host, group, ok := bytes.Cut(k[len(prefix):], []byte{sep})
		if !ok {
			return fmt.Errorf("group pool key %q: %w", k, ErrCorrupt)
		}
		if err := fn(string(host), string(group), v); err != nil {
			return errStop{err}
		}
		return nil
	})
	return stopped(err, "store: group pools")
}

// Before host states had keys of their own, the crawler kept them as the
// settings site/<host> (in HostState's encoding) and group/<host>/<group>
// (the pool). A store opened for writing moves them to their keys in one
// batch (migrateHostStates); a store opened read-only reads them where
// they are (legacyKeys).
const (
	legacySitePrefix  = "site/"
	legacyGroupPrefix = "group/"
)

// legacyKeys says where a store keeps its host states: true for a
// read-only store of a crawl from before their keys.
type legacyKeys bool

func (l legacyKeys) hostKey(host string) []byte {
	if l {
		return settingKey(legacySitePrefix + host)
	}
	return hostStateKey(host)
}

func (l legacyKeys) hostPrefix() []byte {
	if l {
		return settingKey(legacySitePrefix)
	}
	return []byte(prefixHostState)
}

func (l legacyKeys) groupKey(host, group string) []byte {
	if l {
		return settingKey(legacyGroupPrefix + host + "/" + group)
	}
	return groupKey(host, group)
}

// groupPrefix returns the prefix of the group pools' keys and the byte
// that ends the host in them.
func (l legacyKeys) groupPrefix() ([]byte, byte) {
	if l {
		return settingKey(legacyGroupPrefix), '/'
	}
	return []byte(prefixGroup), 0
}

// openHostStates moves a store's legacy host states to their keys, or,
// for a read-only store, notes that they are still settings.
func (s *Store) openHostStates(readOnly bool) error {
	errFound := errors.New("found")
	switch err := s.scan(settingKey(legacySitePrefix), func(k, v []byte) error { return errFound }); err {
	case nil:
		return nil
	case errFound:
	default:
		return fmt.Errorf("store: host states: %w", err)
	}
	if readOnly {
		s.legacy = true
		return nil
	}
	return s.migrateHostStates()
}

// migrateHostStates moves the legacy host-state settings to their keys.
func (s *Store) migrateHostStates() error {
	b := s.db.NewBatch()
	defer b.Close()
	move := func(from []byte, to func(name string) ([]byte, bool)) error {
		return s.scan(from, func(k, v []byte) error {
			key, ok := to(string(k[len(from):]))
			if !ok {
				return nil // Not a record this binary can place: left as it is.
			}
			if err := b.Set(key, v, nil); err != nil {
				return err
			}
			return b.Delete(k, nil)
		})
	}
	err := move(settingKey(legacySitePrefix), func(host string) ([]byte, bool) {
		return hostStateKey(host), checkHost(host) == nil
	})
	if err == nil {
		err = move(settingKey(legacyGroupPrefix), func(name string) ([]byte, bool) {
			host, group, ok := strings.Cut(name, "/")
			return groupKey(host, group), ok && checkHost(host) == nil
		})
	}
	if err == nil {
		err = s.db.Apply(b, pebble.Sync)
	}
	if err != nil {
		return fmt.Errorf("store: migrate host states: %w", err)
	}
	return nil
}
