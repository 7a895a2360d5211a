package datadir

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteText prints st as aligned label-value lines, the table of
// freshcrawl status; now gives the relative times.
func (st Status) WriteText(w io.Writer, now time.Time) {
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
	if b := st.LastRun; b != nil && b.Budget > 0 {
		line("budget used", "%.1f%% of %g/s over the last run's last %v, %.1f%% over all of it (%v, %d requests, ended %s)",
			100*b.Last, b.Budget, b.Ended.Sub(b.LastFrom).Round(time.Second), 100*b.SinceStart,
			b.Ended.Sub(b.Started).Round(time.Second), b.Requests, when(b.Ended, now))
	}
	r := st.Rates
	if r.Median > 0 {
		b := r.ByClass
		line("change rates", "median %s; pages held changing hourly or more %d, daily %d, weekly %d, monthly %d, rarer %d",
			PerDay(r.Median), b.Hourly, b.Daily, b.Weekly, b.Monthly, b.Rarer)
		line("", "%d pages revisited, %d revisits compared (the rest have the prior's estimate)", r.Observed, r.Observations)
	} else {
		line("change rates", "none estimated yet")
	}
	line("Last-Modified", "trusted on %d hosts, distrusted on %d, unproven on %d; sitemap lastmod trusted on %d, distrusted on %d",
		r.LMTrusted, r.LMDistrusted, r.LMUnproven, r.SitemapTrusted, r.SitemapDistrusted)
	line("scope", "%s; %s", names(len(st.ScopeHosts), "host", st.ScopeHosts), names(len(st.ScopeSites), "site", st.ScopeSites))
	if st.WARC.Files == 0 {
		line("WARC files", "none")
	} else {
		line("WARC files", "%d, %s; newest %s", st.WARC.Files, ByteSize(st.WARC.Bytes), st.WARC.Newest)
	}
	tw.Flush()
}

// PerDay formats a change rate given in changes per day in human units.
func PerDay(r float64) string {
	switch {
	case r >= 1:
		return fmt.Sprintf("%.3g changes/day", r)
	case r >= 1.0/7:
		return fmt.Sprintf("%.3g changes/week", r*7)
	default:
		return fmt.Sprintf("%.3g changes/month", r*30)
	}
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

// ByteSize formats n bytes with a binary prefix.
func ByteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
