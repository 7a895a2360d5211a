package store

import (
	"maps"
	"testing"
)

// TestCountersPrefix checks the prefix scan of counters: every counter under the
// prefix, with its committed value (negative deltas included), and none
// outside it.
func TestCountersPrefix(t *testing.T) {
	s := openTest(t, t.TempDir())
	txn := s.Begin()
	txn.Add("plan/1/0", 3)
	txn.Add("plan/-5/2", 1)
	txn.Add("plan/1/0", -1)
	txn.Add("planner", 7) // shares the prefix "plan" but not "plan/"
	txn.Add("held", 4)
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	txn = s.Begin()
	txn.Add("plan/-5/2", -3)
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	if err := s.Counters("plan/", func(name string, v int64) error {
		got[name] = v
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := map[string]int64{"plan/1/0": 2, "plan/-5/2": -2}; !maps.Equal(got, want) {
		t.Errorf("Counters(plan/) = %v, want %v", got, want)
	}
}
