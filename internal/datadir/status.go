// Package datadir reads a crawl's data directory (state/, the Pebble
// store, and warc/, the WARC files) without changing it, for the commands
// that report on a crawl that is not running: its status, the visit
// histories of its pages, its link graph, its activity over time. The
// crawler writes the directory (internal/crawler); the store defines its
// layout (internal/store).
package datadir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/refresh"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// Status is what a crawl's data directory holds, read from its store and
// WARC files by ReadStatus. Its JSON form is the output of freshcrawl
// status -json. Unlike crawler.Stats, the running totals of one crawler,
// it describes the whole crawl, every run of it, as it is on disk.
type Status struct {
	Dir string `json:"dir"`
	// Seen is the number of URLs ever seen; Held is the pages in the
	// collection by the crawl's counter, HeldRows by the page rows
	// marked held (the two agree unless the state is damaged).
	Seen     uint64 `json:"urls_seen"`
	Held     int64  `json:"pages_held"`
	HeldRows int64  `json:"page_rows_held"`
	// Queued is the URLs waiting in the per-host queues, QueueHosts the
	// hosts with a non-empty queue.
	Queued     int64 `json:"urls_queued"`
	QueueHosts int   `json:"hosts_with_queue"`
	// Scheduled is the page rows with a revisit due, on DueHosts hosts,
	// Overdue of them due already; NextDue is the earliest due time.
	Scheduled int64     `json:"revisits_scheduled"`
	Overdue   int64     `json:"revisits_overdue"`
	DueHosts  int       `json:"hosts_with_revisits"`
	NextDue   time.Time `json:"next_revisit,omitzero"`
	// Rows is the rows of the pages ever fetched, by the status of their
	// last fetch; SitemapRows those of the sitemaps.
	Rows        int64         `json:"page_rows"`
	ByClass     StatusClasses `json:"page_rows_by_status"`
	SitemapRows int64         `json:"sitemap_rows"`
	// Fetches and Changes are summed over the rows, sitemaps included.
	Fetches   uint64    `json:"fetches"`
	Changes   uint64    `json:"changes"`
	LastFetch time.Time `json:"last_fetch,omitzero"`
	// ScopeHosts and ScopeSites are the seeds' hosts and sites, in order;
	// empty, not nil, when there are none.
	ScopeHosts []string  `json:"scope_hosts"`
	ScopeSites []string  `json:"scope_sites"`
	WARC       WARCFiles `json:"warc"`
	// Rates summarises the change-rate estimates of the pages held.
	Rates Rates `json:"change_rates"`
	// LastRun is the budget account of the latest run; nil if none was
	// recorded (or the crawl predates the record).
	LastRun *RunBudget `json:"last_run,omitempty"`
}

// RunBudget is how much of its budget a run spent: its requests over
// budget × time, over the whole run (SinceStart) and over its last
// stretch (Last, from LastFrom: one to two minutes, or the whole run if
// shorter). The shares are 0 without a budget.
type RunBudget struct {
	Started    time.Time `json:"started"`
	Ended      time.Time `json:"last_commit"`
	Budget     float64   `json:"budget_per_second"`
	Requests   int64     `json:"requests"`
	SinceStart float64   `json:"budget_used"`
	LastFrom   time.Time `json:"last_stretch_from"`
	Last       float64   `json:"budget_used_last_stretch"`
}

// readRun reads the latest run's budget account.
func (st *Status) readRun(s *store.Store) error {
	r, ok, err := s.LatestRun()
	if err != nil || !ok {
		return err
	}
	used := func(n int64, from time.Time) float64 {
		if d := r.At.Sub(from).Seconds(); r.Budget > 0 && d > 0 {
			return float64(n) / (r.Budget * d)
		}
		return 0
	}
	st.LastRun = &RunBudget{Started: r.Started, Ended: r.At, Budget: r.Budget, Requests: r.Requests,
		SinceStart: used(r.Requests, r.Started), LastFrom: r.Mark, Last: used(r.Requests-r.MarkRequests, r.Mark)}
	return nil
}

// Rates summarises the change-rate estimates of the pages held and
// the trust the crawler places in its sites' validators.
type Rates struct {
	// Observed is the held pages with at least one revisit compared with
	// the visit before; Observations sums those comparisons.
	Observed     int64 `json:"pages_observed"`
	Observations int64 `json:"observations"`
	// Median is the median estimated rate of the held pages, in changes
	// per day; NaN-free: 0 when no page has an estimate.
	Median float64 `json:"median_changes_per_day"`
	// ByClass counts held pages by estimated rate (changes per day):
	// at least hourly, daily (1–24), weekly (1/7–1), monthly (1/30–1/7),
	// rarer.
	ByClass RateClasses `json:"pages_by_rate"`
	// Sites counts the hosts whose Last-Modified the crawler trusts,
	// distrusts (it disagreed with the content), or has not yet judged.
	LMTrusted    int `json:"sites_last_modified_trusted"`
	LMDistrusted int `json:"sites_last_modified_distrusted"`
	LMUnproven   int `json:"sites_last_modified_unproven"`
	// SitemapTrusted and SitemapDistrusted count the hosts whose sitemap
	// lastmod dates the crawler trusts, and those it caught claiming a
	// change that did not happen.
	SitemapTrusted    int `json:"sites_sitemap_lastmod_trusted"`
	SitemapDistrusted int `json:"sites_sitemap_lastmod_distrusted"`
}

// RateClasses counts pages by estimated change rate.
type RateClasses struct {
	Hourly  int64 `json:"hourly_or_more"`
	Daily   int64 `json:"daily"`
	Weekly  int64 `json:"weekly"`
	Monthly int64 `json:"monthly"`
	Rarer   int64 `json:"rarer"`
}

func (c *RateClasses) add(perDay float64) {
	switch {
	case perDay >= 24:
		c.Hourly++
	case perDay >= 1:
		c.Daily++
	case perDay >= 1.0/7:
		c.Weekly++
	case perDay >= 1.0/30:
		c.Monthly++
	default:
		c.Rarer++
	}
}

// StatusClasses counts page rows by the HTTP status class of their last
// fetch: NotModified is 304 (the held copy is current), Redirect the other
// 3xx; Network is fetches that got no HTTP answer.
type StatusClasses struct {
	Success     int64 `json:"2xx"`
	NotModified int64 `json:"304"`
	Redirect    int64 `json:"3xx_redirect"`
	ClientError int64 `json:"4xx"`
	ServerError int64 `json:"5xx"`
	Network     int64 `json:"network_failure"`
	Other       int64 `json:"other"`
}

func (c *StatusClasses) add(status int) {
	switch {
	case status == 0:
		c.Network++
	case status >= 200 && status < 300:
		c.Success++
	case status == 304:
		c.NotModified++
	case status >= 300 && status < 400:
		c.Redirect++
	case status >= 400 && status < 500:
		c.ClientError++
	case status >= 500 && status < 600:
		c.ServerError++
	default:
		c.Other++
	}
}

// WARCFiles describes the WARC files of a data directory: how many, their
// total size, and the newest by modification time (ties to the greater
// name).
type WARCFiles struct {
	Files      int       `json:"files"`
	Bytes      int64     `json:"bytes"`
	Newest     string    `json:"newest,omitempty"`
	NewestTime time.Time `json:"newest_modified,omitzero"`
}

// ErrNoCrawl is returned (wrapped) by ReadStatus when the data directory
// is missing, cannot be looked at, or holds no crawl.
var ErrNoCrawl = errors.New("no crawl in the data directory")

// noCrawlError is an ErrNoCrawl that says in its own words what was found
// instead, and wraps the error that found it, if any.
type noCrawlError struct {
	msg   string
	cause error
}

func (e *noCrawlError) Error() string { return e.msg }

func (e *noCrawlError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrNoCrawl}
	}
	return []error{ErrNoCrawl, e.cause}
}

// ReadStatus reads the data directory dir of a crawl that is not running;
// now decides which revisits are overdue. It writes nothing. A directory
// that is missing or holds no crawl is an error wrapping ErrNoCrawl; one a
// crawl is running on, an error wrapping store.ErrLocked. It reads every
// page row, so on a large crawl it takes a while.
func ReadStatus(dir string, now time.Time) (Status, error) {
	s, err := Open(dir)
	if err != nil {
		return Status{}, err
	}
	defer s.Close()
	return StatusOf(s, dir, now)
}

// StatusOf is ReadStatus of the open store s of the data directory dir:
// a running crawl's own, whose reads see a consistent snapshot of each
// part (the parts are read one after the other).
func StatusOf(s *store.Store, dir string, now time.Time) (Status, error) {
	return statusOf(s, dir, now, nil)
}

// statusOf is StatusOf, calling onPage (if set) with every page row as
// the status reads it, so that a caller wanting more of the rows needs no
// second pass over them (cluster.go).
func statusOf(s *store.Store, dir string, now time.Time, onPage func(store.Page)) (Status, error) {
	st := Status{Dir: dir}
	var err error
	st.Seen = s.SeenCount()
	if st.Held, err = s.Held(); err != nil {
		return Status{}, err
	}
	if err := st.readQueues(s); err != nil {
		return Status{}, err
	}
	if err := st.readPages(s, now, onPage); err != nil {
		return Status{}, err
	}
	if st.ScopeHosts, st.ScopeSites, err = s.Scope(); err != nil {
		return Status{}, err
	}
	if err := st.Rates.readSites(s); err != nil {
		return Status{}, err
	}
	if err := st.readRun(s); err != nil {
		return Status{}, err
	}
	if st.WARC, err = readWARCDir(filepath.Join(dir, "warc")); err != nil {
		return Status{}, err
	}
	return st, nil
}

// readSites judges each host's Last-Modified and sitemaps as the crawler
// does.
func (r *Rates) readSites(s *store.Store) error {
	return s.ForEachHostState(func(_ string, hs store.HostState, err error) error {
		if err != nil {
			return err
		}
		switch {
		case refresh.Trusted(hs.LastModified):
			r.LMTrusted++
		case refresh.Distrusted(hs.LastModified):
			r.LMDistrusted++
		default:
			r.LMUnproven++
		}
		switch {
		case refresh.Trusted(hs.Sitemap):
			r.SitemapTrusted++
		case refresh.Distrusted(hs.Sitemap):
			r.SitemapDistrusted++
		}
		return nil
	})
}

// Open opens the store of the existing data directory dir for reading. A
// directory that is missing or holds no crawl is an error wrapping
// ErrNoCrawl; one a crawl is running on, an error wrapping
// store.ErrLocked.
func Open(dir string) (*store.Store, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &noCrawlError{msg: "no data directory " + dir, cause: err}
	case err != nil:
		return nil, &noCrawlError{msg: err.Error(), cause: err}
	case !fi.IsDir():
		return nil, &noCrawlError{msg: dir + " is not a directory"}
	}
	// Pebble would create a store where there is none; a data directory
	// has state/ with Pebble's OPTIONS file in it.
	state := filepath.Join(dir, "state")
	if opts, _ := filepath.Glob(filepath.Join(state, "OPTIONS-*")); len(opts) == 0 {
		return nil, &noCrawlError{msg: dir + " is not a crawl data directory (no Pebble store in " + state + ")"}
	}
	// Status reads each block about once; a small cache does.
	return store.Open(state, store.Options{CacheSize: 8 << 20, ReadOnly: true})
}

// readQueues counts the queued URLs and the hosts with revisits due.
func (st *Status) readQueues(s *store.Store) error {
	err := s.Hosts(func(_ string, n int) error {
		st.Queued += int64(n)
		st.QueueHosts++
		return nil
	})
	if err != nil {
		return err
	}
	return s.DueHosts(func(_ string, next time.Time) error {
		st.DueHosts++
		if st.NextDue.IsZero() || next.Before(st.NextDue) {
			st.NextDue = next
		}
		return nil
	})
}

// readPages sums the page rows, sitemaps apart, and hands each to onPage
// if set; a revisit due at or before now is overdue.
func (st *Status) readPages(s *store.Store, now time.Time, onPage func(store.Page)) error {
	var rates []float64
	defer func() {
		if len(rates) > 0 {
			slices.Sort(rates)
			st.Rates.Median = rates[len(rates)/2]
		}
	}()
	return s.ForEachPage(func(p store.Page) error {
		if onPage != nil {
			onPage(p)
		}
		if p.Held && p.Kind == store.KindPage && p.Rate > 0 {
			perDay := p.Rate * 86400
			rates = append(rates, perDay)
			st.Rates.ByClass.add(perDay)
			var cs change.Stats
			if cs.UnmarshalBinary(p.Change) == nil && cs.Count() > 0 {
				st.Rates.Observed++
				st.Rates.Observations += int64(cs.Count())
			}
		}
		st.Fetches += uint64(p.Fetches)
		st.Changes += uint64(p.Changes)
		if p.Kind == store.KindSitemap {
			st.SitemapRows++
		} else {
			st.Rows++
			st.ByClass.add(p.Status)
			if p.Held {
				st.HeldRows++
			}
		}
		if !p.NextDue.IsZero() {
			st.Scheduled++
			if !p.NextDue.After(now) {
				st.Overdue++
			}
		}
		if p.LastFetch.After(st.LastFetch) {
			st.LastFetch = p.LastFetch
		}
		return nil
	})
}

// readWARCDir sums the WARC files in dir, which may not exist.
func readWARCDir(dir string) (WARCFiles, error) {
	var w WARCFiles
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return w, nil
	}
	if err != nil {
		return w, err
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !(strings.HasSuffix(name, ".warc.gz") || strings.HasSuffix(name, ".warc")) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			return w, err
		}
		w.Files++
		w.Bytes += fi.Size()
		if fi.ModTime().After(w.NewestTime) || fi.ModTime().Equal(w.NewestTime) && name > w.Newest {
			w.Newest, w.NewestTime = name, fi.ModTime()
		}
	}
	return w, nil
}
