package store

import (
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
)

func TestHostStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir)
	states := map[string]HostState{
		"a.test":      {LastModified: Agreement{5, 1}, ETag: Agreement{7, 0}, Sitemap: Agreement{2, 3}, Probes: 9, Pool: []byte{1, 2, 3}},
		"b.test:8080": {Probes: 1},
	}
	tx := s.Begin()
	for h, hs := range states {
		if err := tx.PutHostState(h, hs); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.PutGroupPool("a.test", "news", []byte{4, 5}); err != nil {
		t.Fatal(err)
	}
	if err := tx.PutGroupPool("a.test", "", []byte{6}); err != nil {
		t.Fatal(err)
	}
	if err := tx.PutHostState("", HostState{}); !errors.Is(err, ErrInvalidHost) {
		t.Errorf("PutHostState of an empty host: %v, want ErrInvalidHost", err)
	}
	mustCommit(t, tx)
	closeTest(t, s)

	s = openTest(t, dir)
	defer closeTest(t, s)
	for h, want := range states {
		got, ok, err := s.HostState(h)
		if err != nil || !ok {
			t.Fatalf("HostState(%s): %v, %v", h, ok, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("HostState(%s) = %+v, want %+v", h, got, want)
		}
	}
	if _, ok, err := s.HostState("c.test"); ok || err != nil {
		t.Errorf("HostState of a host never put: %v, %v", ok, err)
	}
	walked := map[string]HostState{}
	if err := s.ForEachHostState(func(h string, hs HostState, err error) error { walked[h] = hs; return err }); err != nil {
		t.Fatal(err)
	}
	if len(walked) != len(states) {
		t.Errorf("ForEachHostState walked %d hosts, want %d", len(walked), len(states))
	}
	pools := map[string]string{}
	if err := s.ForEachGroupPool(func(h, g string, p []byte) error { pools[h+" "+g] = string(p); return nil }); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"a.test news": "\x04\x05", "a.test ": "\x06"}; !reflect.DeepEqual(pools, want) {
		t.Errorf("ForEachGroupPool: %q, want %q", pools, want)
	}
	stop := errors.New("stop")
	if err := s.ForEachHostState(func(string, HostState, error) error { return stop }); err != stop {
		t.Errorf("ForEachHostState returned %v for its callback's error", err)
	}
}

// A version 1 record (before sitemap counts) still decodes; unknown
// versions and truncated counts are corrupt.
func TestDecodeHostState(t *testing.T) {
	v1 := []byte{1}
	for _, c := range []uint64{5, 1, 7, 0, 9} {
		v1 = binary.AppendUvarint(v1, c)
	}
	v1 = append(v1, 0xaa)
	got, err := decodeHostState(v1)
	want := HostState{LastModified: Agreement{5, 1}, ETag: Agreement{7, 0}, Probes: 9, Pool: []byte{0xaa}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("version 1: %+v, %v; want %+v", got, err, want)
	}
	for _, b := range [][]byte{nil, {0}, {3, 1, 1, 1, 1, 1, 1, 1}, {2, 1, 1}, {2, 0x80}} {
		if _, err := decodeHostState(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("decodeHostState(%v): %v, want ErrCorrupt", b, err)
		}
	}
}

// A store whose host states are the settings of an older crawler: opened
// read-only, it reads them where they are; opened for writing, it moves
// them to their keys, and the settings are gone.
func TestHostStateMigration(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir)
	old := HostState{LastModified: Agreement{6, 0}, Sitemap: Agreement{1, 0}, Probes: 3, Pool: []byte{7, 7}}
	tx := s.Begin()
	for name, v := range map[string]string{
		"site/a.test":       string(encodeHostState(&old)),
		"group/a.test/news": "\x01\x02",
		"scope/host/a.test": "",
	} {
		if err := tx.SetSetting(name, v); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, tx)
	closeTest(t, s)

	check := func(s *Store) {
		t.Helper()
		if hs, ok, err := s.HostState("a.test"); err != nil || !ok || !reflect.DeepEqual(hs, old) {
			t.Errorf("HostState: %+v, %v, %v; want %+v", hs, ok, err, old)
		}
		if p, ok, err := s.GroupPool("a.test", "news"); err != nil || !ok || string(p) != "\x01\x02" {
			t.Errorf("GroupPool: %q, %v, %v", p, ok, err)
		}
		n := 0
		if err := s.ForEachGroupPool(func(h, g string, p []byte) error {
			if h != "a.test" || g != "news" {
				t.Errorf("group pool %q %q", h, g)
			}
			n++
			return nil
		}); err != nil || n != 1 {
			t.Errorf("ForEachGroupPool: %d pools, %v", n, err)
		}
	}
	ro, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	check(ro)
	closeTest(t, ro)

	s = openTest(t, dir)
	defer closeTest(t, s)
	check(s)
	var left []string
	if err := s.Settings("", func(name, _ string) error { left = append(left, name); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(left, []string{"scope/host/a.test"}) {
		t.Errorf("settings after the migration: %q, want only the scope", left)
	}
}

// SeenCount answers while a transaction holds the store: the workers that
// read it must not wait out a commit.
func TestSeenCountDuringTxn(t *testing.T) {
	s := openTest(t, t.TempDir())
	defer closeTest(t, s)
	mustEnqueue(t, s, "a.test", "http://a.test/1", "http://a.test/2")
	tx := s.Begin()
	if _, _, err := tx.Enqueue("a.test", urlItems("http://a.test/3"), 0); err != nil {
		t.Fatal(err)
	}
	done := make(chan uint64)
	go func() { done <- s.SeenCount() }()
	if n := <-done; n != 2 {
		t.Errorf("SeenCount during a transaction: %d, want the 2 committed", n)
	}
	mustCommit(t, tx)
	if n := s.SeenCount(); n != 3 {
		t.Errorf("SeenCount after the commit: %d, want 3", n)
	}
}
