package cluster

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Batch collects the links a node found to other partitions between two
// exchanges (§3.3, batch communication). A URL linked many times in a
// batch is sent once, with the number of links to it (the [URL, count]
// messages of §3.9, which feed the receiver's backlink counts). A Batch
// remembers nothing past Take: a URL sent in one batch is sent again if a
// later one links it (claim 31), which costs a message but no memory
// that grows with the crawl. The zero value is ready to use; a Batch is
// not safe for concurrent use.
type Batch struct {
	parts map[int]map[string]uint32
	links int64 // Add calls since the last Take
}

// Add records count links to url, of partition part.
func (b *Batch) Add(part int, url string, count uint32) {
	if b.parts == nil {
		b.parts = map[int]map[string]uint32{}
	}
	m := b.parts[part]
	if m == nil {
		m = map[string]uint32{}
		b.parts[part] = m
	}
	c := m[url]
	if c+count < c {
		count = ^c // saturate rather than wrap
	}
	m[url] = c + count
	b.links++
}

// Len returns the number of distinct (partition, URL) entries held.
func (b *Batch) Len() int {
	n := 0
	for _, m := range b.parts {
		n += len(m)
	}
	return n
}

// Links returns the number of links added since the last Take.
func (b *Batch) Links() int64 { return b.links }

// Parcel is what one partition's owner receives from one exchange: URLs
// in increasing order, each once.
type Parcel struct {
	Partition int
	Entries   []Entry
}

// Entry is a URL and the number of links to it the sender saw.
type Entry struct {
	URL   string
	Count uint32
}

// Take returns the batch's parcels, one a partition in increasing order of
// partition, and empties the batch.
func (b *Batch) Take() []Parcel {
	out := make([]Parcel, 0, len(b.parts))
	for part, m := range b.parts {
		p := Parcel{Partition: part, Entries: make([]Entry, 0, len(m))}
		for u, c := range m {
			p.Entries = append(p.Entries, Entry{URL: u, Count: c})
		}
		slices.SortFunc(p.Entries, func(x, y Entry) int { return cmp.Compare(x.URL, y.URL) })
		out = append(out, p)
	}
	slices.SortFunc(out, func(x, y Parcel) int { return cmp.Compare(x.Partition, y.Partition) })
	b.parts, b.links = nil, 0
	return out
}

// The wire format of a parcel, as a message body:
//
//	version  byte (1)
//	partition uvarint
//	entries  uvarint
//	entry*   uvarint len(URL), URL bytes, uvarint count
//
// URLs are canonical and at most MaxURL bytes.

const (
	parcelVersion = 1
	// MaxURL bounds a URL in a parcel, as urlx bounds its input.
	MaxURL = 8 << 10
)

// ErrParcel is wrapped by the errors of DecodeParcel.
var ErrParcel = errors.New("cluster: damaged parcel")

// AppendBinary appends the parcel's wire form to b.
func (p Parcel) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, parcelVersion)
	b = binary.AppendUvarint(b, uint64(p.Partition))
	b = binary.AppendUvarint(b, uint64(len(p.Entries)))
	for _, e := range p.Entries {
		if len(e.URL) > MaxURL {
			return nil, fmt.Errorf("cluster: parcel URL of %d bytes (limit %d)", len(e.URL), MaxURL)
		}
		b = binary.AppendUvarint(b, uint64(len(e.URL)))
		b = append(b, e.URL...)
		b = binary.AppendUvarint(b, uint64(e.Count))
	}
	return b, nil
}

// DecodeParcel reads a parcel from its wire form.
func DecodeParcel(b []byte) (Parcel, error) {
	if len(b) == 0 || b[0] != parcelVersion {
		return Parcel{}, fmt.Errorf("%w: unknown version", ErrParcel)
	}
	r := reader{b: b[1:]}
	part, n := r.uvarint(), r.uvarint()
	if r.err == nil && (part > 1<<31 || n > uint64(len(r.b))/2) {
		return Parcel{}, fmt.Errorf("%w: partition %d, %d entries in %d bytes", ErrParcel, part, n, len(b))
	}
	p := Parcel{Partition: int(part), Entries: make([]Entry, 0, n)}
	for i := uint64(0); i < n && r.err == nil; i++ {
		l := r.uvarint()
		if l > MaxURL {
			return Parcel{}, fmt.Errorf("%w: URL of %d bytes", ErrParcel, l)
		}
		u := r.bytes(l)
		c := r.uvarint()
		if c > 1<<32-1 {
			return Parcel{}, fmt.Errorf("%w: count %d", ErrParcel, c)
		}
		p.Entries = append(p.Entries, Entry{URL: string(u), Count: uint32(c)})
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%w: %d bytes past the end", ErrParcel, len(r.b))
	}
	if r.err != nil {
		return Parcel{}, r.err
	}
	return p, nil
}

// reader reads a parcel's fields, keeping the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = fmt.Errorf("%w: bad varint", ErrParcel)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = fmt.Errorf("%w: truncated", ErrParcel)
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}
