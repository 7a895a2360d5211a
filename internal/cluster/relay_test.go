package cluster

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/store"
)

// TestRelay: a partition's outbox rows reach the other partitions' owners
// as one exchange, each URL once with the links to it counted, without
// the links to its own partition; the rows are dropped once sent, and a
// flush of nothing sends nothing. (Replicated URLs never reach an outbox:
// the crawler's Outbox filter keeps them out, TestOutboxFilter.)
func TestRelay(t *testing.T) {
	s := testServer(t)
	st, err := store.Open(filepath.Join(t.TempDir(), "state"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	part := Partitioner{Scheme: BySite, N: 4}
	// Sites of each partition, found by trying names.
	site := map[int]string{}
	for i := 0; len(site) < 4; i++ {
		u := "http://s" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ".example/"
		if _, ok := site[part.Of(u)]; !ok {
			site[part.Of(u)] = u
		}
	}
	self := 0
	for _, row := range [][]string{
		{site[1] + "x", site[2] + "y", site[0] + "own"},
		{site[1] + "x", site[3] + "popular"},
	} {
		txn := st.Begin()
		if err := txn.AddOutbox(row); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	x := openExchange(t, s, time.Minute)
	r := Relay{Store: st, Exchange: x, Partitioner: part, Self: self}
	f, err := r.Flush(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if f != (Flushed{Rows: 2, Links: 4, Entries: 3}) {
		t.Errorf("flushed %+v, want 2 rows, 4 links, 3 entries", f)
	}
	if got := receiveAll(t, x, 1); !reflect.DeepEqual(got, []Entry{{site[1] + "x", 2}}) {
		t.Errorf("partition 1 got %v", got)
	}
	if got := receiveAll(t, x, 2); !reflect.DeepEqual(got, []Entry{{site[2] + "y", 1}}) {
		t.Errorf("partition 2 got %v", got)
	}
	if got := receiveAll(t, x, 3); !reflect.DeepEqual(got, []Entry{{site[3] + "popular", 1}}) {
		t.Errorf("partition 3 got %v", got)
	}
	if got := receiveAll(t, x, 0); len(got) != 0 {
		t.Errorf("partition 0, the sender's own, got %v", got)
	}
	var left []uint64
	if err := st.Outbox(10, func(seq uint64, _ []string) error { left = append(left, seq); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("rows %v left after the flush", left)
	}
	if f, err := r.Flush(context.Background()); err != nil || f != (Flushed{}) {
		t.Errorf("flush of an empty outbox: %+v, %v", f, err)
	}
}
