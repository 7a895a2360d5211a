package warc

// Encoded is a record built and compressed ahead of its write. Compressing
// is most of the cost of writing a record, and a Writer serialises writes;
// encoding first lets many goroutines compress at once, leaving the Writer
// only the append. Make one with the Encode methods and write it with
// WriteEncoded.
type Encoded struct {
	h      Header
	block  [][]byte
	infoID string // the WARC-Warcinfo-ID member was compressed with
	// member is the record compressed ahead, nil once WriteEncoded has
	// written it and given its buffer back for the next Encode (release).
	member []byte
}

// RecordID returns the record's WARC-Record-ID.
func (e *Encoded) RecordID() string { return e.h.Get("WARC-Record-ID") }

// EncodeResponse builds and compresses a response record (see Response).
// It is safe to call from many goroutines at once.
func (w *Writer) EncodeResponse(r Response) (*Encoded, error) {
	h, err := r.record()
	if err != nil {
		return nil, err
	}
	return w.encode(h, r.HTTPHeader, r.Body)
}

// EncodeRequest builds and compresses a request record (see Request).
func (w *Writer) EncodeRequest(r Request) (*Encoded, error) {
	h, err := r.record()
	if err != nil {
		return nil, err
	}
	return w.encode(h, r.HTTPHeader, r.Body)
}

// EncodeRevisit builds and compresses a revisit record (see Revisit).
func (w *Writer) EncodeRevisit(r Revisit) (*Encoded, error) {
	h, err := r.record()
	if err != nil {
		return nil, err
	}
	return w.encode(h, r.HTTPHeader)
}

// encode completes h and compresses the record against the warcinfo record
// of the current file. If the file changes before the write (rotation, or
// no file yet), WriteEncoded compresses it again.
func (w *Writer) encode(h Header, block ...[]byte) (*Encoded, error) {
	if err := w.complete(&h, block); err != nil {
		return nil, err
	}
	e := &Encoded{h: h, block: block}
	w.mu.Lock()
	e.infoID = w.infoID
	w.mu.Unlock()
	if e.infoID == "" {
		return e, nil
	}
	e.h.Set("WARC-Warcinfo-ID", e.infoID)
	enc := w.pool.Get().(*encoder)
	e.member = enc.member(w.memberBuffer(), e.h, e.block, worthCompressing(e.h, e.block))
	w.pool.Put(enc)
	return e, nil
}

// maxPooledMember is the largest member buffer kept for reuse: enough for
// the members of pages of a few hundred kilobytes, without pinning the
// megabytes of a large download.
const maxPooledMember = 256 << 10

// memberBuffer returns an empty buffer for an Encoded's member. Members
// are pooled because a fresh one is a zeroed allocation of half a page per
// record, only for WriteEncoded to copy it to the file.
func (w *Writer) memberBuffer() []byte {
	if b, ok := w.members.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return nil
}

// release gives e's member back for reuse once it is in the file; a later
// WriteEncoded of e compresses it again.
func (w *Writer) release(e *Encoded) {
	if b := e.member; b != nil && cap(b) <= maxPooledMember {
		w.members.Put(&b)
	}
	e.member = nil
}

// WriteEncoded appends an encoded record, like the Write methods. Once it
// has, e no longer holds the compressed record; writing e again compresses
// it again.
func (w *Writer) WriteEncoded(e *Encoded) (Location, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return Location{}, ErrClosed
	}
	if w.err != nil {
		return Location{}, w.err
	}
	if err := w.ready(); err != nil {
		return Location{}, err
	}
	member := e.member
	if e.infoID != w.infoID || member == nil {
		e.h.Set("WARC-Warcinfo-ID", w.infoID)
		e.infoID = w.infoID
		member = w.compressLocked(e.h, e.block)
	}
	loc, err := w.appendMember(member, e.RecordID())
	if err == nil {
		w.release(e)
	}
	return loc, err
}
