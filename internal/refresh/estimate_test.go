package refresh

import (
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

func TestGroupOf(t *testing.T) {
	tests := []struct{ url, want string }{
		{"http://h0-edu.test/", ""},
		{"http://h0-edu.test/about.html", ""},
		{"http://h0-edu.test/news/19.html", "news"},
		{"http://h0-edu.test/news/", "news"},
		{"http://h0-edu.test/news/2026/11/a.html", "news"},
		{"http://h0-edu.test/news?page=2/3", ""},
		{"https://example.com:8443/shop/item/9#top", "shop"},
		{"http://h0-edu.test", ""},
		{"not a url", ""},
	}
	for _, tt := range tests {
		if got := GroupOf(tt.url); got != tt.want {
			t.Errorf("GroupOf(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

// TestPreObservations checks the span a trusted modification time adds
// before a page's first check: from the modification time to the first
// check, which is the previous check less the unchanged time already
// observed; nothing once a change or a modification time has been seen.
func TestPreObservations(t *testing.T) {
	const day = 86400.0
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ago := func(days float64) time.Time { return now.Add(-time.Duration(days * day * float64(time.Second))) }
	unchanged := func(n int) *change.Stats {
		var s change.Stats
		for i := range n {
			s.Add(change.Observation{Interval: 2 * day, SinceModified: -1}, seconds(ago(float64(2*(n-1-i)))))
		}
		return &s
	}
	withChange := unchanged(2)
	withChange.Add(change.Observation{Interval: 2 * day, Changed: true, SinceModified: -1}, seconds(now))
	withLM := unchanged(2)
	withLM.Add(change.Observation{Interval: 2 * day, SinceModified: 30 * day}, seconds(now))
	cases := []struct {
		name     string
		s        *change.Stats
		modified time.Time
		span     float64 // days; 0 for no pre-observations
	}{
		{"first comparison", &change.Stats{}, ago(100), 100},
		{"after three unchanged", unchanged(3), ago(100), 94},
		{"modified after the first check", unchanged(3), ago(5), 0},
		{"a change seen", withChange, ago(100), 0},
		{"a modification time seen", withLM, ago(100), 0},
		{"no modification time", unchanged(3), time.Time{}, 0},
	}
	for _, tc := range cases {
		pre := preObservations(tc.s, now, tc.modified)
		if tc.span == 0 {
			if pre != nil {
				t.Errorf("%s: %+v, want none", tc.name, pre)
			}
			continue
		}
		if len(pre) != 2 || math.Abs(pre[0].Interval/day-tc.span) > 1e-6 || pre[0].Changed || !pre[1].Changed || pre[1].Interval > pre[0].Interval*1e-5 {
			t.Errorf("%s: %+v, want an unchanged span of %g days and a vanishing changed one", tc.name, pre, tc.span)
		}
	}
}

// TestUpdatePopulation checks the host's incremental mixing weights: each
// page counts once however often it is revisited (its old posterior is
// removed as its new one is added), and a page that changed at each of
// five visits 5 days apart, in a host whose other pages did too, is
// estimated by change.Empirical at many changes a day where the
// prior-seeded MLE (the fallback) says about one in 2.5 days.
func TestUpdatePopulation(t *testing.T) {
	const day = 86400.0
	var hc hostChange
	visit := func(s *change.Stats, i int) {
		before := *s
		s.Add(change.Observation{Interval: 5 * day, Changed: true, SinceModified: -1}, float64(i+1)*5*day)
		hc.updatePopulation(&before, s)
	}
	pages := make([]change.Stats, popMin)
	for i := range 5 {
		for p := range pages {
			visit(&pages[p], i)
		}
	}
	if n := hc.pop.N(); math.Abs(n-popMin) > 1e-9 {
		t.Fatalf("population of %g pages, want %d", n, popMin)
	}
	auto := change.Auto{Prior: change.Paper001Prior()}
	eb := change.Empirical{Pop: &hc.pop, Fallback: auto}.Estimate(&pages[0])
	if eb.Rate < 5/day { // r = λ/f > 25 at the visits' 5 days: a page the plan gives up
		t.Errorf("empirical Bayes %g changes a day, want many", eb.Rate*day)
	}
	if old := auto.Estimate(&pages[0]); old.Rate > 1/day {
		t.Errorf("fallback %g a day: the case no longer shows the fault", old.Rate*day)
	}
}

// observeTest is a planned module whose clock stands at now, and a host of
// it, for the tests of Observe.
func observeTest(t *testing.T) (*Module, *Host, time.Time) {
	t.Helper()
	now := time.Unix(1e9, 0)
	m := plannedTest(t, Config{Budget: 10, Now: func() time.Time { return now }})
	return m, &Host{Name: "h.test"}, now
}

// TestObservePulled checks that a visit a signal pulled forward folds its
// comparison without its modification time, which is the signal's delay
// and not the page's pace, while a planned visit folds both, and so does
// a pulled one of a page expected to change in the interval (λI ≥ 1).
func TestObservePulled(t *testing.T) {
	m, h, now := observeTest(t)
	m.changeOf(h).state.LastModified = store.Agreement{Agree: trustAgree}
	checked := now.Add(-time.Hour)
	a := Answer{Status: 200, LastModified: now.Add(-time.Minute).Format(http.TimeFormat), Date: now.Format(http.TimeFormat)}
	for _, tt := range []struct {
		name   string
		due    time.Time
		rate   float64
		wantLM int
	}{
		{"planned", now, 0, 1},
		{"pulled", checked, 0, 0},
		{"pulled, expected to change", checked, 2.0 / 3600, 1}, // λI = 2
	} {
		prev := store.Page{URL: "http://h.test/p", Held: true, Checked: checked, LastFetch: checked, NextDue: tt.due,
			LastModified: checked.Add(-time.Hour).Format(http.TimeFormat), Rate: tt.rate}
		p := prev
		var v store.Visit
		m.Observe(h, &prev, true, a, true, &p, &v, now)
		var st change.Stats
		if err := st.UnmarshalBinary(p.Change); err != nil {
			t.Fatal(err)
		}
		if tt.wantLM == 0 && !v.Modified.IsZero() {
			t.Errorf("pulled visit recorded modified at %v", v.Modified)
		}
		if st.Count() != 1 || st.Changed() != 1 || st.LMCount() != tt.wantLM {
			t.Errorf("%s visit: %d comparisons, %v changed, %d with a modification time; want 1, 1, %d",
				tt.name, st.Count(), st.Changed(), st.LMCount(), tt.wantLM)
		}
	}
}

// TestSitemapModifiedAtRead checks the modification time a trusted
// sitemap gives a visit: its lastmod moved on by the time since the
// sitemap was read, the page being as old at the visit as at the read
// (here 10 minutes: lastmod 50 minutes ago, read 40 minutes ago); the
// lastmod itself for a row from before the read time was kept.
func TestSitemapModifiedAtRead(t *testing.T) {
	m, h, now := observeTest(t)
	m.changeOf(h).state.Sitemap = store.Agreement{Agree: trustAgree}
	checked := now.Add(-time.Hour)
	lm := now.Add(-50 * time.Minute)
	for _, tt := range []struct {
		name string
		read time.Time
		want time.Time
	}{
		{"read kept", now.Add(-40 * time.Minute), now.Add(-10 * time.Minute)},
		{"no read time", time.Time{}, lm},
	} {
		url := "http://h.test/" + tt.name
		txn := m.store.Begin()
		if err := txn.SetLastMod(url, lm, tt.read); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(); err != nil {
			t.Fatal(err)
		}
		prev := store.Page{URL: url, Held: true, Checked: checked, LastFetch: checked, NextDue: now}
		p := prev
		v := store.Visit{Time: now, Status: 200, Changed: true}
		a := Answer{Status: 200, Date: now.Format(http.TimeFormat)}
		m.Observe(h, &prev, true, a, true, &p, &v, now)
		if !v.Modified.Equal(tt.want) {
			t.Errorf("%s: modified %v before the visit, want %v", tt.name, now.Sub(v.Modified), now.Sub(tt.want))
		}
	}
}
