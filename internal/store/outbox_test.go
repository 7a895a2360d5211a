package store

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"
)

type outboxRow struct {
	seq  uint64
	urls []string
}

func readOutbox(t *testing.T, s *Store, max int) []outboxRow {
	t.Helper()
	var rows []outboxRow
	if err := s.Outbox(max, func(seq uint64, urls []string) error {
		rows = append(rows, outboxRow{seq, append([]string(nil), urls...)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestOutbox: rows come back in the order committed, an aborted row is
// not there, a reopened store appends after the last row, and dropped
// rows are gone.
func TestOutbox(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	add := func(urls ...string) {
		txn := s.Begin()
		if err := txn.AddOutbox(urls); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	add("http://b.example/1", "http://c.example/")
	add() // nothing: no row
	txn := s.Begin()
	if err := txn.AddOutbox([]string{"http://aborted.example/"}); err != nil {
		t.Fatal(err)
	}
	txn.Abort()
	add("http://b.example/2")
	want := []outboxRow{{0, []string{"http://b.example/1", "http://c.example/"}}, {2, []string{"http://b.example/2"}}}
	if got := readOutbox(t, s, 10); !reflect.DeepEqual(got, want) {
		t.Fatalf("outbox %v, want %v", got, want)
	}
	if got := readOutbox(t, s, 1); !reflect.DeepEqual(got, want[:1]) {
		t.Fatalf("first row %v, want %v", got, want[:1])
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	add("http://d.example/")
	want = append(want, outboxRow{3, []string{"http://d.example/"}})
	if got := readOutbox(t, s, 10); !reflect.DeepEqual(got, want) {
		t.Fatalf("after reopening: %v, want %v", got, want)
	}
	if err := s.DropOutbox(2, 3, 4); err != nil {
		t.Fatal(err)
	}
	if got := readOutbox(t, s, 10); !reflect.DeepEqual(got, want[2:]) {
		t.Fatalf("after dropping through 2: %v, want %v", got, want[2:])
	}
	sent, _ := s.Counter(CounterSent)
	links, _ := s.Counter(CounterLinks)
	if rows, err := s.OutboxRows(); err != nil || rows != 1 || sent != 3 || links != 4 {
		t.Errorf("after the drop: %d rows (%v), sent %d, links %d; want 1, 3, 4", rows, err, sent, links)
	}
	stop := errors.New("stop")
	if err := s.Outbox(10, func(uint64, []string) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("fn's error: got %v", err)
	}
}

func TestDecodeOutboxDamaged(t *testing.T) {
	for _, v := range [][]byte{nil, {1}, {1, 5, 'a'}, {0, 0}, {2, 1, 'a'}} {
		if _, ok := decodeOutbox(nil, v); ok {
			t.Errorf("decodeOutbox(%v) accepted", v)
		}
	}
	if got, ok := decodeOutbox(nil, []byte{2, 1, 'a', 0}); !ok || !reflect.DeepEqual(got, []string{"a", ""}) {
		t.Errorf("decodeOutbox of two URLs: %q %v", got, ok)
	}
}
