package store

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// t0 is an arbitrary instant for the scheduling tests.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func mustCommit(t testing.TB, tx *Txn) {
	t.Helper()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// peekAll returns host's whole queue.
func peekAll(t testing.TB, s *Store, host string) []QueuedItem {
	t.Helper()
	got, err := s.Peek(host, 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func hostsOf(t testing.TB, s *Store) map[string]int {
	t.Helper()
	got := map[string]int{}
	if err := s.Hosts(func(h string, n int) error { got[h] = n; return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

// dueHostsOf returns DueHosts as a map and fails if a host is reported
// twice or out of order.
func dueHostsOf(t testing.TB, s *Store) map[string]time.Time {
	t.Helper()
	got := map[string]time.Time{}
	last := ""
	if err := s.DueHosts(func(h string, next time.Time) error {
		if _, dup := got[h]; dup {
			return fmt.Errorf("host %q reported twice", h)
		}
		if len(got) > 0 && h <= last {
			return fmt.Errorf("host %q after %q: not in host order", h, last)
		}
		got[h], last = next, h
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// queued builds the expected queue: items with consecutive sequence
// numbers from first.
func queued(first uint64, items ...Item) []QueuedItem {
	var out []QueuedItem
	for i, it := range items {
		out = append(out, QueuedItem{Item: it, Seq: first + uint64(i)})
	}
	return out
}

func urlItems(urls ...string) []Item {
	var out []Item
	for _, u := range urls {
		out = append(out, Item{URL: u})
	}
	return out
}

func TestTxnEnqueue(t *testing.T) {
	type enqueue struct {
		host            string
		items           []Item
		limit           uint64
		queued, dropped int
	}
	tests := []struct {
		name      string
		preSeen   []string            // marked seen, in no queue, before the txn
		preQueued map[string][]string // queued by an earlier txn
		calls     []enqueue
		want      map[string][]QueuedItem
		seen      uint64 // SeenCount after Commit
	}{
		{
			name:  "new items queue in order with kind and hops",
			calls: []enqueue{{"h", []Item{{"c", 1, 0}, {"a", 2, 3}, {"b", 255, 255}}, 0, 3, 0}},
			want:  map[string][]QueuedItem{"h": queued(0, Item{"c", 1, 0}, Item{"a", 2, 3}, Item{"b", 255, 255})},
			seen:  3,
		},
		{
			name:  "duplicates within one call keep the first",
			calls: []enqueue{{"h", []Item{{"a", 1, 0}, {"b", 0, 0}, {"a", 2, 0}, {"c", 0, 0}, {"b", 0, 0}}, 0, 3, 0}},
			want:  map[string][]QueuedItem{"h": queued(0, Item{"a", 1, 0}, Item{"b", 0, 0}, Item{"c", 0, 0})},
			seen:  3,
		},
		{
			name:  "duplicates across calls of one txn",
			calls: []enqueue{{"h", urlItems("a", "b"), 0, 2, 0}, {"h", urlItems("b", "c", "a"), 0, 1, 0}},
			want:  map[string][]QueuedItem{"h": queued(0, urlItems("a", "b", "c")...)},
			seen:  3,
		},
		{
			name:    "URLs seen before the txn are skipped",
			preSeen: []string{"b", "x"},
			calls:   []enqueue{{"h", urlItems("a", "b", "c", "x"), 0, 2, 0}},
			want:    map[string][]QueuedItem{"h": queued(0, urlItems("a", "c")...)},
			seen:    4,
		},
		{
			name:  "one seen set for all hosts",
			calls: []enqueue{{"h", urlItems("a", "b"), 0, 2, 0}, {"g", urlItems("b", "c"), 0, 1, 0}},
			want:  map[string][]QueuedItem{"h": queued(0, urlItems("a", "b")...), "g": queued(0, urlItems("c")...)},
			seen:  3,
		},
		{
			name:  "limit drops new URLs beyond it but marks them seen",
			calls: []enqueue{{"h", urlItems("a", "b", "c", "d"), 2, 2, 2}, {"h", urlItems("c", "e", "a"), 2, 0, 1}},
			want:  map[string][]QueuedItem{"h": queued(0, urlItems("a", "b")...)},
			seen:  5,
		},
		{
			name:  "limit on one call does not bind another",
			calls: []enqueue{{"h", urlItems("a", "b"), 1, 1, 1}, {"h", urlItems("c", "d"), 0, 2, 0}},
			want:  map[string][]QueuedItem{"h": queued(0, urlItems("a", "c", "d")...)},
			seen:  4,
		},
		{
			name:      "limit counts items queued before the txn",
			preQueued: map[string][]string{"h": {"x", "y"}},
			calls:     []enqueue{{"h", urlItems("a", "b", "c"), 3, 1, 2}},
			want:      map[string][]QueuedItem{"h": queued(0, urlItems("x", "y", "a")...)},
			seen:      5,
		},
		{
			name:  "limit is per host",
			calls: []enqueue{{"h", urlItems("a", "b"), 1, 1, 1}, {"g", urlItems("c", "d"), 1, 1, 1}},
			want:  map[string][]QueuedItem{"h": queued(0, urlItems("a")...), "g": queued(0, urlItems("c")...)},
			seen:  4,
		},
		{
			name:  "no items",
			calls: []enqueue{{"h", nil, 0, 0, 0}},
			want:  map[string][]QueuedItem{},
			seen:  0,
		},
		{
			name:    "only known URLs leave no queue",
			preSeen: []string{"a"},
			calls:   []enqueue{{"h", urlItems("a", "a"), 0, 0, 0}},
			want:    map[string][]QueuedItem{},
			seen:    1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t, t.TempDir())
			defer closeTest(t, s)
			markSeen(t, s, tt.preSeen...)
			for h, urls := range tt.preQueued {
				mustEnqueue(t, s, h, urls...)
			}
			tx := s.Begin()
			for i, c := range tt.calls {
				q, d, err := tx.Enqueue(c.host, c.items, c.limit)
				if err != nil {
					t.Fatal(err)
				}
				if q != c.queued || d != c.dropped {
					t.Errorf("call %d: Enqueue = %d queued, %d dropped; want %d, %d", i, q, d, c.queued, c.dropped)
				}
			}
			mustCommit(t, tx)
			wantHosts := map[string]int{}
			for h, q := range tt.want {
				wantHosts[h] = len(q)
				if got := peekAll(t, s, h); !reflect.DeepEqual(got, q) {
					t.Errorf("queue %s = %v, want %v", h, got, q)
				}
			}
			if got := hostsOf(t, s); !reflect.DeepEqual(got, wantHosts) {
				t.Errorf("Hosts = %v, want %v", got, wantHosts)
			}
			if got := s.SeenCount(); got != tt.seen {
				t.Errorf("SeenCount = %d, want %d", got, tt.seen)
			}
			for _, c := range tt.calls {
				for _, it := range c.items {
					if ok, err := s.Seen(it.URL); err != nil || !ok {
						t.Errorf("Seen(%q) = %v, %v; want true", it.URL, ok, err)
					}
				}
			}
		})
	}
}

// TestEnqueueLimitAcrossCommits follows one host's limit through several
// transactions: the limit bounds the items a queue has taken, not its
// current length. The last step pins what happens once the queue empties:
// its meta row, and with it the count, stays, so the host takes no more
// items, as Enqueue's doc ("has ever held") and the crawler's
// MaxURLsPerHost ("ever queued") say.
func TestEnqueueLimitAcrossCommits(t *testing.T) {
	type op struct {
		done            []uint64 // Done calls before the Enqueue
		urls            []string
		queued, dropped int
		want            []QueuedItem // the queue after Commit
	}
	const limit = 3
	steps := []op{
		{urls: []string{"a", "b"}, queued: 2, want: queued(0, urlItems("a", "b")...)},
		// Done frees no room: a, b and c have been taken, so d is dropped.
		{done: []uint64{0}, urls: []string{"c", "d"}, queued: 1, dropped: 1, want: queued(1, urlItems("b", "c")...)},
		{urls: []string{"e"}, dropped: 1, want: queued(1, urlItems("b", "c")...)},
		{done: []uint64{1, 2}},
		// The emptied queue keeps its count: the host has had its three.
		{urls: []string{"f", "g", "h", "i"}, dropped: 4},
	}
	s := openTest(t, t.TempDir())
	defer closeTest(t, s)
	for i, st := range steps {
		tx := s.Begin()
		for _, seq := range st.done {
			if err := tx.Done("h", seq); err != nil {
				t.Fatalf("step %d: Done(%d): %v", i, seq, err)
			}
		}
		q, d, err := tx.Enqueue("h", urlItems(st.urls...), limit)
		if err != nil {
			t.Fatal(err)
		}
		mustCommit(t, tx)
		if q != st.queued || d != st.dropped {
			t.Errorf("step %d: Enqueue = %d queued, %d dropped; want %d, %d", i, q, d, st.queued, st.dropped)
		}
		if got := peekAll(t, s, "h"); !reflect.DeepEqual(got, st.want) {
			t.Errorf("step %d: queue = %v, want %v", i, got, st.want)
		}
	}
}

// TestTxnIsolation stages one change of every kind and checks that other
// readers see none of them before Commit, none after Abort and all after
// Commit.
func TestTxnIsolation(t *testing.T) {
	for _, commit := range []bool{false, true} {
		name := map[bool]string{false: "abort", true: "commit"}[commit]
		t.Run(name, func(t *testing.T) {
			s := openTest(t, t.TempDir())
			defer closeTest(t, s)
			markSeen(t, s, "old")
			mustEnqueue(t, s, "h", "p0", "p1")
			page := Page{URL: "u1", Status: 200, Held: true, NextDue: t0}
			visit := Visit{Time: t0.Add(-time.Hour), Status: 200}

			tx := s.Begin()
			if q, _, err := tx.Enqueue("h", urlItems("a", "old"), 0); err != nil || q != 1 {
				t.Fatalf("Enqueue = %d, %v; want 1 queued", q, err)
			}
			if _, _, err := tx.Enqueue("g", urlItems("b"), 0); err != nil {
				t.Fatal(err)
			}
			if err := tx.Done("h", 0); err != nil {
				t.Fatal(err)
			}
			if err := tx.PutPage(page, &visit); err != nil {
				t.Fatal(err)
			}
			if err := tx.PutPage(Page{URL: "u2"}, nil); err != nil {
				t.Fatal(err)
			}
			if err := tx.Schedule("h", "u1", time.Time{}, t0); err != nil {
				t.Fatal(err)
			}
			if err := tx.SetLastMod("u1", t0, t0); err != nil {
				t.Fatal(err)
			}
			tx.Add("fetches", 7)
			if err := tx.SetSetting("scope", "site"); err != nil {
				t.Fatal(err)
			}

			before := state{
				queues: map[string][]QueuedItem{"h": queued(0, urlItems("p0", "p1")...)},
				seen:   map[string]bool{"old": true},
				due:    map[string]time.Time{},
			}
			checkState(t, s, "staged", before)
			if commit {
				mustCommit(t, tx)
				after := state{
					queues:   map[string][]QueuedItem{"h": queued(1, urlItems("p1", "a")...), "g": queued(0, urlItems("b")...)},
					seen:     map[string]bool{"old": true, "a": true, "b": true},
					pages:    map[string]Page{"u1": page, "u2": {URL: "u2"}},
					visits:   map[string][]Visit{"u1": {visit}},
					due:      map[string]time.Time{"h": t0},
					lastMod:  t0,
					counter:  7,
					settings: map[string]string{"scope": "site"},
				}
				checkState(t, s, "committed", after)
				if n := s.SeenCount(); n != 5 { // old, p0, p1, a, b
					t.Errorf("SeenCount after Commit = %d, want 5", n)
				}
			} else {
				tx.Abort()
				checkState(t, s, "aborted", before)
				if n := s.SeenCount(); n != 3 { // old, p0, p1
					t.Errorf("SeenCount after Abort = %d, want 3", n)
				}
			}
			// Ending the txn released the store: a second one can start and
			// sees the outcome of the first.
			tx = s.Begin()
			q, _, err := tx.Enqueue("h", urlItems("a"), 0)
			if err != nil {
				t.Fatal(err)
			}
			tx.Abort()
			if want := map[bool]int{false: 1, true: 0}[commit]; q != want {
				t.Errorf("re-Enqueue of a after %s: %d queued, want %d", name, q, want)
			}
		})
	}
}

// state is what checkState expects the store's readers to return.
type state struct {
	queues   map[string][]QueuedItem
	seen     map[string]bool // URLs that must be seen; "a", "b" and "u1" must not unless listed
	pages    map[string]Page
	visits   map[string][]Visit
	due      map[string]time.Time // DueHosts; u1 is the only URL scheduled
	lastMod  time.Time            // of u1
	counter  int64                // "fetches"
	settings map[string]string
}

func checkState(t *testing.T, s *Store, when string, want state) {
	t.Helper()
	wantHosts := map[string]int{}
	for h, q := range want.queues {
		wantHosts[h] = len(q)
	}
	if got := hostsOf(t, s); !reflect.DeepEqual(got, wantHosts) {
		t.Errorf("%s: Hosts = %v, want %v", when, got, wantHosts)
	}
	for _, h := range []string{"h", "g"} {
		if got := peekAll(t, s, h); !reflect.DeepEqual(got, want.queues[h]) {
			t.Errorf("%s: queue %s = %v, want %v", when, h, got, want.queues[h])
		}
	}
	for _, u := range []string{"old", "a", "b", "u1"} {
		if ok, err := s.Seen(u); err != nil || ok != want.seen[u] {
			t.Errorf("%s: Seen(%s) = %v, %v; want %v", when, u, ok, err, want.seen[u])
		}
	}
	for _, u := range []string{"u1", "u2"} {
		p, err := s.GetPage(u)
		if wp, ok := want.pages[u]; ok {
			if err != nil || !reflect.DeepEqual(p, wp) {
				t.Errorf("%s: GetPage(%s) = %+v, %v; want %+v", when, u, p, err, wp)
			}
		} else if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: GetPage(%s): err = %v, want ErrNotFound", when, u, err)
		}
		if v, err := s.Visits(u); err != nil || !reflect.DeepEqual(v, want.visits[u]) {
			t.Errorf("%s: Visits(%s) = %v, %v; want %v", when, u, v, err, want.visits[u])
		}
	}
	if got := dueHostsOf(t, s); !reflect.DeepEqual(got, want.due) {
		t.Errorf("%s: DueHosts = %v, want %v", when, got, want.due)
	}
	var wantDue []DueItem
	if d, ok := want.due["h"]; ok {
		wantDue = []DueItem{{"u1", d}}
	}
	if got, err := s.Due("h", maxTime, 10); err != nil || !reflect.DeepEqual(got, wantDue) {
		t.Errorf("%s: Due(h) = %v, %v; want %v", when, got, err, wantDue)
	}
	if got, _, err := s.LastMod("u1"); err != nil || !got.Equal(want.lastMod) {
		t.Errorf("%s: LastMod(u1) = %v, %v; want %v", when, got, err, want.lastMod)
	}
	if got, err := s.Counter("fetches"); err != nil || got != want.counter {
		t.Errorf("%s: Counter = %d, %v; want %d", when, got, err, want.counter)
	}
	got := map[string]string{}
	if err := s.Settings("", func(n, v string) error { got[n] = v; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want.settings) || (len(got) > 0 && !reflect.DeepEqual(got, want.settings)) {
		t.Errorf("%s: Settings = %v, want %v", when, got, want.settings)
	}
}

func TestTxnEnd(t *testing.T) {
	s := openTest(t, t.TempDir())
	defer closeTest(t, s)
	tx := s.Begin()
	mustCommit(t, tx) // an empty txn commits
	tx.Abort()        // and a later Abort must not release the lock a second time
	if err := tx.Commit(); err == nil {
		t.Error("second Commit: err = nil, want an error")
	}
	tx = s.Begin()
	tx.Abort()
	tx.Abort()
	if err := tx.Commit(); err == nil {
		t.Error("Commit after Abort: err = nil, want an error")
	}
	tx = s.Begin() // would deadlock if the lock were still held
	tx.Add("c", 1)
	mustCommit(t, tx)
	if got, err := s.Counter("c"); err != nil || got != 1 {
		t.Errorf("Counter = %d, %v; want 1", got, err)
	}
}

func TestTxnDone(t *testing.T) {
	type done struct {
		host string
		seq  uint64
		err  error
	}
	tests := []struct {
		name  string
		dones []done
		want  []QueuedItem // h's queue after Commit
	}{
		{"head", []done{{"h", 0, nil}}, queued(1, urlItems("b", "c")...)},
		{"not the head", []done{{"h", 1, ErrOutOfOrder}}, queued(0, urlItems("a", "b", "c")...)},
		{"in order", []done{{"h", 0, nil}, {"h", 1, nil}}, queued(2, urlItems("c")...)},
		{"twice", []done{{"h", 0, nil}, {"h", 0, ErrOutOfOrder}}, queued(1, urlItems("b", "c")...)},
		{"skip after head", []done{{"h", 0, nil}, {"h", 2, ErrOutOfOrder}}, queued(1, urlItems("b", "c")...)},
		{"all, then past the tail", []done{{"h", 0, nil}, {"h", 1, nil}, {"h", 2, nil}, {"h", 3, ErrOutOfOrder}}, nil},
		{"unknown host", []done{{"nohost", 0, ErrOutOfOrder}}, queued(0, urlItems("a", "b", "c")...)},
		{"other and invalid hosts", []done{{"h\x01", 0, ErrOutOfOrder}, {"", 0, ErrInvalidHost}, {"h\x00", 0, ErrInvalidHost}},
			queued(0, urlItems("a", "b", "c")...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t, t.TempDir())
			defer closeTest(t, s)
			tx := s.Begin()
			if _, _, err := tx.Enqueue("h", urlItems("a", "b", "c"), 0); err != nil {
				t.Fatal(err)
			}
			mustCommit(t, tx)
			tx = s.Begin()
			for _, d := range tt.dones {
				if err := tx.Done(d.host, d.seq); !errors.Is(err, d.err) {
					t.Errorf("Done(%q, %d): err = %v, want %v", d.host, d.seq, err, d.err)
				}
			}
			mustCommit(t, tx)
			if got := peekAll(t, s, "h"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("queue = %v, want %v", got, tt.want)
			}
			wantHosts := map[string]int{}
			if len(tt.want) > 0 {
				wantHosts["h"] = len(tt.want)
			}
			if got := hostsOf(t, s); !reflect.DeepEqual(got, wantHosts) {
				t.Errorf("Hosts = %v, want %v", got, wantHosts)
			}
			if n, err := s.Len("h"); err != nil || n != len(tt.want) {
				t.Errorf("Len = %d, %v; want %d", n, err, len(tt.want))
			}
		})
	}
}

// TestDoneInSameTxn consumes items queued by the same transaction, and
// refills a queue emptied by an earlier one.
func TestDoneInSameTxn(t *testing.T) {
	s := openTest(t, t.TempDir())
	defer closeTest(t, s)
	tx := s.Begin()
	if _, _, err := tx.Enqueue("h", urlItems("a", "b"), 0); err != nil {
		t.Fatal(err)
	}
	for seq := range uint64(2) {
		if err := tx.Done("h", seq); err != nil {
			t.Fatal(err)
		}
	}
	// The queue is empty within the txn; new items continue the sequence.
	if _, _, err := tx.Enqueue("h", urlItems("c"), 0); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	if got, want := peekAll(t, s, "h"), queued(2, urlItems("c")...); !reflect.DeepEqual(got, want) {
		t.Errorf("queue = %v, want %v", got, want)
	}
	tx = s.Begin()
	if err := tx.Done("h", 2); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	if got := hostsOf(t, s); len(got) != 0 {
		t.Errorf("Hosts after emptying = %v, want none", got)
	}
	// The emptied queue continues its numbering and must not resurrect a,
	// b or c.
	tx = s.Begin()
	if _, _, err := tx.Enqueue("h", urlItems("d"), 0); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	if got, want := peekAll(t, s, "h"), queued(3, urlItems("d")...); !reflect.DeepEqual(got, want) {
		t.Errorf("refilled queue = %v, want %v", got, want)
	}
}

func TestPeek(t *testing.T) {
	s := openTest(t, t.TempDir())
	defer closeTest(t, s)
	items := []Item{{"a", 0, 0}, {"b", 1, 1}, {"c", 2, 0}, {"d", 0, 5}, {"e", 3, 3}}
	tx := s.Begin()
	if _, _, err := tx.Enqueue("h", items, 0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tx.Enqueue("h.x", urlItems("other"), 0); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	tx = s.Begin()
	for seq := range uint64(2) {
		if err := tx.Done("h", seq); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, tx)
	// The queue now holds c, d, e at 2, 3, 4.
	all := queued(0, items...)
	tests := []struct {
		host string
		from uint64
		n    int
		want []QueuedItem
	}{
		{"h", 0, 10, all[2:]},
		{"h", 0, 1, all[2:3]},
		{"h", 2, 2, all[2:4]},
		{"h", 3, 1, all[3:4]},
		{"h", 3, 10, all[3:]},
		{"h", 4, 10, all[4:]},
		{"h", 5, 10, nil},
		{"h", 1 << 62, 10, nil},
		{"h", 0, 0, nil},
		{"h", 0, -1, nil},
		{"h.x", 0, 10, queued(0, urlItems("other")...)},
		{"unknown", 0, 10, nil},
		{"h.", 0, 10, nil},
	}
	for _, tt := range tests {
		got, err := s.Peek(tt.host, tt.from, tt.n)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Peek(%q, %d, %d) = %v, %v; want %v", tt.host, tt.from, tt.n, got, err, tt.want)
		}
	}
	// Peek removes nothing.
	if got := peekAll(t, s, "h"); !reflect.DeepEqual(got, all[2:]) {
		t.Errorf("queue after Peeks = %v, want %v", got, all[2:])
	}
}

func TestTxnInvalidHost(t *testing.T) {
	s := openTest(t, t.TempDir())
	defer closeTest(t, s)
	for _, h := range []string{"", "a\x00b"} {
		tx := s.Begin()
		if _, _, err := tx.Enqueue(h, urlItems("u"), 0); !errors.Is(err, ErrInvalidHost) {
			t.Errorf("Enqueue(%q): err = %v, want ErrInvalidHost", h, err)
		}
		if err := tx.Done(h, 0); !errors.Is(err, ErrInvalidHost) {
			t.Errorf("Done(%q): err = %v, want ErrInvalidHost", h, err)
		}
		if err := tx.Schedule(h, "u", time.Time{}, t0); !errors.Is(err, ErrInvalidHost) {
			t.Errorf("Schedule(%q): err = %v, want ErrInvalidHost", h, err)
		}
		mustCommit(t, tx)
		if _, err := s.Peek(h, 0, 1); !errors.Is(err, ErrInvalidHost) {
			t.Errorf("Peek(%q): err = %v, want ErrInvalidHost", h, err)
		}
		if _, err := s.Due(h, t0, 1); !errors.Is(err, ErrInvalidHost) {
			t.Errorf("Due(%q): err = %v, want ErrInvalidHost", h, err)
		}
	}
	if n := s.SeenCount(); n != 0 {
		t.Errorf("SeenCount = %d after rejected Enqueues, want 0", n)
	}
	if got := dueHostsOf(t, s); len(got) != 0 {
		t.Errorf("DueHosts = %v after rejected Schedules, want none", got)
	}
}

// schedule is one Txn.Schedule call.
type schedule struct {
	host, url string
	old, due  time.Time
}

func TestDue(t *testing.T) {
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	var zero time.Time
	tests := []struct {
		name  string
		txns  [][]schedule // each inner slice commits as one txn
		host  string
		at    time.Time // Due's before
		n     int
		want  []DueItem
		hosts map[string]time.Time // DueHosts
	}{
		{
			name: "earliest first, up to before inclusive",
			txns: [][]schedule{{
				{"h", "u3", zero, at(3 * time.Hour)}, {"h", "u1", zero, at(time.Hour)},
				{"h", "u2", zero, at(2 * time.Hour)}, {"h", "u4", zero, at(2*time.Hour + 1)},
			}},
			host: "h", at: at(2 * time.Hour), n: 10,
			want:  []DueItem{{"u1", at(time.Hour)}, {"u2", at(2 * time.Hour)}},
			hosts: map[string]time.Time{"h": at(time.Hour)},
		},
		{
			name: "one nanosecond early",
			txns: [][]schedule{{{"h", "u1", zero, at(time.Hour)}}},
			host: "h", at: at(time.Hour - 1), n: 10,
			want:  nil,
			hosts: map[string]time.Time{"h": at(time.Hour)},
		},
		{
			name: "limit n",
			txns: [][]schedule{{
				{"h", "u3", zero, at(3)}, {"h", "u1", zero, at(1)}, {"h", "u2", zero, at(2)},
			}},
			host: "h", at: at(time.Hour), n: 2,
			want:  []DueItem{{"u1", at(1)}, {"u2", at(2)}},
			hosts: map[string]time.Time{"h": at(1)},
		},
		{
			name: "n zero",
			txns: [][]schedule{{{"h", "u1", zero, at(1)}}},
			host: "h", at: at(time.Hour), n: 0,
			want:  nil,
			hosts: map[string]time.Time{"h": at(1)},
		},
		{
			name: "move across commits",
			txns: [][]schedule{
				{{"h", "u1", zero, at(2 * time.Hour)}, {"h", "u2", zero, at(90 * time.Minute)}},
				{{"h", "u1", at(2 * time.Hour), at(time.Hour)}},
			},
			host: "h", at: at(3 * time.Hour), n: 10,
			want:  []DueItem{{"u1", at(time.Hour)}, {"u2", at(90 * time.Minute)}},
			hosts: map[string]time.Time{"h": at(time.Hour)},
		},
		{
			name: "move later within one txn",
			txns: [][]schedule{{{"h", "u1", zero, at(time.Hour)}, {"h", "u1", at(time.Hour), at(5 * time.Hour)}}},
			host: "h", at: at(10 * time.Hour), n: 10,
			want:  []DueItem{{"u1", at(5 * time.Hour)}},
			hosts: map[string]time.Time{"h": at(5 * time.Hour)},
		},
		{
			name: "move to the same time",
			txns: [][]schedule{{{"h", "u1", zero, at(time.Hour)}}, {{"h", "u1", at(time.Hour), at(time.Hour)}}},
			host: "h", at: at(time.Hour), n: 10,
			want:  []DueItem{{"u1", at(time.Hour)}},
			hosts: map[string]time.Time{"h": at(time.Hour)},
		},
		{
			name: "remove",
			txns: [][]schedule{
				{{"h", "u1", zero, at(time.Hour)}, {"h", "u2", zero, at(2 * time.Hour)}},
				{{"h", "u1", at(time.Hour), zero}},
			},
			host: "h", at: at(3 * time.Hour), n: 10,
			want:  []DueItem{{"u2", at(2 * time.Hour)}},
			hosts: map[string]time.Time{"h": at(2 * time.Hour)},
		},
		{
			name: "remove the last entry of a host",
			txns: [][]schedule{{{"h", "u1", zero, at(time.Hour)}}, {{"h", "u1", at(time.Hour), zero}}},
			host: "h", at: maxTime, n: 10,
			want:  nil,
			hosts: map[string]time.Time{},
		},
		{
			name: "one URL under two hosts is two entries",
			txns: [][]schedule{{{"h", "u", zero, at(1)}, {"g", "u", zero, at(2)}}, {{"g", "u", at(2), zero}}},
			host: "h", at: maxTime, n: 10,
			want:  []DueItem{{"u", at(1)}},
			hosts: map[string]time.Time{"h": at(1)},
		},
		{
			name: "hosts sharing a prefix",
			txns: [][]schedule{{
				{"a", "a1", zero, at(5)}, {"a.b", "ab1", zero, at(1)}, {"a.b", "ab2", zero, at(3)},
				{"h1", "h1a", zero, at(4)}, {"h10", "h10a", zero, at(2)}, {"h1", "h1b", zero, at(6)},
				{"a\x01", "a1x", zero, at(0)}, {"ab", "ab", zero, at(7)},
			}},
			host: "h1", at: maxTime, n: 10,
			want: []DueItem{{"h1a", at(4)}, {"h1b", at(6)}},
			hosts: map[string]time.Time{
				"a": at(5), "a.b": at(1), "h1": at(4), "h10": at(2), "a\x01": at(0), "ab": at(7),
			},
		},
		{
			name: "shorter of prefix hosts",
			txns: [][]schedule{{{"a", "a1", zero, at(5)}, {"a.b", "ab1", zero, at(1)}, {"a\x01", "a1x", zero, at(0)}}},
			host: "a", at: maxTime, n: 10,
			want:  []DueItem{{"a1", at(5)}},
			hosts: map[string]time.Time{"a": at(5), "a.b": at(1), "a\x01": at(0)},
		},
		{
			name: "times before 1970, with nanoseconds, to the largest",
			txns: [][]schedule{{
				{"h", "max", zero, maxTime},
				{"h", "epoch", zero, time.Unix(0, 0)},
				{"h", "1ns", zero, time.Unix(0, 1)},
				{"h", "-1ns", zero, time.Unix(-1, 999999999)},
				{"h", "-1s", zero, time.Unix(-1, 0)},
				{"h", "1900", zero, time.Date(1900, 1, 2, 3, 4, 5, 6, time.UTC)},
				{"h", "year1+1ns", zero, time.Time{}.Add(1)},
				{"h", "2026", zero, time.Date(2026, 7, 1, 0, 0, 0, 999999999, time.UTC)},
			}},
			host: "h", at: maxTime, n: 100,
			want: []DueItem{
				{"year1+1ns", time.Time{}.Add(1)},
				{"1900", time.Date(1900, 1, 2, 3, 4, 5, 6, time.UTC)},
				{"-1s", time.Unix(-1, 0).UTC()},
				{"-1ns", time.Unix(-1, 999999999).UTC()},
				{"epoch", time.Unix(0, 0).UTC()},
				{"1ns", time.Unix(0, 1).UTC()},
				{"2026", time.Date(2026, 7, 1, 0, 0, 0, 999999999, time.UTC)},
				{"max", maxTime},
			},
			hosts: map[string]time.Time{"h": time.Time{}.Add(1)},
		},
		{
			name: "before 1970 cut-off",
			txns: [][]schedule{{
				{"h", "-2s", zero, time.Unix(-2, 0)}, {"h", "-1ns", zero, time.Unix(-1, 999999999)},
				{"h", "epoch", zero, time.Unix(0, 0)},
			}},
			host: "h", at: time.Unix(-1, 999999998), n: 10,
			want:  []DueItem{{"-2s", time.Unix(-2, 0).UTC()}},
			hosts: map[string]time.Time{"h": time.Unix(-2, 0).UTC()},
		},
		{
			name: "location is dropped, the instant kept",
			txns: [][]schedule{{{"h", "u", zero, t0.In(time.FixedZone("X", -5*3600))}}},
			host: "h", at: t0, n: 10,
			want:  []DueItem{{"u", t0}},
			hosts: map[string]time.Time{"h": t0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t, t.TempDir())
			defer closeTest(t, s)
			for _, ops := range tt.txns {
				tx := s.Begin()
				for _, op := range ops {
					if err := tx.Schedule(op.host, op.url, op.old, op.due); err != nil {
						t.Fatal(err)
					}
				}
				mustCommit(t, tx)
			}
			got, err := s.Due(tt.host, tt.at, tt.n)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Due(%q, %v, %d) =\n%v, %v\nwant\n%v", tt.host, tt.at, tt.n, got, err, tt.want)
			}
			if got := dueHostsOf(t, s); !reflect.DeepEqual(got, tt.hosts) {
				t.Errorf("DueHosts =\n%v\nwant\n%v", got, tt.hosts)
			}
		})
	}
}

func TestDueHostsStops(t *testing.T) {
	s := openTest(t, t.TempDir())
	defer closeTest(t, s)
	tx := s.Begin()
	for _, h := range []string{"a", "b", "c"} {
		if err := tx.Schedule(h, "u", time.Time{}, t0); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, tx)
	stop := errors.New("stop")
	calls := 0
	err := s.DueHosts(func(h string, _ time.Time) error {
		calls++
		if h == "b" {
			return stop
		}
		return nil
	})
	if err != stop || calls != 2 {
		t.Errorf("DueHosts with fn stopping at b: err = %v after %d calls, want stop after 2", err, calls)
	}
}

func TestTimeKeyRoundTrip(t *testing.T) {
	tests := []time.Time{
		{}, time.Time{}.Add(1), time.Unix(-1<<62, 0), time.Date(1900, 1, 2, 3, 4, 5, 6, time.UTC),
		time.Unix(-1, 0), time.Unix(-1, 1), time.Unix(-1, 999999999), time.Unix(0, 0), time.Unix(0, 1),
		time.Unix(1<<40, 5), t0.In(time.FixedZone("X", 3600)), maxTime,
	}
	for _, tm := range tests {
		key := appendTimeKey([]byte("junk"), tm)[4:]
		got, err := decodeTimeKey(append(key, "trailing bytes are ignored"...))
		if err != nil || !got.Equal(tm) || got.Location() != time.UTC {
			t.Errorf("decodeTimeKey(appendTimeKey(%v)) = %v, %v", tm, got, err)
		}
	}
	corrupt := [][]byte{
		nil,
		appendTimeKey(nil, t0)[:11],
		append(appendTimeKey(nil, t0)[:8], 0x3b, 0x9a, 0xca, 0x00), // 1e9 ns
		bytes.Repeat([]byte{0xff}, 12),
	}
	for _, b := range corrupt {
		if _, err := decodeTimeKey(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("decodeTimeKey(%x): err = %v, want ErrCorrupt", b, err)
		}
	}
}

func TestCounters(t *testing.T) {
	type add struct {
		name  string
		delta int64
	}
	txns := []struct {
		adds  []add
		abort bool
	}{
		{adds: []add{{"a", 5}, {"b", -3}, {"a", 2}}},
		{adds: []add{{"a", -10}, {"b", 1}}},
		{adds: []add{{"a", 100}, {"c", 1}}, abort: true},
		{adds: []add{{"c", 1 << 40}, {"c", -(1 << 40)}, {"d", 4}}},
		{adds: []add{{"d", -4}, {"e", -1 << 62}}},
	}
	want := map[string]int64{"a": -3, "b": -2, "c": 0, "d": 0, "e": -1 << 62, "never": 0, "": 0}
	dir := t.TempDir()
	s := openTest(t, dir)
	for _, tt := range txns {
		tx := s.Begin()
		for _, a := range tt.adds {
			tx.Add(a.name, a.delta)
		}
		if tt.abort {
			tx.Abort()
		} else {
			mustCommit(t, tx)
		}
	}
	check := func(when string) {
		for name, w := range want {
			if got, err := s.Counter(name); err != nil || got != w {
				t.Errorf("%s: Counter(%q) = %d, %v; want %d", when, name, got, err, w)
			}
		}
	}
	check("open")
	closeTest(t, s)
	s = openTest(t, dir)
	defer closeTest(t, s)
	check("reopened")
	// Counters do not disturb the seen counter that shares their prefix.
	if n := s.SeenCount(); n != 0 {
		t.Errorf("SeenCount = %d, want 0", n)
	}
}

func TestSettings(t *testing.T) {
	s := openTest(t, t.TempDir())
	defer closeTest(t, s)
	for _, kv := range [][2]string{{"a", "1"}, {"a/b", "2"}, {"ab", "3"}, {"b", "4"}, {"a/c", "5"}, {"", "empty"}} {
		tx := s.Begin()
		if err := tx.SetSetting(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
		mustCommit(t, tx)
	}
	tx := s.Begin()
	if err := tx.SetSetting("a/b", "6"); err != nil {
		t.Fatal(err)
	}
	if err := tx.SetSetting("z", "aborted"); err != nil {
		t.Fatal(err)
	}
	tx.Abort()
	tx = s.Begin()
	if err := tx.SetSetting("a/b", "7"); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)

	tests := []struct {
		prefix string
		want   []string // name=value in order
	}{
		{"", []string{"=empty", "a=1", "a/b=7", "a/c=5", "ab=3", "b=4"}},
		{"a", []string{"a=1", "a/b=7", "a/c=5", "ab=3"}},
		{"a/", []string{"a/b=7", "a/c=5"}},
		{"a/b", []string{"a/b=7"}},
		{"a/b/", nil},
		{"b", []string{"b=4"}},
		{"z", nil},
	}
	for _, tt := range tests {
		var got []string
		err := s.Settings(tt.prefix, func(n, v string) error { got = append(got, n+"="+v); return nil })
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("Settings(%q) = %q, %v; want %q", tt.prefix, got, err, tt.want)
		}
	}
	for _, tt := range []struct {
		name, value string
		ok          bool
	}{{"a", "1", true}, {"a/b", "7", true}, {"", "empty", true}, {"z", "", false}, {"a/", "", false}} {
		if v, ok, err := s.Setting(tt.name); err != nil || v != tt.value || ok != tt.ok {
			t.Errorf("Setting(%q) = %q, %v, %v; want %q, %v", tt.name, v, ok, err, tt.value, tt.ok)
		}
	}
	stop := errors.New("stop")
	calls := 0
	if err := s.Settings("a", func(string, string) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
		t.Errorf("Settings with stopping fn: err = %v after %d calls, want stop after 1", err, calls)
	}
}

func TestLastMod(t *testing.T) {
	tests := []struct {
		url  string
		lm   []time.Time // written in order, each in its own txn, read an hour after
		want time.Time
	}{
		{"u1", []time.Time{t0}, t0},
		{"u2", []time.Time{t0, t0.Add(-time.Hour)}, t0.Add(-time.Hour)}, // the last write wins, not the latest time
		{"u3", []time.Time{time.Unix(-1, 999999999)}, time.Unix(-1, 999999999)},
		{"u4", []time.Time{maxTime.Add(-time.Hour)}, maxTime.Add(-time.Hour)},
		{"u5", []time.Time{t0.In(time.FixedZone("X", 7200))}, t0},
		{"u6", []time.Time{t0, {}}, time.Time{}},
		{"u7", nil, time.Time{}},
		{"u1/", nil, time.Time{}},
	}
	dir := t.TempDir()
	s := openTest(t, dir)
	for _, tt := range tests {
		for _, lm := range tt.lm {
			tx := s.Begin()
			read := lm.Add(time.Hour)
			if lm.IsZero() {
				read = time.Time{}
			}
			if err := tx.SetLastMod(tt.url, lm, read); err != nil {
				t.Fatal(err)
			}
			mustCommit(t, tx)
		}
	}
	tx := s.Begin()
	if err := tx.SetLastMod("u7", t0, t0); err != nil {
		t.Fatal(err)
	}
	tx.Abort()
	// A row from before the read time was kept: the lastmod alone.
	if err := s.db.Set(hashKey(prefixLastMod, hashURL("old")), appendTime(nil, t0), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	tests = append(tests, struct {
		url  string
		lm   []time.Time
		want time.Time
	}{"old", []time.Time{t0}, t0})
	for _, reopen := range []bool{false, true} {
		if reopen {
			closeTest(t, s)
			s = openTest(t, dir)
		}
		for _, tt := range tests {
			got, read, err := s.LastMod(tt.url)
			wantRead := time.Time{}
			if !tt.want.IsZero() && tt.url != "old" {
				wantRead = tt.want.Add(time.Hour)
			}
			if err != nil || !got.Equal(tt.want) || !read.Equal(wantRead) {
				t.Errorf("reopened %v: LastMod(%q) = %v, %v, %v; want %v, %v", reopen, tt.url, got, read, err, tt.want, wantRead)
			}
		}
	}
	closeTest(t, s)
}

// TestTxnPersistence commits one change of every kind, reopens the store,
// reads them all back and carries on from the persisted state.
func TestTxnPersistence(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	page := Page{
		URL: "https://h/1", FirstSeen: t0, LastFetch: t0, Status: 301, Kind: 2, Held: true,
		NextDue: t0.Add(time.Hour), PayloadDigest: "sha1:ABC", RecordID: "<urn:uuid:1>",
		CaptureTime: t0.Add(-time.Second), Location: "https://h/2",
	}
	visit := Visit{Time: t0, Status: 301}
	tx := s.Begin()
	if _, _, err := tx.Enqueue("h", []Item{{"https://h/1", 1, 0}, {"https://h/2", 0, 1}, {"https://h/3", 0, 0}}, 4); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tx.Enqueue("g", urlItems("https://g/1"), 0); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	tx = s.Begin()
	if err := tx.Done("h", 0); err != nil {
		t.Fatal(err)
	}
	if err := tx.PutPage(page, &visit); err != nil {
		t.Fatal(err)
	}
	if err := tx.Schedule("h", page.URL, time.Time{}, page.NextDue); err != nil {
		t.Fatal(err)
	}
	if err := tx.Schedule("g", "https://g/0", time.Time{}, time.Unix(-5, 5)); err != nil {
		t.Fatal(err)
	}
	if err := tx.SetLastMod(page.URL, t0.Add(-time.Minute), t0); err != nil {
		t.Fatal(err)
	}
	tx.Add("fetched", 1)
	tx.Add("errors", -2)
	if err := tx.SetSetting("scope", "host"); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	closeTest(t, s)

	s = openTest(t, dir)
	defer closeTest(t, s)
	if got, want := peekAll(t, s, "h"), queued(1, Item{"https://h/2", 0, 1}, Item{"https://h/3", 0, 0}); !reflect.DeepEqual(got, want) {
		t.Errorf("queue h = %v, want %v", got, want)
	}
	if got, want := hostsOf(t, s), map[string]int{"h": 2, "g": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("Hosts = %v, want %v", got, want)
	}
	if n := s.SeenCount(); n != 4 {
		t.Errorf("SeenCount = %d, want 4", n)
	}
	if got, err := s.GetPage(page.URL); err != nil || !reflect.DeepEqual(got, page) {
		t.Errorf("GetPage = %+v, %v; want %+v", got, err, page)
	}
	if got, err := s.Visits(page.URL); err != nil || !reflect.DeepEqual(got, []Visit{visit}) {
		t.Errorf("Visits = %v, %v; want %v", got, err, []Visit{visit})
	}
	if got, want := dueHostsOf(t, s), map[string]time.Time{"h": page.NextDue, "g": time.Unix(-5, 5).UTC()}; !reflect.DeepEqual(got, want) {
		t.Errorf("DueHosts = %v, want %v", got, want)
	}
	if got, err := s.Due("h", maxTime, 10); err != nil || !reflect.DeepEqual(got, []DueItem{{page.URL, page.NextDue}}) {
		t.Errorf("Due(h) = %v, %v", got, err)
	}
	if got, read, err := s.LastMod(page.URL); err != nil || !got.Equal(t0.Add(-time.Minute)) || !read.Equal(t0) {
		t.Errorf("LastMod = %v, %v, %v", got, read, err)
	}
	for name, want := range map[string]int64{"fetched": 1, "errors": -2} {
		if got, err := s.Counter(name); err != nil || got != want {
			t.Errorf("Counter(%s) = %d, %v; want %d", name, got, err, want)
		}
	}
	if v, ok, err := s.Setting("scope"); err != nil || !ok || v != "host" {
		t.Errorf("Setting(scope) = %q, %v, %v", v, ok, err)
	}

	// Carry on: the seen set dedups, the queue continues its sequence and
	// its limit counts the items taken before the restart.
	tx = s.Begin()
	if err := tx.Done("h", 2); !errors.Is(err, ErrOutOfOrder) {
		t.Errorf("Done(h, 2) after reopen: err = %v, want ErrOutOfOrder", err)
	}
	if err := tx.Done("h", 1); err != nil {
		t.Fatal(err)
	}
	q, d, err := tx.Enqueue("h", urlItems("https://h/1", "https://h/4", "https://h/5"), 4)
	if err != nil || q != 1 || d != 1 {
		t.Errorf("Enqueue after reopen = %d queued, %d dropped, %v; want 1, 1", q, d, err)
	}
	if err := tx.Schedule("h", page.URL, page.NextDue, time.Time{}); err != nil {
		t.Fatal(err)
	}
	tx.Add("fetched", 1)
	mustCommit(t, tx)
	if got, want := peekAll(t, s, "h"), queued(2, Item{"https://h/3", 0, 0}, Item{"https://h/4", 0, 0}); !reflect.DeepEqual(got, want) {
		t.Errorf("queue h = %v, want %v", got, want)
	}
	if n := s.SeenCount(); n != 6 {
		t.Errorf("SeenCount = %d, want 6", n)
	}
	if got, want := dueHostsOf(t, s), map[string]time.Time{"g": time.Unix(-5, 5).UTC()}; !reflect.DeepEqual(got, want) {
		t.Errorf("DueHosts = %v, want %v", got, want)
	}
	if got, err := s.Counter("fetched"); err != nil || got != 2 {
		t.Errorf("Counter(fetched) = %d, %v; want 2", got, err)
	}
}

// txnModel is the committed (or, during a txn, the staged) state that the
// model test predicts.
type txnModel struct {
	seen     map[string]bool
	queues   map[string]*modelQueue
	due      map[string]map[string]time.Time // host → URL → due
	counters map[string]int64
}

type modelQueue struct {
	head, tail uint64
	items      []QueuedItem
}

func (m *txnModel) clone() *txnModel {
	c := &txnModel{
		seen:     maps.Clone(m.seen),
		queues:   map[string]*modelQueue{},
		due:      map[string]map[string]time.Time{},
		counters: maps.Clone(m.counters),
	}
	for h, q := range m.queues {
		c.queues[h] = &modelQueue{q.head, q.tail, slices.Clone(q.items)}
	}
	for h, d := range m.due {
		c.due[h] = maps.Clone(d)
	}
	return c
}

func (m *txnModel) queue(h string) *modelQueue {
	if m.queues[h] == nil {
		m.queues[h] = &modelQueue{}
	}
	return m.queues[h]
}

// TestTxnModel drives random transactions of Enqueue, Done, Schedule and
// Add over hosts whose names prefix one another, commits or aborts them,
// and after every call compares Peek, Hosts, Due, DueHosts and counters
// with a plain in-memory model of the committed state; SeenCount and Seen
// after every transaction; everything after occasional reopens.
func TestTxnModel(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir)
	defer func() { closeTest(t, s) }()
	rng := rand.New(rand.NewPCG(3, 4))
	hosts := []string{"a", "a.b", "ab", "h1", "h10"}
	limits := []uint64{0, 0, 3, 8}
	// Due times cluster so that ties, pre-1970 times and cut-offs at an
	// exact entry all occur.
	randTime := func() time.Time {
		base := []time.Time{time.Unix(-3, 0), t0}[rng.IntN(2)]
		return base.Add(time.Duration(rng.IntN(6))*time.Second + time.Duration(rng.IntN(3))).UTC()
	}
	committed := &txnModel{seen: map[string]bool{}, queues: map[string]*modelQueue{},
		due: map[string]map[string]time.Time{}, counters: map[string]int64{}}

	check := func(step string) {
		t.Helper()
		m := committed
		wantHosts := map[string]int{}
		wantDueHosts := map[string]time.Time{}
		for _, h := range hosts {
			q := m.queue(h)
			if len(q.items) > 0 {
				wantHosts[h] = len(q.items)
			}
			if got := peekAll(t, s, h); len(got) != len(q.items) || (len(got) > 0 && !reflect.DeepEqual(got, q.items)) {
				t.Fatalf("%s: queue %s = %v, want %v", step, h, got, q.items)
			}
			from := q.head + uint64(rng.IntN(4)) - 1
			if q.head == 0 {
				from = uint64(rng.IntN(3))
			}
			n := rng.IntN(4)
			var want []QueuedItem
			for _, it := range q.items {
				if it.Seq >= from && len(want) < n {
					want = append(want, it)
				}
			}
			if got, err := s.Peek(h, from, n); err != nil || len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
				t.Fatalf("%s: Peek(%s, %d, %d) = %v, %v; want %v", step, h, from, n, got, err, want)
			}

			var entries []DueItem
			for u, d := range m.due[h] {
				entries = append(entries, DueItem{u, d})
			}
			slices.SortFunc(entries, func(x, y DueItem) int {
				if c := x.Due.Compare(y.Due); c != 0 {
					return c
				}
				hx, hy := hashURL(x.URL), hashURL(y.URL)
				return bytes.Compare(hx[:], hy[:])
			})
			if len(entries) > 0 {
				wantDueHosts[h] = entries[0].Due
			}
			before, limit := randTime(), 1+rng.IntN(5)
			var wantDue []DueItem
			for _, e := range entries {
				if !e.Due.After(before) && len(wantDue) < limit {
					wantDue = append(wantDue, e)
				}
			}
			if got, err := s.Due(h, before, limit); err != nil || len(got) != len(wantDue) || (len(got) > 0 && !reflect.DeepEqual(got, wantDue)) {
				t.Fatalf("%s: Due(%s, %v, %d) = %v, %v; want %v", step, h, before, limit, got, err, wantDue)
			}
		}
		if got := hostsOf(t, s); !reflect.DeepEqual(got, wantHosts) {
			t.Fatalf("%s: Hosts = %v, want %v", step, got, wantHosts)
		}
		if got := dueHostsOf(t, s); !reflect.DeepEqual(got, wantDueHosts) {
			t.Fatalf("%s: DueHosts = %v, want %v", step, got, wantDueHosts)
		}
		for _, name := range []string{"c1", "c2"} {
			if got, err := s.Counter(name); err != nil || got != m.counters[name] {
				t.Fatalf("%s: Counter(%s) = %d, %v; want %d", step, name, got, err, m.counters[name])
			}
		}
	}
	checkSeen := func(step string) {
		t.Helper()
		if got := s.SeenCount(); got != uint64(len(committed.seen)) {
			t.Fatalf("%s: SeenCount = %d, want %d", step, got, len(committed.seen))
		}
		for range 10 {
			u := fmt.Sprintf("u%d", rng.IntN(150))
			if ok, err := s.Seen(u); err != nil || ok != committed.seen[u] {
				t.Fatalf("%s: Seen(%s) = %v, %v; want %v", step, u, ok, err, committed.seen[u])
			}
		}
	}

	var commits, aborts, queuedN, droppedN, dones, outOfOrder, moves int
	for txn := range 80 {
		staged := committed.clone()
		tx := s.Begin()
		for op := range 1 + rng.IntN(10) {
			step := fmt.Sprintf("txn %d op %d", txn, op)
			h := hosts[rng.IntN(len(hosts))]
			q := staged.queue(h)
			switch r := rng.IntN(10); {
			case r < 4:
				var items []Item
				for range rng.IntN(6) {
					items = append(items, Item{URL: fmt.Sprintf("u%d", rng.IntN(150)), Kind: uint8(rng.IntN(3)), Hops: uint8(rng.IntN(2))})
				}
				limit := limits[rng.IntN(len(limits))]
				var wantQ, wantD int
				for _, it := range items {
					if staged.seen[it.URL] {
						continue
					}
					staged.seen[it.URL] = true
					if limit > 0 && q.tail >= limit {
						wantD++
						continue
					}
					q.items = append(q.items, QueuedItem{it, q.tail})
					q.tail++
					wantQ++
				}
				gotQ, gotD, err := tx.Enqueue(h, items, limit)
				if err != nil || gotQ != wantQ || gotD != wantD {
					t.Fatalf("%s: Enqueue(%s, %v, %d) = %d, %d, %v; want %d, %d", step, h, items, limit, gotQ, gotD, err, wantQ, wantD)
				}
				queuedN += wantQ
				droppedN += wantD
			case r < 7:
				seq := q.head
				if rng.IntN(4) == 0 {
					seq = q.head + uint64(rng.IntN(3)) - 1 // may wrap below 0: also wrong
				}
				ok := seq == q.head && len(q.items) > 0
				err := tx.Done(h, seq)
				if ok != (err == nil) || (!ok && !errors.Is(err, ErrOutOfOrder)) {
					t.Fatalf("%s: Done(%s, %d) on [%d,%d): err = %v, want ok = %v", step, h, seq, q.head, q.tail, err, ok)
				}
				if ok {
					q.items = q.items[1:]
					q.head++
					dones++
				} else {
					outOfOrder++
				}
			case r < 9:
				u := fmt.Sprintf("u%d", rng.IntN(20))
				old := staged.due[h][u]
				var due time.Time
				if rng.IntN(4) > 0 {
					due = randTime()
				}
				if err := tx.Schedule(h, u, old, due); err != nil {
					t.Fatal(err)
				}
				if staged.due[h] == nil {
					staged.due[h] = map[string]time.Time{}
				}
				if due.IsZero() {
					delete(staged.due[h], u)
				} else {
					staged.due[h][u] = due
				}
				if !old.IsZero() {
					moves++
				}
			default:
				name := []string{"c1", "c2"}[rng.IntN(2)]
				delta := int64(rng.IntN(11) - 5)
				tx.Add(name, delta)
				staged.counters[name] += delta
			}
			check(step) // the staged changes must not show yet
		}
		step := fmt.Sprintf("txn %d end", txn)
		if rng.IntN(4) == 0 {
			tx.Abort()
			aborts++
		} else {
			mustCommit(t, tx)
			committed = staged
			commits++
		}
		check(step)
		checkSeen(step)
		if rng.IntN(10) == 0 {
			closeTest(t, s)
			s = openTest(t, dir)
			check(step + " reopened")
			checkSeen(step + " reopened")
		}
	}
	// Guard against a generator that never exercises a path.
	for name, n := range map[string]int{"commits": commits, "aborts": aborts, "queued": queuedN,
		"dropped": droppedN, "dones": dones, "out of order": outOfOrder, "moves": moves} {
		if n < 5 {
			t.Errorf("only %d %s; the generator needs tuning", n, name)
		}
	}
}

// TestRunRoundTrip records a run's budget account and reads it back.
func TestRunRoundTrip(t *testing.T) {
	s := openTest(t, t.TempDir())
	if _, ok, err := s.LatestRun(); ok || err != nil {
		t.Fatalf("a new store has a run: %v, %v", ok, err)
	}
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 123, time.UTC)
	want := Run{Started: t0, Mark: t0.Add(time.Minute), At: t0.Add(150 * time.Second), Budget: 12.5, Requests: 1875, MarkRequests: 750}
	txn := s.Begin()
	if err := txn.SetRun(want); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.LatestRun()
	if err != nil || !ok || !got.Started.Equal(want.Started) || !got.Mark.Equal(want.Mark) || !got.At.Equal(want.At) ||
		got.Budget != want.Budget || got.Requests != want.Requests || got.MarkRequests != want.MarkRequests {
		t.Errorf("read %+v (%v, %v), want %+v", got, ok, err, want)
	}
}
