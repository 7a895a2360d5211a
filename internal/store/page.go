package store

import (
	"errors"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// Kinds of URL, kept as Item.Kind and Page.Kind. Only pages count toward
// the collection (the crawl's "held" counter); sitemaps are fetched,
// archived and revisited too, but are not part of it. The store itself
// does nothing with the kind.
const (
	KindPage    uint8 = 0
	KindSitemap uint8 = 1
)

// Page is the state row of one fetched page.
type Page struct {
	// URL is the canonical URL; the row is keyed by its hash.
	URL string
	// FirstSeen is when the URL was discovered.
	FirstSeen time.Time
	// LastFetch is when the page was last fetched.
	LastFetch time.Time
	// Status is the HTTP status of the last fetch.
	Status int
	// Checksum is the content checksum used for change detection.
	Checksum uint64
	// ETag and LastModified are the validators for the next conditional GET.
	ETag, LastModified string
	// Fetches counts fetches; Changes counts fetches that saw a change.
	Fetches, Changes uint32
	// WARCFile and WARCOffset locate the last stored copy.
	WARCFile   string
	WARCOffset int64

	// Kind says what the URL is to the crawler (KindPage, KindSitemap); the
	// store keeps it opaque.
	Kind uint8
	// Held reports whether the page is in the collection: its last fetch
	// gave content that is kept and revisited.
	Held bool
	// Evicted reports a page that left a full collection for a more
	// important one; it may be taken back. Never set with Held.
	Evicted bool
	// Signalled reports a page the refresh plan treats as signalled: its
	// site's sitemap has proven it tells when the page changes, so the
	// plan revisits it on those signals rather than on a schedule.
	Signalled bool
	// NextDue is when the page is next to be revisited; zero if it is not
	// scheduled. It mirrors the page's entry in the due index.
	NextDue time.Time
	// PayloadDigest, RecordID and CaptureTime describe the WARC response
	// record of the current content, which a revisit record refers to.
	PayloadDigest, RecordID string
	CaptureTime             time.Time
	// Location is the target of a redirect (3xx) answer.
	Location string
	// Change is the page's change history summarised for the change-rate
	// estimators (an encoded change.Stats); the store keeps it opaque.
	Change []byte
	// Rate is the page's estimated change rate, in changes per second.
	Rate float64
	// Checked is when the content held was last compared with the live
	// page (a 200 or 304 answer): the start of the interval the next
	// comparison observes. Failed fetches move LastFetch, not Checked.
	Checked time.Time
	// Interval is the revisit interval the refresh policy last chose, in
	// seconds (the state of an adaptive policy such as Nutch's, which
	// grows or shrinks it at each visit); zero if none.
	Interval float64
	// Modified is when the page was last known to change: the trusted
	// Last-Modified, else the visit that saw the change; zero if unknown.
	Modified time.Time
	// Weight is the page's importance as the refresh policy weighs its
	// freshness (dissertation §5.6): its PageRank or backlinks over those
	// of the average page held, as last ranked; zero if not ranked.
	Weight float64
	// Found and Exposure are what the page's fetches have led to: the new
	// URLs its answers queued, and the seconds of the page's life those
	// answers covered, both forgotten as the change history is. Found
	// over Exposure is the rate at which the page reveals new URLs, its
	// discovery value to the refresh plan.
	Found, Exposure float64
}

// StatusUnchanged is the Status of a Visit that was no fetch: a trusted
// sitemap read at its Time still dated the page before its last check,
// so the page was unchanged until then (the refresh module's
// ObserveUnchanged), which the estimators fold as a 304 would be.
const StatusUnchanged = 1

// Visit is one fetch of a page as the change-rate estimators see it.
type Visit struct {
	// Time is when the fetch happened; visits of one page are ordered by it.
	Time time.Time
	// Status is the HTTP status.
	Status int
	// Changed reports whether the content differed from the previous visit.
	Changed bool
	// LastModified and ETag are the response's validators, if any.
	LastModified, ETag string
	// Modified is when the page last changed as far as the crawler
	// trusted the site to say (its Last-Modified, on the crawler's clock);
	// zero if unknown or not trusted.
	Modified time.Time
}

func visitPrefix(h urlHash) []byte {
	return append(hashKey(prefixVisit, h), '/')
}

// GetPage returns url's state row, or an error wrapping ErrNotFound.
func (s *Store) GetPage(url string) (Page, error) {
	v, ok, err := s.get(hashKey(prefixPage, hashURL(url)))
	if err != nil {
		return Page{}, fmt.Errorf("store: get page %s: %w", url, err)
	}
	if !ok {
		return Page{}, fmt.Errorf("store: get page %s: %w", url, ErrNotFound)
	}
	p, err := decodePage(v)
	if err != nil {
		return Page{}, fmt.Errorf("store: get page %s: %w", url, err)
	}
	if p.URL != url { // A hash collision: astronomically unlikely, but cheap to rule out.
		return Page{}, fmt.Errorf("store: get page %s: %w", url, ErrNotFound)
	}
	return p, nil
}

// Visits returns url's visit history in time order.
func (s *Store) Visits(url string) ([]Visit, error) {
	lo := visitPrefix(hashURL(url))
	var out []Visit
	err := s.scan(lo, func(_, v []byte) error {
		vis, err := decodeVisit(v)
		if err != nil {
			return err
		}
		out = append(out, vis)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: visits %s: %w", url, err)
	}
	return out, nil
}

// errStop carries a callback's error out of scan unwrapped.
type errStop struct{ err error }

func (e errStop) Error() string { return e.err.Error() }

// scanUntil is scan whose fn's errors (fn stopping it) are returned
// unchanged rather than taken for the iteration's.
func (s *Store) scanUntil(prefix []byte, fn func(k, v []byte) error) error {
	err := s.scan(prefix, func(k, v []byte) error {
		if err := fn(k, v); err != nil {
			return errStop{err}
		}
		return nil
	})
	var stop errStop
	if errors.As(err, &stop) {
		return stop.err
	}
	return err
}

// ForEachPage calls fn for every page row, in hash order. If fn returns an
// error, ForEachPage stops and returns that error unchanged.
func (s *Store) ForEachPage(fn func(Page) error) error {
	err := s.scan([]byte(prefixPage), func(_, v []byte) error {
		p, err := decodePage(v)
		if err != nil {
			return err
		}
		if err := fn(p); err != nil {
			return errStop{err}
		}
		return nil
	})
	return stopped(err, "store: for each page")
}

// stopped is the error of a walk whose callback may have stopped it with
// errStop: the callback's error unchanged, else err in context.
func stopped(err error, context string) error {
	var stop errStop
	if errors.As(err, &stop) {
		return stop.err
	}
	if err != nil {
		return fmt.Errorf("%s: %w", context, err)
	}
	return nil
}

// scan calls fn for every key with the given prefix, in order. The slices
// passed to fn are valid only during the call.
func (s *Store) scan(prefix []byte, fn func(k, v []byte) error) error {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		if err := fn(it.Key(), v); err != nil {
			return err
		}
	}
	return it.Error()
}
