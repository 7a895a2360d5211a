package crawler

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/datadir"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// ReadStatus of a crawled data directory agrees exactly with what the
// crawl reported as it went (OnFetch events and Stats), with the seeds,
// with the WARC files listed here, and with the revisit times of the page
// rows read here.
func TestReadStatus(t *testing.T) {
	// The crawl runs in a bubble; the data directory outlives it.
	dir := t.TempDir()
	var want datadir.Status
	type statusCase struct {
		name    string
		now     time.Time
		overdue int64
	}
	var tests []statusCase
	bubble(t, func(t *testing.T) {
		sc := simweb.DefaultConfig()
		sc.Hosts, sc.PagesPerHost, sc.Churn = 3, 100, 20
		// A simulated day a second, and pages that die 20 times as often as
		// on the web of ch. 4: between fetches pages change, die and are
		// born, so rows end in 2xx, 304 and 404.
		web, addr := testWeb(t, sc, 86400)
		cfg := testConfig(t, dir, addr)
		cfg.Seeds = seedsOf(web)
		cfg.Delay = 10 * time.Millisecond
		// Revisits within the run give rows whose last fetch is a 304; the
		// run ends with URLs still queued.
		cfg.Revisit = 500 * time.Millisecond
		cfg.WARCMaxSize = 256 << 10 // several WARC files
		last := map[string]Event{}  // the last event of each URL
		var events, changed int64
		var lastFetch time.Time
		cfg.OnFetch = func(e Event) {
			e.Body = nil
			last[e.URL] = e
			events++
			if e.Changed {
				changed++
			}
			if e.Time.After(lastFetch) {
				lastFetch = e.Time
			}
		}
		start := time.Now()
		c := newCrawler(t, cfg)
		runFor(t, c, 1500*time.Millisecond)
		stats := c.Stats()
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if stats.Held == 0 {
			t.Fatalf("the crawl held no page: %+v", stats)
		}

		// What the crawl reported.
		want = datadir.Status{
			Dir: dir, Seen: stats.Seen, Held: stats.Held, Queued: int64(stats.Queued),
			Fetches: uint64(events), Changes: uint64(changed), LastFetch: lastFetch,
		}
		byCode := map[int]int64{}
		for _, e := range last {
			if e.Sitemap {
				want.SitemapRows++
				continue
			}
			want.Rows++
			byCode[e.Status]++
			if e.Held {
				want.HeldRows++
			}
		}
		codes := func(lo, hi int) int64 {
			var n int64
			for code, k := range byCode {
				if code >= lo && code <= hi {
					n += k
				}
			}
			return n
		}
		want.ByClass = datadir.StatusClasses{
			Success: codes(200, 299), NotModified: codes(304, 304), Redirect: codes(300, 399) - codes(304, 304),
			ClientError: codes(400, 499), ServerError: codes(500, 599), Network: codes(0, 0),
		}
		want.ByClass.Other = want.Rows - codes(0, 0) - codes(200, 599)
		// Revisits every 500 ms in a run of 1.5 s: some find the page
		// changed, some not.
		if want.ByClass.Success == 0 || want.ByClass.NotModified == 0 {
			t.Errorf("rows by last status %v: want some 2xx and some 304", byCode)
		}

		// The seeds set the scope.
		for _, s := range cfg.Seeds {
			h := urlx.Host(s)
			want.ScopeHosts = append(want.ScopeHosts, h)
			want.ScopeSites = append(want.ScopeSites, urlx.SiteKey(h))
		}
		slices.Sort(want.ScopeHosts)
		slices.Sort(want.ScopeSites)
		want.ScopeSites = slices.Compact(want.ScopeSites)

		// The WARC files the crawl wrote; a file of another name and a
		// directory named like a WARC file do not count.
		warcDir := filepath.Join(dir, "warc")
		names, err := filepath.Glob(filepath.Join(warcDir, "*.warc.gz"))
		if err != nil || len(names) == 0 {
			t.Fatalf("WARC files %q, %v", names, err)
		}
		if err := os.WriteFile(filepath.Join(warcDir, "notes.txt"), []byte("not a WARC file"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(warcDir, "old.warc.gz"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			fi, err := os.Stat(name)
			if err != nil {
				t.Fatal(err)
			}
			want.WARC.Files++
			want.WARC.Bytes += fi.Size()
			if !fi.ModTime().Before(want.WARC.NewestTime) {
				want.WARC.Newest, want.WARC.NewestTime = filepath.Base(name), fi.ModTime()
			}
		}

		// The page rows' revisit times and the hosts with a queue.
		s, err := store.Open(filepath.Join(dir, "state"), store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		var due []time.Time
		dueHosts := map[string]bool{}
		var rates []float64
		err = s.ForEachPage(func(p store.Page) error {
			if !p.NextDue.IsZero() {
				due = append(due, p.NextDue)
				dueHosts[urlx.Host(p.URL)] = true
			}
			if p.Held && p.Kind == store.KindPage && p.Rate > 0 {
				rates = append(rates, p.Rate*86400)
				var cs change.Stats
				if err := cs.UnmarshalBinary(p.Change); err != nil {
					return err
				}
				if cs.Count() > 0 {
					want.Rates.Observed++
					want.Rates.Observations += int64(cs.Count())
				}
			}
			return nil
		})
		hostStates := 0
		if err == nil {
			err = s.ForEachHostState(func(string, store.HostState, error) error {
				hostStates++
				return nil
			})
		}
		if err == nil {
			err = s.Hosts(func(_ string, n int) error {
				if n > 0 {
					want.QueueHosts++
				}
				return nil
			})
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		// Revisits every 500 ms: every held page has an estimate, and those
		// revisited have observations.
		if int64(len(rates)) != stats.Held || want.Rates.Observed == 0 {
			t.Errorf("%d of %d pages held have a change rate, %d have observations: want all, some",
				len(rates), stats.Held, want.Rates.Observed)
		}
		if len(rates) > 0 {
			slices.Sort(rates)
			want.Rates.Median = rates[len(rates)/2]
		}
		slices.SortFunc(due, time.Time.Compare)
		if len(due) < int(stats.Held) {
			t.Fatalf("%d revisits scheduled for %d pages held", len(due), stats.Held)
		}
		want.Scheduled, want.DueHosts, want.NextDue = int64(len(due)), len(dueHosts), due[0]

		// How the rates and the hosts' validators fall into classes is
		// datadir's test (TestReadStatusRows); here every page with a rate
		// and every host the crawl judged must be in one.
		got, err := datadir.ReadStatus(dir, start)
		if err != nil {
			t.Fatal(err)
		}
		r, classes := got.Rates, got.Rates.ByClass
		if n := classes.Hourly + classes.Daily + classes.Weekly + classes.Monthly + classes.Rarer; n != int64(len(rates)) {
			t.Errorf("%d held pages by rate class, %d have a rate", n, len(rates))
		}
		if n := r.LMTrusted + r.LMDistrusted + r.LMUnproven; n != hostStates || n == 0 {
			t.Errorf("%d hosts judged by Last-Modified, %d host records", n, hostStates)
		}
		want.Rates.ByClass = classes
		want.Rates.LMTrusted, want.Rates.LMDistrusted, want.Rates.LMUnproven = r.LMTrusted, r.LMDistrusted, r.LMUnproven
		want.Rates.SitemapTrusted, want.Rates.SitemapDistrusted = r.SitemapTrusted, r.SitemapDistrusted

		// The run's account: all its requests, from when Run began to its
		// last commit; no budget, so no share of one. The run is shorter
		// than store.RunWindow: its last stretch is all of it.
		lr := got.LastRun
		if lr == nil || lr.Ended.Before(lastFetch) || lr.Ended.After(stats.At) {
			t.Fatalf("last run %+v; the last fetch at %v, the run ended by %v", lr, lastFetch, stats.At)
		}
		want.LastRun = &datadir.RunBudget{Started: stats.Started, Ended: lr.Ended, Requests: stats.Requests, LastFrom: stats.Started}

		// A revisit is overdue at now if it is due at or before now: none
		// before the first (a revisit a sweep pulled forward is due before
		// the crawl began: before its page's last check), all after the
		// last, and the ties at the ends.
		first, lastDue := due[0], due[len(due)-1]
		ties := func(at time.Time) int64 {
			var n int64
			for _, d := range due {
				if d.Equal(at) {
					n++
				}
			}
			return n
		}
		tests = []statusCase{
			{"before the first revisit", first.Add(-time.Nanosecond), 0},
			{"at the first revisit", first, ties(first)},
			{"just before the last revisit", lastDue.Add(-time.Nanosecond), int64(len(due)) - ties(lastDue)},
			{"after the last revisit", lastDue.Add(time.Hour), int64(len(due))},
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := datadir.ReadStatus(dir, tt.now)
			if err != nil {
				t.Fatal(err)
			}
			want := want
			want.Overdue = tt.overdue
			lastRun := *want.LastRun
			want.LastRun = &lastRun
			// Times are compared as instants: the store keeps neither
			// the location nor the monotonic reading.
			for _, p := range []struct{ got, want *time.Time }{
				{&got.LastFetch, &want.LastFetch}, {&got.NextDue, &want.NextDue}, {&got.WARC.NewestTime, &want.WARC.NewestTime},
				{&got.LastRun.Started, &want.LastRun.Started}, {&got.LastRun.LastFrom, &want.LastRun.LastFrom},
			} {
				if p.got.Equal(*p.want) {
					*p.got = *p.want
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ReadStatus:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}
