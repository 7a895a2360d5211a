package refresh

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// TestBurstSweep checks that a host whose pages, expected to change one
// time in ten, all change at once is found in a sweep after a few
// comparisons, with the share the estimates did not expect; that pages
// expected to change are no sign of one; and the cooldown.
func TestBurstSweep(t *testing.T) {
	now := time.Unix(1e9, 0)
	rate, iv := -math.Log(0.9)/100, 100.0 // a change in 100 s with probability 0.1
	var b burst
	fired, at := 0.0, 0
	for i := range 20 {
		if s := b.note(rate, iv, true, now, time.Hour); s > 0 && fired == 0 {
			fired, at = s, i+1
		}
	}
	if at == 0 || at > 6 {
		t.Fatalf("sweep found after %d comparisons, want within 6", at)
	}
	if fired < 0.9 {
		t.Errorf("share %v, want near 1: every page changed", fired)
	}
	b = burst{}
	for i := range 50 {
		if s := b.note(1, 100, true, now.Add(time.Duration(i)*time.Hour), time.Hour); s > 0 {
			t.Fatalf("pages expected to change, and changing, declared a sweep at %d", i)
		}
	}
	b = burst{}
	n := 0
	for i := range 40 {
		if b.note(rate, iv, true, now.Add(time.Duration(i)*time.Minute), time.Hour) > 0 {
			n++
		}
	}
	if n != 1 {
		t.Errorf("40 changes in 40 minutes, cooldown an hour: %d sweeps, want 1", n)
	}
}

// TestBurstFalseAlarms counts sweeps declared on a host whose pages change
// independently at the rates estimated (brute force: 100,000 comparisons
// at each of several change probabilities); there should be almost none.
func TestBurstFalseAlarms(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 4))
	for _, p := range []float64{0.05, 0.2, 0.35, 0.5} {
		var b burst
		rate := -math.Log(1-p) / 100
		now := time.Unix(1e9, 0)
		fires := 0
		const n = 100000
		for range n {
			now = now.Add(time.Minute)
			if b.note(rate, 100, r.Float64() < p, now, 0) > 0 {
				fires++
			}
		}
		t.Logf("p %v: %d sweeps", p, fires)
		if limit := n / 1000; fires > limit {
			t.Errorf("change probability %v: %d sweeps in %d comparisons, want at most %d", p, fires, n, limit)
		}
	}
}

// TestWorthPulling checks the price test: a revisit is brought forward
// when the share times the fresh time the earlier visit buys, the wait
// for a page that does not change and (1 − e^{−λT})/λ for one that does,
// beats the plan's multiplier, and never moved later.
func TestWorthPulling(t *testing.T) {
	now := time.Unix(1e9, 0)
	m := plannedTest(t, Config{Budget: 10, Now: func() time.Time { return now }})
	mu := m.multiplier()
	if !(mu > 0) {
		t.Fatalf("multiplier %v", mu)
	}
	at := now.Add(time.Second)
	wait := time.Duration(2 * mu / 0.5 * float64(time.Second)) // gain 2μ at share 0.5
	if !worthPulling(0.5, 0, at.Add(wait), at, mu) {
		t.Error("gain 2μ: not pulled forward")
	}
	if worthPulling(0.5, 0, at.Add(wait/3), at, mu) {
		t.Error("gain 2μ/3: pulled forward")
	}
	if worthPulling(1, 0, now.Add(time.Millisecond), at, 0) {
		t.Error("a revisit due before the time offered was moved later")
	}
	if worthPulling(0, 0, at.Add(wait), at, 0) {
		t.Error("no share changed: pulled forward")
	}
	// A page that changes again soon stays fresh only about 1/λ of the
	// wait: (1 − e^{−λT})/λ, here with λT = 4, 0.98/λ.
	lambda := 4 / wait.Seconds()
	if got, want := freshFor(lambda, wait.Seconds()), -math.Expm1(-4)/lambda; math.Abs(got-want) > 1e-12*want {
		t.Errorf("freshFor = %v, want %v", got, want)
	}
	if worthPulling(0.5, lambda, at.Add(wait), at, mu) {
		t.Error("a page changing 4 times in the wait, gain 0.49μ: pulled forward")
	}
	if !worthPulling(1, lambda, at.Add(wait), at, mu/2) {
		t.Error("a changed page changing 4 times in the wait, gain 1.96 times the price: not pulled forward")
	}
}

// TestSignalled checks that a trusted sitemap's lastmod brings forward the
// revisit of a page that changed after its last check, and only then.
func TestSignalled(t *testing.T) {
	now := time.Unix(1e9, 0)
	m := plannedTest(t, Config{Budget: 10, Now: func() time.Time { return now }})
	far := now.Add(1000 * time.Hour)
	pages := []store.Page{
		{URL: "http://h.test/changed", Held: true, Checked: now.Add(-time.Hour), NextDue: far},
		{URL: "http://h.test/unchanged", Held: true, Checked: now.Add(-time.Minute), NextDue: far},
		{URL: "http://h.test/soon", Held: true, Checked: now.Add(-time.Hour), NextDue: now.Add(time.Millisecond)},
	}
	txn := m.store.Begin()
	for _, p := range pages {
		if err := txn.PutPage(p, nil); err != nil {
			t.Fatal(err)
		}
		if err := txn.Schedule("h.test", p.URL, time.Time{}, p.NextDue); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	signals := []Signal{{pages[0].URL, now.Add(-30 * time.Minute)}, {pages[1].URL, now.Add(-30 * time.Minute)}, {pages[2].URL, now.Add(-30 * time.Minute)}}
	h := &Host{Name: "h.test", Delay: time.Second}
	run := func(since time.Time) int {
		txn := m.store.Begin()
		n, err := m.Signalled(txn, h, Answer{Status: 200}, signals, since, now, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Two pages changed after their check: the one due soon anyway is
	// claimed too, but left where it is; the other is pulled, on trial.
	if n := run(time.Time{}); n != 2 {
		t.Errorf("sitemap on trial: %d claimed, want 2", n)
	}
	if p, err := m.store.GetPage(pages[2].URL); err != nil || !p.NextDue.Equal(pages[2].NextDue) {
		t.Errorf("sitemap on trial moved the page due soon: due %v, %v", p.NextDue, err)
	}
	m.changeOf(h).state.Sitemap.Agree = trustAgree
	if n := run(time.Time{}); n != 1 {
		t.Errorf("trusted sitemap: %d claimed, want 1 (the page pulled on trial is not claimed twice)", n)
	}
	p, err := m.store.GetPage(pages[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	if want := pages[0].Checked; !p.NextDue.Equal(want) || !Pulled(&p) {
		t.Errorf("changed page due %v (pulled %v), want %v, its last check", p.NextDue, Pulled(&p), want)
	}
	if got := m.Postpone(h, &p, now); !got.IsZero() {
		t.Errorf("pulled page put off to %v by the plan", got)
	}
	due, err := m.store.Due("h.test", now.Add(time.Second), 10)
	if err != nil || len(due) != 2 {
		t.Fatalf("due index by a second from now: %v, %v; want the soon and the changed page", due, err)
	}
	if n := run(time.Time{}); n != 1 {
		t.Errorf("signalled again: %d claimed, want 1 (the page pulled already is not claimed twice)", n)
	}
	if n := run(now.Add(-10 * time.Minute)); n != 0 {
		t.Errorf("signalled again, the sitemap read since the changes: %d claimed, want 0 (none new)", n)
	}
	if due, err := m.store.Due("h.test", now.Add(time.Second), 10); err != nil || len(due) != 2 {
		t.Errorf("signalled again: due index %v, %v; want the same two", due, err)
	}
	m.changeOf(h).state.Sitemap = store.Agreement{Agree: 1, Disagree: 1}
	if n := run(time.Time{}); n != 0 {
		t.Errorf("distrusted sitemap: %d claimed, want 0", n)
	}
}

// TestTrialPulls checks that a sitemap on trial brings forward as many of
// its claims as trust still needs agreements, those least likely true by
// chance first, counting those pulled at an earlier read, and that a
// trusted or distrusted one pulls none on trial.
func TestTrialPulls(t *testing.T) {
	for _, c := range []struct {
		a    store.Agreement
		want int
	}{
		{store.Agreement{}, trustAgree},
		{store.Agreement{Agree: 2}, 3},
		{store.Agreement{Agree: 4}, 1},
		{store.Agreement{Agree: 30, Disagree: 2}, 0}, // distrusted
		{store.Agreement{Agree: 1, Disagree: 1}, 0},  // distrusted
		{store.Agreement{Agree: trustAgree}, 0},      // trusted
	} {
		if got := trialPulls(c.a); got != c.want {
			t.Errorf("trialPulls(%+v) = %d, want %d", c.a, got, c.want)
		}
	}

	now := time.Unix(1e9, 0)
	m := plannedTest(t, Config{Budget: 10, Now: func() time.Time { return now }})
	far := now.Add(1000 * time.Hour)
	var signals []Signal
	txn := m.store.Begin()
	for i := range 8 {
		p := store.Page{URL: fmt.Sprintf("http://h.test/%d", i), Held: true, Checked: now.Add(-time.Hour), NextDue: far, Rate: float64(8-i) * 1e-6}
		if err := cmp.Or(txn.PutPage(p, nil), txn.Schedule("h.test", p.URL, time.Time{}, p.NextDue)); err != nil {
			t.Fatal(err)
		}
		signals = append(signals, Signal{p.URL, now.Add(-30 * time.Minute)})
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	h := &Host{Name: "h.test", Delay: time.Second}
	m.changeOf(h).state.Sitemap = store.Agreement{Agree: 2}
	read := func() int {
		txn := m.store.Begin()
		if _, err := m.Signalled(txn, h, Answer{Status: 200}, signals, time.Time{}, now, nil); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(); err != nil {
			t.Fatal(err)
		}
		due, err := m.store.Due("h.test", now.Add(time.Hour), 100)
		if err != nil {
			t.Fatal(err)
		}
		return len(due)
	}
	if n := read(); n != 3 {
		t.Errorf("sitemap with 2 agreements: %d claims pulled on trial, want 3", n)
	}
	for i := range 8 { // the least likely to have changed: the slowest
		if p, err := m.store.GetPage(signals[i].URL); err != nil || Pulled(&p) != (i >= 5) {
			t.Errorf("page %d (rate %g): pulled %v, %v; want the three slowest pulled", i, p.Rate, Pulled(&p), err)
		}
	}
	if n := read(); n != 3 {
		t.Errorf("read again, the trials pending: %d pulled in all, want still 3", n)
	}
}

// TestSignalledUnchangedSpan checks that a page pulled on a trusted
// sitemap's claim has the span from its last check to the previous read,
// which did not claim it, folded as unchanged, and that a claim the
// previous read made already (not pulled then) folds nothing.
func TestSignalledUnchangedSpan(t *testing.T) {
	now := time.Unix(1e9, 0)
	m := plannedTest(t, Config{Budget: 10, Now: func() time.Time { return now }})
	checked, read0 := now.Add(-10*time.Hour), now.Add(-time.Hour)
	far := now.Add(1000 * time.Hour)
	quiet := store.Page{URL: "http://h.test/quiet", Held: true, Checked: checked, NextDue: far, Rate: 1e-7}
	early := store.Page{URL: "http://h.test/early", Held: true, Checked: checked, NextDue: far, Rate: 1e-7}
	txn := m.store.Begin()
	for _, c := range []struct {
		p  store.Page
		lm time.Time // what the read at read0 said
	}{{quiet, checked.Add(-time.Hour)}, {early, checked.Add(time.Hour)}} {
		err := cmp.Or(txn.PutPage(c.p, nil), txn.Schedule("h.test", c.p.URL, time.Time{}, c.p.NextDue), txn.SetLastMod(c.p.URL, c.lm, read0))
		if err != nil {
			t.Fatal(err)
		}
	}
	h := commitTrusted(t, m, txn)
	signals := []Signal{{quiet.URL, now.Add(-30 * time.Minute)}, {early.URL, now.Add(-30 * time.Minute)}}
	txn = m.store.Begin()
	_, err := m.Signalled(txn, h, Answer{Status: 200}, signals, read0, now, nil)
	if err := cmp.Or(err, txn.Commit()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p       store.Page
		checked time.Time
		span    float64
	}{{quiet, read0, read0.Sub(checked).Seconds()}, {early, checked, 0}} {
		p, err := m.store.GetPage(c.p.URL)
		if err != nil {
			t.Fatal(err)
		}
		var st change.Stats
		if len(p.Change) > 0 {
			if err := st.UnmarshalBinary(p.Change); err != nil {
				t.Fatal(err)
			}
		}
		visits, err := m.store.Visits(p.URL)
		if err != nil {
			t.Fatal(err)
		}
		var replayed change.Stats
		Replay(&replayed, append([]store.Visit{{Time: checked, Status: 200}}, visits...))
		if replayed.SumUnchanged() != c.span {
			t.Errorf("%s: the visits recorded replay to %v s unchanged, want %v", p.URL, replayed.SumUnchanged(), c.span)
		}
		if !Pulled(&p) || !p.Checked.Equal(c.checked) || st.SumUnchanged() != c.span || st.Changed() != 0 {
			t.Errorf("%s: pulled %v, checked %v, unchanged %v s, %v changed; want pulled, checked %v, unchanged %v s, none changed",
				p.URL, Pulled(&p), p.Checked, st.SumUnchanged(), st.Changed(), c.checked, c.span)
		}
	}
}

// commitTrusted commits txn and returns host h.test of m, its sitemaps
// trusted, with a delay of a second.
func commitTrusted(t *testing.T, m *Module, txn *store.Txn) *Host {
	t.Helper()
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	h := &Host{Name: "h.test", Delay: time.Second}
	m.changeOf(h).state.Sitemap = store.Agreement{Agree: trustAgree}
	return h
}

// TestSignalledUnlisted checks that a page its host's one trusted sitemap
// listed before and no longer lists is pulled, once: not one it still
// lists, not one it never listed, not one fetched since its last listing,
// and none on a host with two sitemaps.
func TestSignalledUnlisted(t *testing.T) {
	now := time.Unix(1e9, 0)
	read0, far := now.Add(-time.Hour), now.Add(1000*time.Hour)
	for _, sitemaps := range []int{1, 2} {
		m := plannedTest(t, Config{Budget: 10, Now: func() time.Time { return now }})
		pages := map[string]time.Time{ // the page's last fetch; its last listing read0 unless zero below
			"http://h.test/listed": read0.Add(-time.Hour), "http://h.test/dropped": read0.Add(-time.Hour),
			"http://h.test/never": read0.Add(-time.Hour), "http://h.test/refetched": read0.Add(time.Minute),
		}
		txn := m.store.Begin()
		for u, fetched := range pages {
			p := store.Page{URL: u, Held: true, LastFetch: fetched, Checked: fetched, NextDue: far, Rate: 1e-7}
			err := cmp.Or(txn.PutPage(p, nil), txn.Schedule("h.test", u, time.Time{}, far))
			if err == nil && u != "http://h.test/never" {
				err = txn.SetLastMod(u, read0.Add(-2*time.Hour), read0)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		h := commitTrusted(t, m, txn)
		for i := range sitemaps {
			h.NoteSitemap("http://h.test/sitemap"+strconv.Itoa(i)+".xml", far)
		}
		signals := []Signal{{"http://h.test/listed", read0.Add(-2 * time.Hour)}}
		for read := range 2 { // the second read pulls nothing again
			txn = m.store.Begin()
			_, err := m.Signalled(txn, h, Answer{Status: 200}, signals, read0, now, nil)
			if err := cmp.Or(err, txn.Commit()); err != nil {
				t.Fatal(err)
			}
			for u := range pages {
				p, err := m.store.GetPage(u)
				if err != nil {
					t.Fatal(err)
				}
				want := u == "http://h.test/dropped" && sitemaps == 1
				if Pulled(&p) != want {
					t.Errorf("%d sitemaps, read %d: %s pulled %v, want %v", sitemaps, read, u, Pulled(&p), want)
				}
			}
			wantPulls := 0
			if sitemaps == 1 && read == 0 {
				wantPulls = 1
			}
			if h.pulls != wantPulls {
				t.Errorf("%d sitemaps, read %d: the host waits for %d pulls, want %d", sitemaps, read, h.pulls, wantPulls)
			}
		}
	}
}

// TestSignalledPlan checks that a page of a host whose sitemaps are
// trusted, listed by a recent read, is planned as signalled, for probes
// only while no signal interval is known (its row's interval the mean
// one, with the pulls its signals will bring), and that one the sitemap
// does not list, a host not trusted, or a crawl without signals plans it
// as any page.
func TestSignalledPlan(t *testing.T) {
	now := time.Unix(1e9, 0)
	for _, c := range []struct {
		name      string
		cfg       Config
		trusted   bool
		listed    time.Duration // before now; 0: not listed
		signalled bool
	}{
		{"listed", Config{}, true, time.Minute, true},
		{"not listed", Config{}, true, 0, false},
		{"listed long ago", Config{}, true, 1e6 * time.Hour, false},
		{"not trusted", Config{}, false, time.Minute, false},
		{"without signals", Config{NoSignals: true}, true, time.Minute, false},
	} {
		c.cfg.Budget, c.cfg.Now = 10, func() time.Time { return now }
		m := plannedTest(t, c.cfg)
		p := store.Page{URL: "http://h.test/p", Held: true, Checked: now.Add(-time.Hour), Rate: 1e-5}
		if c.listed > 0 {
			txn := m.store.Begin()
			if err := cmp.Or(txn.SetLastMod(p.URL, now.Add(-2*c.listed), now.Add(-c.listed)), txn.Commit()); err != nil {
				t.Fatal(err)
			}
		}
		h := &Host{Name: "h.test", Delay: time.Second}
		if c.trusted {
			m.changeOf(h).state.Sitemap = store.Agreement{Agree: trustAgree}
		}
		m.Revisit(h, &p, true, &store.Visit{}, false, now)
		probe := m.planner.SignalInterval(p.Rate, p.Weight)
		due := p.NextDue.Sub(now).Seconds()
		mean := 1 / (1/probe + m.planner.SignalRate(p.Rate, p.Weight))
		if p.Signalled != c.signalled || c.signalled != (math.Abs(due-probe) < 1e-6) || c.signalled && math.Abs(p.Interval-mean) > 1e-9*mean {
			t.Errorf("%s: signalled %v, due in %gs, mean interval %gs (probe %gs, with pulls %gs); want signalled %v", c.name, p.Signalled, due, p.Interval, probe, mean, c.signalled)
		}
		bin := m.cfg.PlanBin(&p)
		if back, ok := parsePlanCounter(PlanCounter(bin)); !ok || back != bin || bin.Signalled != c.signalled {
			t.Errorf("%s: plan counter %q reads back as %+v (%v), want %+v, signalled %v", c.name, PlanCounter(bin), back, ok, bin, c.signalled)
		}
	}
}

// TestSampledTrustedSitemap checks that a sweep is declared on a host
// whose sample finds its slow pages changing together, and not on one
// whose trusted sitemap says which pages changed.
func TestSampledTrustedSitemap(t *testing.T) {
	now := time.Unix(1e9, 0)
	m := plannedTest(t, Config{Budget: 10, Now: func() time.Time { return now }})
	sweep := func(h *Host) float64 {
		share := 0.0
		for i := range 8 { // pages changing once in 10^6 s, all changed after 100 s
			share = max(share, m.Sampled(h, 1e-6, 100, true, now.Add(time.Duration(i)*time.Second)))
		}
		return share
	}
	if share := sweep(&Host{Name: "plain.test"}); !(share > 0.9) {
		t.Errorf("host without trusted sitemaps: sweep share %v, want near 1", share)
	}
	trusted := &Host{Name: "trusted.test"}
	m.changeOf(trusted).state.Sitemap = store.Agreement{Agree: trustAgree}
	if share := sweep(trusted); share != 0 {
		t.Errorf("host with trusted sitemaps: sweep share %v, want none", share)
	}
}

// TestDueSitemapPlannedOnly checks that only a policy whose plan acts on a
// sitemap's news reads a trusted sitemap ahead of the host's revisits:
// under the optimal policy DueSitemap returns the due sitemap, under
// uniform and the round robin nothing (the sitemap waits its turn in the
// due index); and none while the pulls of its last read are being made.
func TestDueSitemapPlannedOnly(t *testing.T) {
	now := time.Unix(1e9, 0)
	for _, tt := range []struct {
		policy Name
		want   bool
	}{{Optimal, true}, {Uniform, false}, {RoundRobin, false}} {
		m := openTest(t, Config{Policy: tt.policy, Budget: 10, Now: func() time.Time { return now }}, fixedSize{held: 100})
		sm := store.Page{URL: "http://h.test/sitemap.xml", Kind: store.KindSitemap, NextDue: now.Add(-time.Second)}
		txn := m.store.Begin()
		if err := txn.PutPage(sm, nil); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(); err != nil {
			t.Fatal(err)
		}
		h := &Host{Name: "h.test"}
		m.changeOf(h).state.Sitemap = store.Agreement{Agree: trustAgree}
		h.NoteSitemap(sm.URL, sm.NextDue)
		h.pulls, h.pulling = 2, now.Add(time.Minute) // the last read's pulls not all made
		for i := range 3 {
			if _, ok, err := m.DueSitemap(h, now); err != nil || ok && i < 2 || !ok && i == 2 && tt.want {
				t.Errorf("%s: DueSitemap = %v, %v after %d of the last read's 2 pulls; want %v", tt.policy, ok, err, i, i == 2 && tt.want)
			}
			h.sitemapTurn = false
			h.NoteService(time.Millisecond)
		}
		h.pulls, h.pulling = 2, now // pulls not made for too long: read anyway
		if p, ok, err := m.DueSitemap(h, now); err != nil || ok != tt.want || ok && p.URL != sm.URL {
			t.Errorf("%s: DueSitemap = %q, %v, %v; want %v", tt.policy, p.URL, ok, err, tt.want)
		}
	}
}

// TestNoSignals checks the baseline without signals: a sitemap's trust
// stored by an earlier run is set aside, not erased (a host record staged
// again keeps it), and its lastmod dates neither bring a revisit forward,
// nor count as claims, nor keep a sweep off the host.
func TestNoSignals(t *testing.T) {
	now := time.Unix(1e9, 0)
	m := plannedTest(t, Config{Budget: 10, NoSignals: true, Now: func() time.Time { return now }})
	page := store.Page{URL: "http://h.test/a", Held: true, Checked: now.Add(-time.Hour), NextDue: now.Add(1000 * time.Hour)}
	txn := m.store.Begin()
	if err := txn.PutPage(page, nil); err != nil {
		t.Fatal(err)
	}
	if err := txn.Schedule("h.test", page.URL, time.Time{}, page.NextDue); err != nil {
		t.Fatal(err)
	}
	trusted := store.Agreement{Agree: 50}
	var pool change.Stats
	pb, err := pool.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := txn.PutHostState("h.test", store.HostState{Sitemap: trusted, Pool: pb}); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	h := &Host{Name: "h.test", Delay: time.Second}
	hc := m.changeOf(h)
	if a := m.sitemapAgreement(hc); a != (store.Agreement{}) {
		t.Errorf("stored sitemap trust %+v acted on without signals", a)
	}
	txn = m.store.Begin()
	n, err := m.Signalled(txn, h, Answer{Status: 200}, []Signal{{page.URL, now.Add(-time.Minute)}}, time.Time{}, now, nil)
	if err := cmp.Or(err, txn.Commit()); err != nil {
		t.Fatal(err)
	}
	if p, err := m.store.GetPage(page.URL); n != 0 || err != nil || !p.NextDue.Equal(page.NextDue) {
		t.Errorf("without signals: %d claimed, due %v (%v); want 0, unmoved", n, p.NextDue, err)
	}
	share := 0.0
	for i := range 8 { // pages changing once in 10^6 s, all changed after 100 s: a sweep
		share = max(share, m.Sampled(h, 1e-6, 100, true, now.Add(time.Duration(i)*time.Second)))
	}
	if !(share > 0.9) {
		t.Errorf("without signals, a trusted sitemap kept a sweep off its host (share %v)", share)
	}
	hc.dirty = true
	txn = m.store.Begin()
	if err := cmp.Or(m.Stage(txn, h), txn.Commit()); err != nil {
		t.Fatal(err)
	}
	if hs, ok, err := m.store.HostState("h.test"); err != nil || !ok || hs.Sitemap != trusted {
		t.Errorf("stored sitemap record after a run without signals: %+v, %v, %v; want %+v", hs.Sitemap, ok, err, trusted)
	}
}
