package cluster

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

func openExchange(t *testing.T, s *Server, ackWait time.Duration) *Exchange {
	t.Helper()
	_, js := connect(t, s)
	x, err := OpenExchange(context.Background(), js, ExchangeConfig{Cluster: "t", AckWait: ackWait})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// receiveAll takes every waiting parcel of partition p and merges their
// entries.
func receiveAll(t *testing.T, x *Exchange, p int) []Entry {
	t.Helper()
	var got []Entry
	if _, err := x.Receive(context.Background(), p, 1000, func(pc Parcel) error {
		got = append(got, pc.Entries...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestExchangeDelivers: what one node sends, the owners of the partitions
// receive, each entry once, a parcel over the message bound in pieces; a
// flush sent twice under one id (a sender that died before recording it
// sent) is delivered once.
func TestExchangeDelivers(t *testing.T) {
	s := testServer(t)
	sender, receiver := openExchange(t, s, time.Minute), openExchange(t, s, time.Minute)
	var big []Entry
	for i := range 20000 {
		big = append(big, Entry{URL: fmt.Sprintf("http://site.example/a/long/path/to/page/number/%06d", i), Count: uint32(i%7 + 1)})
	}
	parcels := []Parcel{
		{Partition: 0, Entries: []Entry{{"http://a.example/", 2}}},
		{Partition: 1, Entries: big},
	}
	if len(split(parcels[1])) < 2 {
		t.Fatal("the big parcel fits one message; the test needs one that does not")
	}
	for range 2 {
		if err := sender.Send(context.Background(), "n1-p3-1", parcels); err != nil {
			t.Fatal(err)
		}
	}
	if got := receiveAll(t, receiver, 0); !reflect.DeepEqual(got, parcels[0].Entries) {
		t.Errorf("partition 0 got %v", got)
	}
	if got := receiveAll(t, receiver, 1); !reflect.DeepEqual(got, big) {
		t.Errorf("partition 1 got %d entries, want the %d sent, in order", len(got), len(big))
	}
	if got := receiveAll(t, receiver, 1); len(got) != 0 {
		t.Errorf("received %d entries again after they were acknowledged", len(got))
	}
}

// TestExchangeRedelivers: a parcel the receiver's store refused comes
// again at the next Receive; one taken by a node that died before its
// acknowledgement comes to the next owner after the ack wait (the test
// polls for it, for up to 30 s).
func TestExchangeRedelivers(t *testing.T) {
	s := testServer(t)
	x := openExchange(t, s, 500*time.Millisecond)
	want := []Entry{{"http://a.example/", 1}}
	if err := x.Send(context.Background(), "f1", []Parcel{{Partition: 2, Entries: want}}); err != nil {
		t.Fatal(err)
	}
	refuse := errors.New("store full")
	n, err := x.Receive(context.Background(), 2, 10, func(Parcel) error { return refuse })
	if n != 0 || !errors.Is(err, refuse) {
		t.Fatalf("refused parcel: stored %d, err %v", n, err)
	}
	if got := receiveWithin(t, x, 2, 10*time.Second); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a refusal: got %v, want %v", got, want)
	}

	// A node takes a parcel and dies: its connection closes unacknowledged.
	if err := x.Send(context.Background(), "f2", []Parcel{{Partition: 2, Entries: want}}); err != nil {
		t.Fatal(err)
	}
	nc, js := connect(t, s)
	doomed, err := OpenExchange(context.Background(), js, ExchangeConfig{Cluster: "t", AckWait: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	cons, err := doomed.js.Consumer(context.Background(), doomed.stream, "p2")
	if err != nil {
		t.Fatal(err)
	}
	batch, err := cons.FetchNoWait(10)
	if err != nil {
		t.Fatal(err)
	}
	taken := 0
	for range batch.Messages() {
		taken++
	}
	if taken != 1 {
		t.Fatalf("the doomed node took %d messages, want 1", taken)
	}
	nc.Close()
	if got := receiveWithin(t, x, 2, 30*time.Second); !reflect.DeepEqual(got, want) {
		t.Fatalf("the parcel a dead node took came back as %v, want %v", got, want)
	}
}

// receiveWithin polls partition p until something arrives or d passes
// (a redelivery is asynchronous), and returns what came.
func receiveWithin(t *testing.T, x *Exchange, p int, d time.Duration) []Entry {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		if got := receiveAll(t, x, p); len(got) > 0 || time.Now().After(deadline) {
			return got
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestExchangeDamaged: a message that is not a parcel, or is a parcel for
// another partition, is dropped and reported, and does not block the
// parcels behind it.
func TestExchangeDamaged(t *testing.T) {
	s := testServer(t)
	x := openExchange(t, s, time.Minute)
	ctx := context.Background()
	if _, err := x.js.Publish(ctx, x.subject(1), []byte("garbage")); err != nil {
		t.Fatal(err)
	}
	wrong, _ := Parcel{Partition: 5, Entries: []Entry{{"http://x/", 1}}}.AppendBinary(nil)
	if _, err := x.js.Publish(ctx, x.subject(1), wrong); err != nil {
		t.Fatal(err)
	}
	good := []Entry{{"http://b.example/", 3}}
	if err := x.Send(ctx, "f1", []Parcel{{Partition: 1, Entries: good}}); err != nil {
		t.Fatal(err)
	}
	var got []Entry
	n, err := x.Receive(ctx, 1, 10, func(p Parcel) error { got = append(got, p.Entries...); return nil })
	if n != 1 || !errors.Is(err, ErrParcel) || !reflect.DeepEqual(got, good) {
		t.Fatalf("stored %d (%v), err %v; want the good parcel and ErrParcel", n, got, err)
	}
	if got := receiveAll(t, x, 1); len(got) != 0 {
		t.Errorf("damaged messages came back: %v", got)
	}
}
