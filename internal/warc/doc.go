// Package warc writes and reads WARC 1.1 files (ISO 28500:2017, the IIPC
// WARC 1.1 specification), the archive format of Heritrix, wget and the
// Wayback Machine, in which freshcrawl stores every page it fetches.
//
// # Writing
//
// A Writer appends warcinfo, request, response, revisit and metadata
// records to PREFIX-YYYYMMDDhhmmss-SEQ.warc.gz files, one gzip member per
// record, so any WARC tool reads the files and a record can be read alone
// from its offset. Each write returns a Location (file, offset, compressed
// length, record ID) for a CDX-style index kept elsewhere. Files rotate by
// size, each starting with a warcinfo record.
//
// Records carry WARC-Record-ID (a random UUID URN), WARC-Date (UTC, RFC
// 3339, up to nanoseconds), Content-Length, WARC-Block-Digest and, for
// responses, WARC-Payload-Digest. Digests are SHA-1 in upper-case base32
// ("sha1:…"), as Heritrix, wget and warcio write them. The payload of an
// HTTP record is its body with the transfer coding removed but the content
// coding kept (see PayloadDigest), while the block keeps the message
// exactly as received, chunk framing included.
//
// A request and its response are linked with WARC-Concurrent-To; to link
// them both ways, take their IDs from NewRecordID first:
//
//	respID, reqID := warc.NewRecordID(), warc.NewRecordID()
//	loc, err := w.WriteResponse(warc.Response{ID: respID, ConcurrentTo: reqID, TargetURI: u, HTTPHeader: h, Body: b})
//	...
//	_, err = w.WriteRequest(warc.Request{ID: reqID, ConcurrentTo: respID, TargetURI: u, HTTPHeader: rh})
//
// # Durability
//
// The crawler's rule is that a page is in a WARC file before its state row
// says it was fetched (DESIGN.md §4). Every write returns only once its
// gzip member is complete and handed to the operating system; Writer.Sync
// fsyncs it. After a crash, Repair cuts a torn last record off the file
// that was being written.
//
// # Reading
//
// A Reader iterates over the records of a plain or gzip-compressed file:
//
//	r := warc.NewReader(f)
//	for {
//		h, err := r.Next()
//		if err == io.EOF {
//			break
//		}
//		...
//		block, err := io.ReadAll(r) // or r.Verify() to check digests
//	}
//
// To read one record from an index entry, seek the file to
// Location.Offset and call NewReader and Next. The block of an HTTP record
// is the message as received; http.ReadResponse(bufio.NewReader(r), nil)
// parses it, removing the chunk framing.
package warc
