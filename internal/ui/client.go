package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"
)

// Fetch reads /api/status from the crawl serving addr (host:port, or a
// URL), within timeout; it returns the document and its bytes.
func Fetch(addr string, timeout time.Duration) (Doc, []byte, error) {
	u := addr
	if !strings.Contains(u, "://") {
		u = "http://" + u
	}
	u = strings.TrimSuffix(u, "/") + "/api/status"
	client := &http.Client{Timeout: timeout}
	resp, err := client.Get(u)
	if err != nil {
		return Doc{}, nil, fmt.Errorf("no crawl answering at %s: %w", addr, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return Doc{}, nil, fmt.Errorf("%s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return Doc{}, nil, fmt.Errorf("%s: %s", u, resp.Status)
	}
	var doc Doc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return Doc{}, nil, fmt.Errorf("%s is not a freshcrawl crawl's status: %w", u, err)
	}
	return doc, raw, nil
}

// WriteText prints the running figures as label-value lines, below the
// status table.
func (l Live) WriteText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(label, format string, args ...any) {
		fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{label}, args...)...)
	}
	line("running since", "%s, policy %s%s", l.Started.UTC().Format(time.RFC3339), l.Policy, parenthesised(l.Objective))
	line("this run", "%d requests, %d pages fetched, %d changes found, %d not modified, %d failures",
		l.Requests, l.Pages, l.Changed, l.NotModified, l.Failures)
	if l.Budget > 0 {
		line("budget used", "%.1f%% of %g/s since the start", 100*l.BudgetUsed, l.Budget)
	}
	line("now", "%d pages held, %d URLs queued, %d requests in flight; %d hosts known", l.Held, l.Queued, l.InFlight, l.Hosts)
	if l.Expected != nil && l.Age != nil {
		line("expected", "freshness %.3f, age %s, over the %d pages with a revisit interval (%d without)",
			*l.Expected, time.Duration(*l.Age*float64(time.Second)).Round(time.Second), l.Planned, l.Unplanned)
	} else {
		line("expected", "nothing yet: no page held has a revisit interval")
	}
	if l.Truth != nil {
		line("true freshness", "%.3f (the web's truth)", *l.Truth)
	}
	tw.Flush()
}

func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}
