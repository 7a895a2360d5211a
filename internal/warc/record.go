package warc

import (
	"crypto/rand"
	"errors"
	"fmt"
	"time"
)

// Record types (WARC 1.1 §6), the values of WARC-Type. The writer has a
// method for each type the crawler writes; WriteRecord writes any other.
const (
	TypeWarcinfo = "warcinfo" // TypeWarcinfo describes the records that follow it
	TypeResponse = "response" // TypeResponse holds a full HTTP response
	TypeRequest  = "request"  // TypeRequest holds the HTTP request sent
	TypeRevisit  = "revisit"  // TypeRevisit notes a capture whose content is archived already
	TypeMetadata = "metadata" // TypeMetadata describes another record or URI
	TypeResource = "resource" // TypeResource holds content without protocol headers
)

// Revisit profiles (WARC 1.1 §6.7.2 and §6.7.3).
const (
	// ProfileIdenticalPayloadDigest marks a revisit whose payload was
	// identical to an earlier capture's, found by comparing payload digests.
	ProfileIdenticalPayloadDigest = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
	// ProfileServerNotModified marks a revisit the server answered with 304
	// Not Modified to a conditional request.
	ProfileServerNotModified = "http://netpreserve.org/warc/1.1/revisit/server-not-modified"
)

// Content types of the blocks this package writes.
const (
	contentHTTPResponse = "application/http;msgtype=response"
	contentHTTPRequest  = "application/http;msgtype=request"
	contentWarcFields   = "application/warc-fields"
)

// NewRecordID returns a new WARC-Record-ID: a random (version 4) UUID URN in
// angle brackets, "<urn:uuid:…>". Callers need one in advance to link a
// request and its response both ways with WARC-Concurrent-To.
func NewRecordID() string {
	var u [16]byte
	rand.Read(u[:]) // never fails (crypto/rand, Go 1.24+)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	// Hand-formatted: fmt.Sprintf took 1% of a crawl's CPU.
	const digits = "0123456789abcdef"
	b := make([]byte, 0, len("<urn:uuid:>")+36)
	b = append(b, "<urn:uuid:"...)
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, digits[c>>4], digits[c&0xf])
	}
	return string(append(b, '>'))
}

// FormatDate formats t as a WARC-Date: UTC, RFC 3339, with as many
// fractional digits as needed, up to nanoseconds, as WARC 1.1 allows
// (WARC 1.0 had whole seconds only).
func FormatDate(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}

// Response is an HTTP response to write as a response record. The block is
// HTTPHeader followed by Body, exactly as received.
type Response struct {
	// ID is the WARC-Record-ID; empty means a new one from NewRecordID.
	ID string
	// Date is the WARC-Date, the moment the fetch began; zero means the
	// writer's clock now.
	Date time.Time
	// TargetURI is the URI fetched (required).
	TargetURI string
	// IPAddress is the server's address (optional WARC-IP-Address).
	IPAddress string
	// ConcurrentTo is the ID of the request record (optional).
	ConcurrentTo string
	// HTTPHeader is the status line and header fields as received, ending
	// with the empty line (CRLF CRLF). If it says Transfer-Encoding:
	// chunked, Body must be the chunked bytes; a fetcher that de-chunks
	// (as net/http does) must leave that field out.
	HTTPHeader []byte
	// Body is the message body as received: content coding (gzip) kept.
	Body []byte
	// Truncated is the WARC-Truncated reason when Body is not the whole
	// body: "length", "time", "disconnect" or "unspecified" (optional).
	Truncated string
	// PayloadDigest is PayloadDigest(HTTPHeader, Body) when the caller has
	// computed it already, as the crawler does to choose between a
	// response and a revisit record; empty means the writer computes it.
	// Hashing an 18 KB page costs a third as much as compressing it, so
	// it is worth not doing twice. The writer trusts the value: a wrong
	// one makes a record whose payload fails Verify.
	PayloadDigest string
}

// Request is an HTTP request to write as a request record. The block is
// HTTPHeader followed by Body.
type Request struct {
	ID           string    // WARC-Record-ID; empty: a new one
	Date         time.Time // WARC-Date; zero: the writer's clock now
	TargetURI    string    // required
	IPAddress    string    // optional WARC-IP-Address
	ConcurrentTo string    // ID of the response record (optional)
	HTTPHeader   []byte    // request line and fields, ending with the empty line
	Body         []byte    // usually empty (GET)
}

// Revisit records that a fetch found content already archived. Its block
// is the new response's HTTP header only; the payload is not repeated.
type Revisit struct {
	ID           string    // WARC-Record-ID; empty: a new one
	Date         time.Time // WARC-Date; zero: the writer's clock now
	TargetURI    string    // required
	IPAddress    string    // optional WARC-IP-Address
	ConcurrentTo string    // ID of the request record (optional)
	// Profile is WARC-Profile; empty means ProfileIdenticalPayloadDigest.
	Profile string
	// HTTPHeader is the new response's header block (may be empty).
	HTTPHeader []byte
	// PayloadDigest is the WARC-Payload-Digest of the original capture,
	// required for ProfileIdenticalPayloadDigest.
	PayloadDigest string
	// RefersTo is the WARC-Record-ID of the original (optional).
	RefersTo string
	// RefersToTargetURI and RefersToDate are the original's
	// WARC-Target-URI and WARC-Date, written as WARC-Refers-To-Target-URI
	// and WARC-Refers-To-Date (new in WARC 1.1) when set.
	RefersToTargetURI string
	RefersToDate      time.Time
}

// Metadata is a metadata record about another record or URI.
type Metadata struct {
	ID           string    // WARC-Record-ID; empty: a new one
	Date         time.Time // WARC-Date; zero: the writer's clock now
	TargetURI    string    // optional
	ConcurrentTo string    // optional ID of the record described
	RefersTo     string    // optional ID of the record described
	ContentType  string    // empty means application/warc-fields
	Block        []byte
}

// baseHeader builds the fields common to the record types.
func baseHeader(typ, id string, date time.Time, uri, ip, concurrent string) Header {
	h := make(Header, 0, 12)
	h.Add("WARC-Type", typ)
	if id == "" {
		id = NewRecordID()
	}
	h.Add("WARC-Record-ID", id)
	if !date.IsZero() {
		h.Add("WARC-Date", FormatDate(date))
	}
	if uri != "" {
		h.Add("WARC-Target-URI", uri)
	}
	if ip != "" {
		h.Add("WARC-IP-Address", ip)
	}
	if concurrent != "" {
		h.Add("WARC-Concurrent-To", concurrent)
	}
	return h
}

// checkHTTPHeader requires a header block that ends with its first blank
// line, so a reader splits header and payload where the writer did.
func checkHTTPHeader(what string, b []byte) error {
	if httpHeaderEnd(b) != len(b) {
		return fmt.Errorf("warc: %s: HTTP header must end with its first empty line (CRLF CRLF)", what)
	}
	return nil
}

func (r *Response) record() (Header, error) {
	if r.TargetURI == "" {
		return nil, errors.New("warc: response: no TargetURI")
	}
	if err := checkHTTPHeader("response", r.HTTPHeader); err != nil {
		return nil, err
	}
	h := baseHeader(TypeResponse, r.ID, r.Date, r.TargetURI, r.IPAddress, r.ConcurrentTo)
	if r.Truncated != "" {
		h.Add("WARC-Truncated", r.Truncated)
	}
	h.Add("Content-Type", contentHTTPResponse)
	digest := r.PayloadDigest
	if digest == "" {
		digest = PayloadDigest(r.HTTPHeader, r.Body)
	} else if _, _, err := parseDigest(digest); err != nil {
		return nil, fmt.Errorf("warc: response: PayloadDigest: %w", err)
	}
	h.Add("WARC-Payload-Digest", digest)
	return h, nil
}

func (r *Request) record() (Header, error) {
	if r.TargetURI == "" {
		return nil, errors.New("warc: request: no TargetURI")
	}
	if err := checkHTTPHeader("request", r.HTTPHeader); err != nil {
		return nil, err
	}
	h := baseHeader(TypeRequest, r.ID, r.Date, r.TargetURI, r.IPAddress, r.ConcurrentTo)
	h.Add("Content-Type", contentHTTPRequest)
	if len(r.Body) > 0 {
		h.Add("WARC-Payload-Digest", PayloadDigest(r.HTTPHeader, r.Body))
	}
	return h, nil
}

func (r *Revisit) record() (Header, error) {
	if r.TargetURI == "" {
		return nil, errors.New("warc: revisit: no TargetURI")
	}
	if len(r.HTTPHeader) > 0 {
		if err := checkHTTPHeader("revisit", r.HTTPHeader); err != nil {
			return nil, err
		}
	}
	profile := r.Profile
	if profile == "" {
		profile = ProfileIdenticalPayloadDigest
	}
	if r.PayloadDigest != "" {
		if _, _, err := parseDigest(r.PayloadDigest); err != nil {
			return nil, fmt.Errorf("warc: revisit: PayloadDigest: %w", err)
		}
	} else if profile == ProfileIdenticalPayloadDigest {
		return nil, errors.New("warc: revisit: identical-payload-digest profile needs PayloadDigest")
	}
	h := baseHeader(TypeRevisit, r.ID, r.Date, r.TargetURI, r.IPAddress, r.ConcurrentTo)
	h.Add("WARC-Profile", profile)
	if r.RefersTo != "" {
		h.Add("WARC-Refers-To", r.RefersTo)
	}
	if r.RefersToTargetURI != "" {
		h.Add("WARC-Refers-To-Target-URI", r.RefersToTargetURI)
	}
	if !r.RefersToDate.IsZero() {
		h.Add("WARC-Refers-To-Date", FormatDate(r.RefersToDate))
	}
	if len(r.HTTPHeader) > 0 {
		h.Add("Content-Type", contentHTTPResponse)
	}
	if r.PayloadDigest != "" {
		h.Add("WARC-Payload-Digest", r.PayloadDigest)
	}
	return h, nil
}

func (m *Metadata) record() (Header, error) {
	h := baseHeader(TypeMetadata, m.ID, m.Date, m.TargetURI, "", m.ConcurrentTo)
	if m.RefersTo != "" {
		h.Add("WARC-Refers-To", m.RefersTo)
	}
	ct := m.ContentType
	if ct == "" {
		ct = contentWarcFields
	}
	h.Add("Content-Type", ct)
	return h, nil
}
