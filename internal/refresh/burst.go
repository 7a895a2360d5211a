package refresh

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/store"
)

// Bursts. Real sites change in sweeps: a deploy, a template edit, a
// translation batch touches a large share of a site's pages at once.
// Estimates of each page's rate cannot see a sweep coming, and after it
// the pages not yet revisited stay stale until their turn. Paper 004
// (Cho & Ntoulas) refreshes a site after sampling it: the share of a
// sample of its pages that changed estimates the share of the whole site
// that did. The crawler's revisits of a host are such a sample, drawn as
// the plan goes. Each comparison of a held page is weighed against what
// its estimate expected, the chance 1 − e^{−λ·I} of a change in the
// interval I since its last check; when the recent comparisons of a host
// find many more changes than expected, and most of them changed, the
// host is in a sweep: the rest of its pages are brought forward, each if
// what it buys beats the plan's price of a visit (worthPulling).

// burstMemory is the weight a comparison keeps at the next one: the
// recent sample is about the last 1/(1 − burstMemory) = 8 comparisons.
const burstMemory = 7.0 / 8

// Thresholds of a sweep: the sample must hold at least burstMin
// comparisons' weight and burstChanges changes, a share of at least
// burstShare of it changed, and the changes must be at least twice what
// the estimates expected plus burstChanges (a sample where every page was
// expected to change is no sign of a sweep).
const (
	burstMin     = 4
	burstChanges = 3
	burstShare   = 0.5
)

// burst is a host's recent sample: the weights of its comparisons (n), of
// those that changed (x) and of the changes its pages' estimates expected
// (e), and when it last declared a sweep.
type burst struct {
	n, x, e float64
	fired   time.Time
}

// note folds in one comparison of a page whose rate was estimated at rate
// (per second) over interval seconds, and reports the share of the host's
// pages a sweep has changed, or 0 if there is no sweep. After a sweep the
// sample starts afresh, and no other is declared within cooldown.
func (b *burst) note(rate, interval float64, changed bool, now time.Time, cooldown time.Duration) float64 {
	expect := 1.0
	if rate >= 0 && interval >= 0 && !math.IsInf(rate*interval, 1) {
		expect = -math.Expm1(-rate * interval)
	}
	b.n = b.n*burstMemory + 1
	b.x *= burstMemory
	b.e = b.e*burstMemory + expect
	if changed {
		b.x++
	}
	if b.n < burstMin || b.x < burstChanges || b.x < burstShare*b.n || b.x < 2*b.e+burstChanges {
		return 0
	}
	if !b.fired.IsZero() && now.Sub(b.fired) < cooldown {
		return 0
	}
	share := (b.x - b.e) / (b.n - b.e) // the changes the estimates did not expect, among the pages they did not expect to change
	*b = burst{fired: now}
	return min(max(share, 0), 1)
}

// Sampled folds a comparison at now of a page of host h, estimated to change
// at rate per second and compared interval seconds after its last check,
// into the host's sample, and returns the share of the host's pages a
// sweep has just been found to have changed (0: none). A host whose
// sitemaps are trusted has no sweeps: its sitemap says which pages
// changed (Signalled), and a sweep, which can only guess, pulled the
// unchanged ones too, ahead of the changed ones still to come. On the
// PEPs' replay, whose sweeps are mass edits, freshness over minutes 3–6
// went from 0.914 to 0.927 with this, trusted sitemaps read first when
// due and a sitemap's claims counted once, together.
func (m *Module) Sampled(h *Host, rate, interval float64, changed bool, now time.Time) float64 {
	if m.planner == nil || !m.acts {
		return 0
	}
	hc := m.changeOf(h)
	share := hc.burst.note(rate, interval, changed, now, m.Uniform()/4)
	if Trusted(m.sitemapAgreement(hc)) {
		return 0
	}
	return share
}

// maxPull bounds the revisits one sweep brings forward.
const maxPull = 4096

// Sweep brings forward, in txn, the revisits of host's pages other than
// url that a sweep changing a share of them makes worth it (worthPulling),
// in the order they were due, and returns how many it moved. It leaves
// alone the rows rows.Skip names and tells rows.Pulled of each row it
// pulls (rows nil: none, no one).
func (m *Module) Sweep(txn *store.Txn, host, url string, share float64, delay time.Duration, rows Rows) (int, error) {
	now := m.cfg.Now()
	due, err := m.store.Due(host, time.Unix(0, math.MaxInt64), maxPull)
	if err != nil {
		return 0, err
	}
	mu := m.multiplier()
	gap := max(delay, time.Millisecond)
	offset, moved := gap, 0
	for _, d := range due {
		at := now.Add(offset)
		if d.URL == url || !d.Due.After(at) || rows != nil && rows.Skip(d.URL) {
			continue
		}
		p, err := m.store.GetPage(d.URL)
		if err != nil || !p.NextDue.Equal(d.Due) || !p.Held {
			continue // gone, or moved by a commit not yet seen here
		}
		if !worthPulling(share, m.cfg.PlanRate(&p), d.Due, at, mu) {
			continue
		}
		if err := pull(txn, host, &p, rows); err != nil {
			return moved, err
		}
		offset += gap
		moved++
	}
	return moved, nil
}

// pull makes p's revisit on host due at once, in its row and the due
// index: due since its last check, which a signal of a change makes its
// last fresh moment. That ranks it with the host's planned revisits by
// how long each has gone unchecked past its due time, and the pulls among
// themselves by how long they have gone unchecked. A due time no later
// than the last check marks the page pulled (Pulled), so that the plan
// does not put it off again. (Two other orders did no better on the
// PEPs' replay, minutes 3–6, where this one gave 0.932: pulls ranked
// ahead of every planned revisit, ten uniform intervals before their last
// check, 0.924, the host's sitemap and new URLs waiting behind a sweep's
// whole backlog, and worse on the bursty world too; pulls due when the
// sitemap says they changed, so that all line up by how long they have
// been stale, 0.927.)
func pull(txn *store.Txn, host string, p *store.Page, rows Rows) error {
	at := p.Checked
	if at.IsZero() {
		at = p.LastFetch
	}
	if err := txn.Schedule(host, p.URL, p.NextDue, at); err != nil {
		return err
	}
	p.NextDue = at
	if rows != nil {
		rows.Pulled(p.URL)
	}
	return txn.PutPage(*p, nil)
}

// Rows says which of a host's rows a sweep or a sitemap's signal must
// leave alone (Skip: the caller stages changes to them, or will), and
// hears of each row one pulls (Pulled), whose change is staged but not
// yet committed.
type Rows interface {
	Skip(url string) bool
	Pulled(url string)
}

// Pulled reports whether p's revisit was brought forward by a signal
// (pull): due no later than its last fetch or check, which no plan
// schedules.
func Pulled(p *store.Page) bool {
	last := p.LastFetch
	if p.Checked.After(last) {
		last = p.Checked
	}
	return !p.NextDue.IsZero() && !p.NextDue.After(last)
}

// worthPulling reports whether a revisit due at due is worth making at at
// instead, for a page of plan rate lambda (per second) changed since its
// last check with probability share: the fresh time the earlier visit
// buys beats the plan's price of a visit, mu. Fetched at at, the page is
// fresh until its next change, which comes after a time of rate lambda,
// or until due, when the planned visit would have fetched it anyway: an
// expected min(Exp(λ), T) = (1 − e^{−λT})/λ for T = due − at (T itself
// for a page that does not change). A page that changes at every moment
// buys nothing, however long it waits; one that changes seldom buys
// nearly all of T.
func worthPulling(share, lambda float64, due, at time.Time, mu float64) bool {
	return share > 0 && due.After(at) && share*freshFor(lambda, due.Sub(at).Seconds()) > mu
}

// freshFor is the expected time a copy fetched now stays fresh within the
// next t seconds, for a page changing at rate lambda: (1 − e^{−λt})/λ.
func freshFor(lambda, t float64) float64 {
	if x := lambda * t; x > 1e-9 {
		return -math.Expm1(-x) / lambda
	}
	return t
}

// trialPulls is how many of a sitemap's claims a read on trial (neither
// trusted nor distrusted, agreement a) brings forward to be judged: as
// many as trust still needs agreements. Left to the planned visits, claims
// were judged only where a page's visit came after a read that found its
// change, and on simweb's demo 6 of its 15 honest sitemaps had earned
// trust after 10 simulated days. A lying sitemap is distrusted at its
// first claim that a trial finds false.
func trialPulls(a store.Agreement) int {
	if Trusted(a) || Distrusted(a) {
		return 0
	}
	return trustAgree - int(a.Agree) // not distrusted: a.Disagree·trustRatio ≤ a.Agree < trustAgree
}

// Signal is what a sitemap says of one of its host's pages: when it last
// changed, on the server's clock.
type Signal struct {
	URL     string
	LastMod time.Time
}

// Signalled brings forward, in txn, the revisits of pages of host h that
// the host's sitemap, fetched at now with answer a, says changed after
// they were last checked, where the host's sitemaps have earned trust and
// the visit is worth its price (worthPulling, with the change certain, at
// the time the host's delay lets each be made). It returns how many changes the sitemap
// claims that it did not claim when read before, at since (zero: never),
// trusted or not yet: part of the sitemap's discovery value, so that a
// sitemap still on trial is fetched often enough for its lastmod dates to
// be judged against the pages' changes (a sitemap read seldom has dates
// too old to claim anything, and never earns trust). A change claimed
// again, its page not yet fetched, is not a new one: counted at every
// read, it made the sitemap look the more worth reading the more often
// it was read, and on the PEPs' replay half the budget went to sitemaps.
// A distrusted sitemap claims nothing. It pulls none of the rows
// rows.Skip names, and tells rows.Pulled of those it pulls (rows nil:
// none, no one).
func (m *Module) Signalled(txn *store.Txn, h *Host, a Answer, signals []Signal, since, now time.Time, rows Rows) (int, error) {
	sm := m.sitemapAgreement(m.changeOf(h))
	if m.planner == nil || !m.acts || Distrusted(sm) || m.cfg.NoSignals {
		return 0, nil
	}
	trusted := Trusted(sm)
	trials := trialPulls(sm)
	var trial []store.Page // the claims a trial may pull
	mu := m.multiplier()
	gap := max(h.Delay, time.Millisecond)
	offset, claimed, pulls := gap, 0, 0
	listed := make(map[string]struct{}, len(signals))
	for _, s := range signals {
		listed[s.URL] = struct{}{}
		mod, ok := m.serverTime(a, s.LastMod, now)
		if !ok {
			continue
		}
		p, err := m.store.GetPage(s.URL)
		if err != nil || !p.Held || p.NextDue.IsZero() || !mod.After(p.Checked) {
			continue // unknown or unchanged
		}
		if Pulled(&p) {
			trials-- // claimed and pulled already, perhaps on trial
			continue
		}
		if mod.After(since) {
			claimed++
		}
		at := now.Add(offset)
		// The estimate, not PlanRate: a page fetched on its signals finds
		// a change at every visit, which PlanRate would take for a page
		// changing at every moment and never pull again.
		if !trusted {
			if !p.NextDue.After(at) {
				trials-- // judged at its planned visit, as soon as a pull's
			} else if rows == nil || !rows.Skip(s.URL) {
				trial = append(trial, p)
			}
			continue
		}
		if !worthPulling(weightOf(&p), p.Rate, p.NextDue, at, mu) || rows != nil && rows.Skip(s.URL) {
			continue
		}
		if err := m.pullClaim(txn, h, a, &p, now, rows); err != nil {
			return claimed, err
		}
		if p.Signalled {
			pulls++
		}
		offset += gap
	}
	if trusted {
		if err := m.closeRead(txn, h, listed, pulls, int(offset/gap)-1, since, now, rows); err != nil {
			return claimed, err
		}
	}
	return claimed, pullTrials(txn, h.Name, trial, trials, now, rows)
}

// closeRead ends a read of host h's trusted sitemap at now (the one
// before at since), which listed the URLs listed and made pulls pulls, of
// which signalled were of signalled pages: it pulls the pages the sitemap
// dropped (pullUnlisted), tells the plan what the read yielded
// (noteSignals), and holds the next read back until the host's responses
// have matched the pulls (DueSitemap).
func (m *Module) closeRead(txn *store.Txn, h *Host, listed map[string]struct{}, signalled, pulls int, since, now time.Time, rows Rows) error {
	if len(h.sitemaps) <= 1 {
		n, err := m.pullUnlisted(txn, h, listed, rows)
		if err != nil {
			return err
		}
		pulls += n
	}
	m.noteSignals(signalled, since, now)
	h.pulls, h.pulling = pulls, now.Add(m.Uniform())
	return nil
}

// pullUnlisted pulls the held pages of host h that its trusted sitemap,
// its only one, listed before and no longer lists (listed: the URLs it
// lists now), unless fetched since: a page a sitemap drops is deleted or
// moved, and the plan, counting on the sitemap's claims, would otherwise
// hold its copy until its probe (on the Go website's history, 190 of 585
// held pages were no longer listed). A host with several sitemaps is left
// to its probes: a page one of them leaves out another may list. It
// returns how many it pulled.
func (m *Module) pullUnlisted(txn *store.Txn, h *Host, listed map[string]struct{}, rows Rows) (int, error) {
	due, err := m.store.Due(h.Name, time.Unix(0, math.MaxInt64), maxPull)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range due {
		if _, ok := listed[d.URL]; ok || rows != nil && rows.Skip(d.URL) {
			continue
		}
		p, err := m.store.GetPage(d.URL)
		if err != nil || !p.Held || p.Kind != store.KindPage || !p.NextDue.Equal(d.Due) || Pulled(&p) {
			continue
		}
		if lm, read, err := m.store.LastMod(p.URL); err != nil || lm.IsZero() || p.LastFetch.After(read) {
			continue // never listed, or fetched since it last was
		}
		if err := pull(txn, h.Name, &p, rows); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// pullClaim pulls p on its trusted sitemap's claim, read at now with
// answer a, first folding into its estimate the span to the read before
// that found it unchanged (unclaimedAt).
func (m *Module) pullClaim(txn *store.Txn, h *Host, a Answer, p *store.Page, now time.Time, rows Rows) error {
	if read := m.unclaimedAt(a, p.URL, p.Checked, now); !read.IsZero() {
		prev := *p
		if v := m.ObserveUnchanged(h, p, read); v != nil {
			m.StagePlan(txn, h, &prev, true, p) // its rate, so its bin, moved
			if err := txn.PutPage(*p, v); err != nil {
				return err
			}
		}
	}
	return pull(txn, h.Name, p, rows)
}

// weightOf is p's weight, 1 if it has none.
func weightOf(p *store.Page) float64 {
	if p.Weight > 0 {
		return p.Weight
	}
	return 1
}

// pullTrials pulls n of the claims of a sitemap on trial, those of the
// pages least expected to have changed since their last check first (the
// fewest changes their rate gives the time since): an honest sitemap
// agrees whichever are pulled, and a lying one is caught soonest where its
// claim is least likely true by chance. On simweb, where a wrong sitemap
// dates every page at the site's last deploy, one was trusted when its
// first claims, in sitemap order, fell on pages that change hourly.
func pullTrials(txn *store.Txn, host string, claims []store.Page, n int, now time.Time, rows Rows) error {
	if n <= 0 {
		return nil
	}
	expected := func(p *store.Page) float64 { return p.Rate * now.Sub(p.Checked).Seconds() }
	slices.SortStableFunc(claims, func(a, b store.Page) int { return cmp.Compare(expected(&a), expected(&b)) })
	for i := range claims[:min(n, len(claims))] {
		if err := pull(txn, host, &claims[i], rows); err != nil {
			return err
		}
	}
	return nil
}

// unclaimedAt is when the sitemap was last read before now, if that read
// gave url a lastmod no later than checked, the page's last check, and
// was made after it: the page was then unchanged from checked to that
// read. Zero otherwise (the read unknown, or it claimed a change already,
// a claim not pulled then). The lastmod is put on the crawler's clock
// with the answer a of the read at now, as the clocks' relation holds.
func (m *Module) unclaimedAt(a Answer, url string, checked, now time.Time) time.Time {
	lm, read, err := m.store.LastMod(url)
	if err != nil || lm.IsZero() || !read.After(checked) || !read.Before(now) {
		return time.Time{}
	}
	if mod, ok := m.serverTime(a, lm, now); !ok || mod.After(checked) {
		return time.Time{}
	}
	return read
}
