package store

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestLastAnswers: the last answer of each host is kept, the later write
// replacing the earlier, and read back in host order after a reopen.
func TestLastAnswers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1_700_000_000, 123)
	for _, a := range []struct {
		host  string
		end   time.Time
		delay time.Duration
	}{
		{"b.test", t0, time.Second},
		{"a.test:8080", t0.Add(time.Minute), 30 * time.Second},
		{"b.test", t0.Add(2 * time.Second), 5 * time.Second},
	} {
		txn := s.Begin()
		if err := txn.SetLastAnswer(a.host, a.end, a.delay); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []string
	if err := s.LastAnswers(func(host string, end time.Time, delay time.Duration) error {
		got = append(got, host+" "+end.Sub(t0).String()+" "+delay.String())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"a.test:8080 1m0s 30s", "b.test 2s 5s"}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("last answers %q, want %q", got, want)
	}
	stop := errors.New("stop")
	if err := s.LastAnswers(func(string, time.Time, time.Duration) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("fn's error: %v", err)
	}
	txn := s.Begin()
	defer txn.Abort()
	if err := txn.SetLastAnswer("", t0, 0); err == nil {
		t.Error("an empty host was accepted")
	}
}
