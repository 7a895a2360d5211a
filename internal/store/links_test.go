package store

import (
	"slices"
	"testing"
)

func TestLinks(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir)
	txn := s.Begin()
	a, b, c := "http://a.test/", "http://b.test/x", "http://c.test/y"
	if err := txn.SetLinks(a, []string{b, c, b}); err != nil {
		t.Fatal(err)
	}
	if err := txn.SetLinks(b, []string{a}); err != nil {
		t.Fatal(err)
	}
	if err := txn.SetLinks(c, nil); err != nil { // no links: no record
		t.Fatal(err)
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := s.Links(a)
	if err != nil {
		t.Fatal(err)
	}
	want := []Hash{HashURL(b), HashURL(c)}
	slices.SortFunc(want, compareHash)
	if !slices.Equal(got, want) {
		t.Errorf("links of a: %x, want %x", got, want)
	}
	// Replaced, then read back after a reopen.
	txn = s.Begin()
	txn.SetLinks(a, []string{c})
	txn.Commit()
	s.Close()
	s = openTest(t, dir)
	defer s.Close()
	all := map[Hash][]Hash{}
	err = s.ForEachLinks(func(p Hash, ts []Hash) error {
		all[p] = slices.Clone(ts)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || !slices.Equal(all[HashURL(a)], []Hash{HashURL(c)}) || !slices.Equal(all[HashURL(b)], []Hash{HashURL(a)}) {
		t.Errorf("after reopen: %x", all)
	}
	txn = s.Begin()
	txn.DeleteLinks(b)
	txn.Commit()
	if got, _ := s.Links(b); got != nil {
		t.Errorf("deleted links read back: %x", got)
	}
}
