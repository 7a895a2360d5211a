package cluster

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestBatchOnce is claim 31 of the ch. 3 extraction (dissertation §3.3,
// batch communication): within a batch a URL linked several times is sent
// once, with the links summed; a later batch sends it again, since no
// memory of what was sent is kept.
func TestBatchOnce(t *testing.T) {
	var b Batch
	// The toy web of Fig. 3.2: a and c, in partition 0, both link g, of
	// partition 1; h links d back.
	b.Add(1, "http://s2/g", 1) // from a
	b.Add(1, "http://s2/g", 1) // from c
	b.Add(0, "http://s1/d", 1) // from h
	b.Add(1, "http://s2/f", 2)
	if b.Len() != 3 || b.Links() != 4 {
		t.Fatalf("Len %d, Links %d; want 3 entries from 4 links", b.Len(), b.Links())
	}
	want := []Parcel{
		{Partition: 0, Entries: []Entry{{"http://s1/d", 1}}},
		{Partition: 1, Entries: []Entry{{"http://s2/f", 2}, {"http://s2/g", 2}}},
	}
	if got := b.Take(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Take = %v, want %v", got, want)
	}
	if b.Len() != 0 || b.Links() != 0 || len(b.Take()) != 0 {
		t.Fatal("Take did not empty the batch")
	}
	b.Add(1, "http://s2/g", 1)
	if got := b.Take(); len(got) != 1 || got[0].Entries[0] != (Entry{"http://s2/g", 1}) {
		t.Fatalf("the next batch sent %v, want g again once", got)
	}
}

func TestBatchCountSaturates(t *testing.T) {
	var b Batch
	b.Add(0, "u", 1<<32-2)
	b.Add(0, "u", 5)
	if got := b.Take()[0].Entries[0].Count; got != 1<<32-1 {
		t.Errorf("count %d, want saturated at 2^32−1", got)
	}
}

func TestParcelRoundTrip(t *testing.T) {
	tests := []Parcel{
		{Partition: 0, Entries: []Entry{}},
		{Partition: 63, Entries: []Entry{{"http://a.example/", 1}, {"http://b.example/x?y", 1<<32 - 1}}},
		{Partition: 1 << 20, Entries: []Entry{{"", 0}, {strings.Repeat("x", MaxURL), 7}}},
	}
	for _, p := range tests {
		b, err := p.AppendBinary([]byte("prefix"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeParcel(b[len("prefix"):])
		if err != nil || !reflect.DeepEqual(got, p) {
			t.Errorf("round trip of %d entries: %v, %v", len(p.Entries), err, got.Partition)
		}
	}
	if _, err := (Parcel{Entries: []Entry{{strings.Repeat("x", MaxURL+1), 1}}}).AppendBinary(nil); err == nil {
		t.Error("a URL over MaxURL was encoded")
	}
}

func TestDecodeParcelDamaged(t *testing.T) {
	good, _ := Parcel{Partition: 3, Entries: []Entry{{"http://a/", 2}}}.AppendBinary(nil)
	for name, b := range map[string][]byte{
		"empty":     nil,
		"version":   append([]byte{2}, good[1:]...),
		"truncated": good[:len(good)-2],
		"trailing":  append(good, 0),
		"huge":      {1, 0, 0xff, 0xff, 0xff, 0xff, 0x0f},
		"long url":  {1, 0, 1, 0x81, 0x80, 0x01},
		"count":     {1, 0, 1, 1, 'x', 0x80, 0x80, 0x80, 0x80, 0x10},
	} {
		if _, err := DecodeParcel(b); !errors.Is(err, ErrParcel) {
			t.Errorf("%s: err %v, want ErrParcel", name, err)
		}
	}
}

// FuzzDecodeParcel: a parcel comes off the network. Decoding must not
// panic, and what decodes must encode back to the same bytes (the format
// has one spelling of each parcel, varints aside, which are checked by
// decoding again).
func FuzzDecodeParcel(f *testing.F) {
	good, _ := Parcel{Partition: 3, Entries: []Entry{{"http://a/", 2}, {"http://b/c", 9}}}.AppendBinary(nil)
	f.Add(good)
	f.Add([]byte{1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodeParcel(b)
		if err != nil {
			return
		}
		again, err := p.AppendBinary(nil)
		if err != nil {
			t.Fatalf("decoded parcel does not encode: %v", err)
		}
		q, err := DecodeParcel(again)
		if err != nil || !reflect.DeepEqual(p, q) {
			t.Fatalf("re-decoding: %v", err)
		}
	})
}
