// Package capture is the WARC side of a fetch: a worker encodes the
// records of each exchange (compression is the costly part, and workers
// run in parallel); the committer writes them, in order, before the state
// that points to them (internal/crawler's commit.go).
package capture

import (
	"fmt"
	"net/http"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/crawler/pagerow"
	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/warc"
)

// Archive is where the crawler keeps what it fetched. warc.Writer is one;
// a test may give another.
type Archive interface {
	EncodeResponse(warc.Response) (*warc.Encoded, error)
	EncodeRevisit(warc.Revisit) (*warc.Encoded, error)
	EncodeRequest(warc.Request) (*warc.Encoded, error)
	// WriteEncoded appends a record and says where it went.
	WriteEncoded(*warc.Encoded) (warc.Location, error)
	// Sync makes what was written durable; the state that points to it
	// commits only after.
	Sync() error
	Close() error
}

// Exchange is the WARC records of one HTTP exchange, compressed: a
// response or revisit record, then the request record.
type Exchange struct {
	recs []*warc.Encoded
	// capture is set when recs[0] is a response record holding a new copy
	// of a 200 page, which the page row then points to.
	capture       bool
	payloadDigest string
	at            time.Time
	// Identical is set when the answer is recorded as an
	// identical-payload-digest revisit of the copy held.
	Identical bool
}

// Encode builds the WARC records of resp. If p, the page's stored row,
// holds content, the answer may be recorded as a revisit instead:
// server-not-modified for a 304, identical-payload-digest when the payload
// is the one p's capture holds.
func Encode(a Archive, resp *fetch.Response, p *store.Page) (*Exchange, error) {
	reqID, respID := warc.NewRecordID(), warc.NewRecordID()
	header := resp.WireHeader()
	out := &Exchange{at: resp.Started}
	digest := ""
	if resp.Status == http.StatusOK && resp.Truncated == "" {
		digest = warc.PayloadDigest(header, resp.Raw)
	}
	rec, err := encodeAnswer(a, resp, p, header, digest, reqID, respID, out)
	if err != nil {
		return nil, fmt.Errorf("warc record of %s: %w", resp.URL, err)
	}
	req, err := a.EncodeRequest(warc.Request{
		ID: reqID, Date: resp.Started, TargetURI: resp.URL, IPAddress: resp.RemoteIP(), ConcurrentTo: respID,
		HTTPHeader: resp.WireRequest(),
	})
	if err != nil {
		return nil, fmt.Errorf("warc record of %s: %w", resp.URL, err)
	}
	out.recs = []*warc.Encoded{rec, req}
	return out, nil
}

// encodeAnswer encodes the record of the answer itself: a revisit record
// where the held copy stands for it, else a response record, which is a
// new capture if the answer is a 200 (out says so).
func encodeAnswer(a Archive, resp *fetch.Response, p *store.Page, header []byte, digest, reqID, respID string, out *Exchange) (*warc.Encoded, error) {
	ip := resp.RemoteIP()
	held := p != nil && p.Held && p.RecordID != ""
	revisit := func(profile string) (*warc.Encoded, error) {
		return a.EncodeRevisit(warc.Revisit{
			ID: respID, Date: resp.Started, TargetURI: resp.URL, IPAddress: ip, ConcurrentTo: reqID,
			Profile: profile, HTTPHeader: header, PayloadDigest: p.PayloadDigest,
			RefersTo: p.RecordID, RefersToTargetURI: p.URL, RefersToDate: p.CaptureTime,
		})
	}
	switch {
	case held && resp.Status == http.StatusNotModified:
		return revisit(warc.ProfileServerNotModified)
	case held && digest != "" && digest == p.PayloadDigest:
		out.Identical = true
		return revisit(warc.ProfileIdenticalPayloadDigest)
	}
	if resp.Status == http.StatusOK {
		out.capture = true
		if digest == "" {
			digest = warc.PayloadDigest(header, resp.Raw)
		}
		out.payloadDigest = digest
	}
	return a.EncodeResponse(warc.Response{
		ID: respID, Date: resp.Started, TargetURI: resp.URL, IPAddress: ip, ConcurrentTo: reqID,
		HTTPHeader: header, Body: resp.Raw, Truncated: resp.Truncated, PayloadDigest: digest,
	})
}

// Write appends the exchange's records to a and, if they hold a new
// capture, says where it is. A nil exchange writes nothing.
func (e *Exchange) Write(a Archive) (*pagerow.Capture, error) {
	if e == nil {
		return nil, nil
	}
	var cp *pagerow.Capture
	for i, r := range e.recs {
		loc, err := a.WriteEncoded(r)
		if err != nil {
			return nil, fmt.Errorf("warc: %w", err)
		}
		if i == 0 && e.capture {
			cp = &pagerow.Capture{RecordID: r.RecordID(), PayloadDigest: e.payloadDigest, At: e.at, File: loc.File, Offset: loc.Offset}
		}
	}
	return cp, nil
}
