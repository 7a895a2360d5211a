package store

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"
)

// Record format versions. A decoder rejects versions it does not know, so a
// newer binary's rows are never silently misread by an older one.
const (
	// pageVersion 3 added Change, Rate and Checked, version 4 Interval and
	// Modified, version 5 Weight, version 6 Found and Exposure, version 7
	// Signalled (a bit of the held byte); rows of versions 2 to 6 still
	// decode.
	pageVersion = 7
	// visitVersion 2 added Modified; rows of version 1 still decode.
	visitVersion = 2
)

func beUint64(b []byte) uint64 { return binary.BigEndian.Uint64(b) }

func putBEUint64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

// maxUnix is the largest unix second time.Time can represent: its internal
// epoch is year 1, 62135596800 s before 1970.
const maxUnix = math.MaxInt64 - 62135596800

// appendTime encodes t as uvarint(nsec+1) then varint(unix seconds); a
// leading 0 means the zero time. Seconds rather than UnixNano keep every
// representable time round-trippable. The location is not kept: times decode
// in UTC.
func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(t.Nanosecond())+1)
	return binary.AppendVarint(b, t.Unix())
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decoder reads the fields appended above; the first error sticks and later
// reads return zero values.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = ErrCorrupt
	}
	d.b = nil
}

func (d *decoder) byte() byte {
	if len(d.b) < 1 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// uvarint rejects non-minimal encodings (a final 0x00 group) as well as
// truncated ones, so that every record has exactly one encoding.
func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 || (n > 1 && d.b[n-1] == 0) {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 || (n > 1 && d.b[n-1] == 0) {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) uint32() uint32 {
	v := d.uvarint()
	if v > math.MaxUint32 {
		d.fail()
		return 0
	}
	return uint32(v)
}

// uint64 reads 8 big-endian bytes.
func (d *decoder) uint64() uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 8 {
		d.fail()
		return 0
	}
	v := binary.BigEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) time() time.Time {
	ns := d.uvarint()
	if ns == 0 || d.err != nil {
		return time.Time{}
	}
	if ns > 1e9 {
		d.fail()
		return time.Time{}
	}
	sec := d.varint()
	// Beyond maxUnix, time.Unix overflows; the zero time has its own
	// encoding. Rejecting both keeps the encoding canonical.
	t := time.Unix(sec, int64(ns-1)).UTC()
	if sec > maxUnix || t.IsZero() {
		d.fail()
		return time.Time{}
	}
	return t
}

// finish reports an error if decoding failed or bytes were left over.
func (d *decoder) finish(what string) error {
	if d.err == nil && len(d.b) != 0 {
		d.err = ErrCorrupt
	}
	if d.err != nil {
		return fmt.Errorf("decode %s: %w", what, d.err)
	}
	return nil
}

func encodePage(p *Page) []byte {
	b := make([]byte, 0, 64+len(p.URL)+len(p.ETag)+len(p.LastModified)+len(p.WARCFile))
	b = append(b, pageVersion)
	b = appendString(b, p.URL)
	b = appendTime(b, p.FirstSeen)
	b = appendTime(b, p.LastFetch)
	b = binary.AppendVarint(b, int64(p.Status))
	b = binary.AppendUvarint(b, p.Checksum)
	b = appendString(b, p.ETag)
	b = appendString(b, p.LastModified)
	b = binary.AppendUvarint(b, uint64(p.Fetches))
	b = binary.AppendUvarint(b, uint64(p.Changes))
	b = appendString(b, p.WARCFile)
	b = binary.AppendVarint(b, p.WARCOffset)
	b = append(b, p.Kind)
	held := byte(0) // 1: held, 2: evicted; 4: signalled
	switch {
	case p.Held:
		held = 1
	case p.Evicted:
		held = 2
	}
	if p.Signalled {
		held |= 4
	}
	b = append(b, held)
	b = appendTime(b, p.NextDue)
	b = appendString(b, p.PayloadDigest)
	b = appendString(b, p.RecordID)
	b = appendTime(b, p.CaptureTime)
	b = appendString(b, p.Location)
	b = appendString(b, string(p.Change))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(p.Rate))
	b = appendTime(b, p.Checked)
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(p.Interval))
	b = appendTime(b, p.Modified)
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(p.Weight))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(p.Found))
	return binary.BigEndian.AppendUint64(b, math.Float64bits(p.Exposure))
}

func decodePage(b []byte) (Page, error) {
	d := decoder{b: b}
	var p Page
	v := d.byte()
	if d.err == nil && (v < 2 || v > pageVersion) {
		return Page{}, fmt.Errorf("decode page: version %d: %w", v, ErrCorrupt)
	}
	p.URL = d.string()
	p.FirstSeen = d.time()
	p.LastFetch = d.time()
	p.Status = int(d.varint())
	p.Checksum = d.uvarint()
	p.ETag = d.string()
	p.LastModified = d.string()
	p.Fetches = d.uint32()
	p.Changes = d.uint32()
	p.WARCFile = d.string()
	p.WARCOffset = d.varint()
	p.Kind = d.byte()
	held := d.byte()
	switch held &^ 4 {
	case 0:
	case 1:
		p.Held = true
	case 2:
		p.Evicted = true
	default:
		d.fail()
	}
	p.Signalled = held&4 != 0
	p.NextDue = d.time()
	p.PayloadDigest = d.string()
	p.RecordID = d.string()
	p.CaptureTime = d.time()
	p.Location = d.string()
	if v >= 3 {
		if c := d.string(); c != "" {
			p.Change = []byte(c)
		}
		p.Rate = math.Float64frombits(d.uint64())
		p.Checked = d.time()
	}
	if v >= 4 {
		p.Interval = math.Float64frombits(d.uint64())
		p.Modified = d.time()
	}
	if v >= 5 {
		p.Weight = math.Float64frombits(d.uint64())
	}
	if v >= 6 {
		p.Found = math.Float64frombits(d.uint64())
		p.Exposure = math.Float64frombits(d.uint64())
	}
	if err := d.finish("page"); err != nil {
		return Page{}, err
	}
	return p, nil
}

func encodeVisit(v *Visit) []byte {
	b := make([]byte, 0, 32+len(v.LastModified)+len(v.ETag))
	b = append(b, visitVersion)
	b = appendTime(b, v.Time)
	b = binary.AppendVarint(b, int64(v.Status))
	changed := byte(0)
	if v.Changed {
		changed = 1
	}
	b = append(b, changed)
	b = appendString(b, v.LastModified)
	b = appendString(b, v.ETag)
	return appendTime(b, v.Modified)
}

func decodeVisit(b []byte) (Visit, error) {
	d := decoder{b: b}
	var v Visit
	ver := d.byte()
	if d.err == nil && ver != visitVersion && ver != 1 {
		return Visit{}, fmt.Errorf("decode visit: version %d: %w", ver, ErrCorrupt)
	}
	v.Time = d.time()
	v.Status = int(d.varint())
	switch d.byte() {
	case 0:
	case 1:
		v.Changed = true
	default:
		d.fail()
	}
	v.LastModified = d.string()
	v.ETag = d.string()
	if ver >= 2 {
		v.Modified = d.time()
	}
	if err := d.finish("visit"); err != nil {
		return Visit{}, err
	}
	return v, nil
}

// appendTimeKey appends t as 12 bytes that sort in time order: unix seconds
// with the sign bit flipped, then nanoseconds, both big-endian.
func appendTimeKey(b []byte, t time.Time) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(t.Unix())^(1<<63))
	return binary.BigEndian.AppendUint32(b, uint32(t.Nanosecond()))
}

// queueMeta is a host queue's persisted sequence numbers: items occupy
// [head, tail).
type queueMeta struct {
	head, tail uint64
}

func encodeMeta(m queueMeta) []byte {
	b := binary.BigEndian.AppendUint64(nil, m.head)
	return binary.BigEndian.AppendUint64(b, m.tail)
}

func decodeMeta(b []byte) (queueMeta, error) {
	if len(b) != 16 {
		return queueMeta{}, fmt.Errorf("decode queue meta: length %d: %w", len(b), ErrCorrupt)
	}
	m := queueMeta{head: beUint64(b[:8]), tail: beUint64(b[8:])}
	if m.head > m.tail {
		return queueMeta{}, fmt.Errorf("decode queue meta: head %d > tail %d: %w", m.head, m.tail, ErrCorrupt)
	}
	return m, nil
}
