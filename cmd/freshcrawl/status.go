package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// dataStatus is what a data directory holds. Its JSON form is the output of
// status -json.
type dataStatus struct {
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
	Rows        int64       `json:"page_rows"`
	ByClass     statusClass `json:"page_rows_by_status"`
	SitemapRows int64       `json:"sitemap_rows"`
	// Fetches and Changes are summed over the rows, sitemaps included.
	Fetches   uint64    `json:"fetches"`
	Changes   uint64    `json:"changes"`
	LastFetch time.Time `json:"last_fetch,omitzero"`
	// ScopeHosts and ScopeSites are the seeds' hosts and sites.
	ScopeHosts []string   `json:"scope_hosts"`
	ScopeSites []string   `json:"scope_sites"`
	WARC       warcStatus `json:"warc"`
}

// statusClass counts page rows by the HTTP status class of their last
// fetch: NotModified is 304 (the held copy is current), Redirect the other
// 3xx; Network is fetches that got no HTTP answer.
type statusClass struct {
	Success     int64 `json:"2xx"`
	NotModified int64 `json:"304"`
	Redirect    int64 `json:"3xx_redirect"`
	ClientError int64 `json:"4xx"`
	ServerError int64 `json:"5xx"`
	Network     int64 `json:"network_failure"`
	Other       int64 `json:"other"`
}

func (c *statusClass) add(status int) {
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

// warcStatus describes the WARC files of a data directory.
type warcStatus struct {
	Files      int       `json:"files"`
	Bytes      int64     `json:"bytes"`
	Newest     string    `json:"newest,omitempty"`
	NewestTime time.Time `json:"newest_modified,omitzero"`
}

func statusHelp(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, `Usage: freshcrawl status [-data DIR] [-json]

Show what a crawl's data directory holds: URLs seen, pages held, the queues,
the revisits scheduled, the page rows by the status of their last fetch,
fetches and changes, the scope the seeds set, and the WARC files. It reads
the whole state, so on a large crawl it takes a while. It cannot read a
directory a crawl is running in (the store is locked); stop the crawl first.

Flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// statusFlags defines the status command's flags.
func statusFlags(dir *string, asJSON *bool) *flag.FlagSet {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	// Parse errors are reported by runStatus in one line; -h by statusHelp.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(dir, "data", defaultDataDir, "data `directory` of the crawl")
	fs.BoolVar(asJSON, "json", false, "print one JSON object instead of a table")
	return fs
}

func runStatus(args []string, stdout, stderr io.Writer) int {
	var dir string
	var asJSON bool
	fs := statusFlags(&dir, &asJSON)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			statusHelp(fs, stdout)
			return 0
		}
		fmt.Fprintf(stderr, "freshcrawl status: %v (see -h)\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "freshcrawl status: unexpected arguments %q\n", fs.Args())
		return 2
	}
	st, err := readStatus(dir, time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl status: %v\n", err)
		var ue usageError
		if errors.As(err, &ue) {
			return 2
		}
		return 1
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(st); err != nil {
			fmt.Fprintf(stderr, "freshcrawl status: %v\n", err)
			return 1
		}
		return 0
	}
	st.writeText(stdout, time.Now())
	return 0
}

// readStatus reads the data directory dir; now decides which revisits are
// overdue.
func readStatus(dir string, now time.Time) (*dataStatus, error) {
	s, err := openDataDir(dir)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	st := &dataStatus{Dir: dir, Seen: s.SeenCount(), ScopeHosts: []string{}, ScopeSites: []string{}}
	if st.Held, err = s.Counter("held"); err != nil {
		return nil, err
	}
	err = s.Hosts(func(_ string, n int) error {
		st.Queued += int64(n)
		st.QueueHosts++
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = s.DueHosts(func(_ string, next time.Time) error {
		st.DueHosts++
		if st.NextDue.IsZero() || next.Before(st.NextDue) {
			st.NextDue = next
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = s.ForEachPage(func(p store.Page) error {
		st.Fetches += uint64(p.Fetches)
		st.Changes += uint64(p.Changes)
		if p.Kind == crawler.KindSitemap {
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
	if err != nil {
		return nil, err
	}
	err = s.Settings("scope/", func(name, _ string) error {
		if h, ok := strings.CutPrefix(name, "scope/host/"); ok {
			st.ScopeHosts = append(st.ScopeHosts, h)
		} else if site, ok := strings.CutPrefix(name, "scope/site/"); ok {
			st.ScopeSites = append(st.ScopeSites, site)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if st.WARC, err = readWARCDir(filepath.Join(dir, "warc")); err != nil {
		return nil, err
	}
	return st, nil
}

// readWARCDir sums the WARC files in dir, which may not exist.
func readWARCDir(dir string) (warcStatus, error) {
	var w warcStatus
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
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

// writeText prints st as aligned label-value lines; now gives the relative
// times.
func (st *dataStatus) writeText(w io.Writer, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(label, format string, args ...any) {
		fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{label}, args...)...)
	}
	line("data directory", "%s", st.Dir)
	line("URLs seen", "%d", st.Seen)
	if st.Held == st.HeldRows {
		line("pages held", "%d", st.Held)
	} else {
		line("pages held", "%d (but %d page rows are marked held: the state is inconsistent)", st.Held, st.HeldRows)
	}
	line("URLs queued", "%d on %d hosts", st.Queued, st.QueueHosts)
	if st.Scheduled > 0 || st.DueHosts > 0 {
		line("revisits", "%d scheduled on %d hosts, %d due now; next %s", st.Scheduled, st.DueHosts, st.Overdue, when(st.NextDue, now))
	} else {
		line("revisits", "none scheduled")
	}
	c := st.ByClass
	line("page rows", "%d: 2xx %d, 304 %d, 3xx redirect %d, 4xx %d, 5xx %d, network failure %d%s; and %d sitemaps",
		st.Rows, c.Success, c.NotModified, c.Redirect, c.ClientError, c.ServerError, c.Network, other(c.Other), st.SitemapRows)
	line("fetches", "%d, %d of them found a change (sitemaps included)", st.Fetches, st.Changes)
	if st.LastFetch.IsZero() {
		line("last fetch", "never")
	} else {
		line("last fetch", "%s", when(st.LastFetch, now))
	}
	line("scope", "%s; %s", names(len(st.ScopeHosts), "host", st.ScopeHosts), names(len(st.ScopeSites), "site", st.ScopeSites))
	if st.WARC.Files == 0 {
		line("WARC files", "none")
	} else {
		line("WARC files", "%d, %s; newest %s", st.WARC.Files, byteSize(st.WARC.Bytes), st.WARC.Newest)
	}
	tw.Flush()
}

// when formats t in UTC with its distance from now.
func when(t, now time.Time) string {
	d := t.Sub(now).Round(time.Second)
	switch {
	case d > 0:
		return fmt.Sprintf("%s (in %v)", t.UTC().Format(time.RFC3339), d)
	case d < 0:
		return fmt.Sprintf("%s (%v ago)", t.UTC().Format(time.RFC3339), -d)
	default:
		return fmt.Sprintf("%s (now)", t.UTC().Format(time.RFC3339))
	}
}

func other(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", other %d", n)
}

// names is "3 hosts (a, b, c)", the list cut after a few.
func names(n int, noun string, list []string) string {
	if n != 1 {
		noun += "s"
	}
	if n == 0 {
		return "0 " + noun
	}
	const show = 4
	shown := append([]string(nil), list...)
	sort.Strings(shown)
	more := ""
	if len(shown) > show {
		more = fmt.Sprintf(", … %d more", len(shown)-show)
		shown = shown[:show]
	}
	return fmt.Sprintf("%d %s (%s%s)", n, noun, strings.Join(shown, ", "), more)
}
