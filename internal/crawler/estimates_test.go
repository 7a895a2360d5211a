package crawler

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/datadir"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// TestChangeEstimates crawls a simweb running 6 simulated hours a second
// with revisits every second, then checks
//   - that ReadHistories, replaying the recorded visits, rebuilds exactly
//     the change statistics the crawler kept as it went;
//   - that the crawler's estimates are right in the units that matter:
//     over the pages that change between 0.1 and 2 times a revisit
//     interval (by simweb's truth), the median of estimate/truth lies
//     within a factor of 2 of 1. Wrong
//     units (wall against simulated time, Last-Modified without
//     TimeScale) would be off by 21,600×.
func TestChangeEstimates(t *testing.T) {
	bubble(t, func(t *testing.T) {
		dir := t.TempDir()
		web, cfg := simCrawl(t, dir, 8, 50)
		cfg.Revisit = time.Second
		cfg.ChangeDecay = -1 // no forgetting, so the replay must match exactly
		// The crawl lasts until the pages have been revisited about nine times
		// each (3,600 page fetches), or 60 s on a machine too loaded for that.
		c := crawlUntil(t, cfg, 3600, 60*time.Second)
		kept := map[string]change.Stats{}
		rates := map[string]float64{}
		err := c.store.ForEachPage(func(p store.Page) error {
			if p.Held && p.Kind == store.KindPage {
				var s change.Stats
				if err := s.UnmarshalBinary(p.Change); err != nil {
					return err
				}
				kept[p.URL], rates[p.URL] = s, p.Rate
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}

		st, err := datadir.ReadStatus(dir, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("status: %+v", st.Rates)
		// Every host's validators are judged as simweb made them: honest ones
		// trusted, wrong ones distrusted, absent ones unproven.
		modes := map[string]int{}
		for _, h := range web.Hosts() {
			modes[h.Validators]++
		}
		if r := st.Rates; r.LMTrusted != modes["honest"] || r.LMDistrusted != modes["wrong"] || r.LMUnproven != modes["absent"] {
			t.Errorf("Last-Modified trusted on %d hosts, distrusted on %d, unproven on %d; simweb's validators: %v",
				r.LMTrusted, r.LMDistrusted, r.LMUnproven, modes)
		}

		// The URL-pattern groups have pools of their own, which the sites'
		// records do not count.
		s, err := store.Open(filepath.Join(dir, "state"), store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		groups := 0
		err = s.ForEachGroupPool(func(host, group string, v []byte) error {
			var g change.Stats
			if err := g.UnmarshalBinary(v); err != nil {
				return fmt.Errorf("%s/%s: %w", host, group, err)
			}
			if g.Count() > 0 {
				groups++
			}
			return nil
		})
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		if groups < len(web.Hosts()) {
			t.Errorf("%d URL-pattern groups with observations on %d hosts, want at least one a host", groups, len(web.Hosts()))
		}

		// The replay.
		replayed := 0
		err = datadir.ReadHistories(dir, 0, func(h *datadir.History) error {
			replayed++
			k, ok := kept[h.URL]
			if !ok {
				t.Errorf("%s: replayed but not held", h.URL)
				return nil
			}
			kn, kx, kt := k.LastModified()
			hn, hx, ht := h.Stats.LastModified()
			got := []float64{float64(h.Stats.Count()), h.Stats.N(), h.Stats.Changed(), h.Stats.SumIntervals(), h.Stats.SumUnchanged(), hn, hx, ht}
			want := []float64{float64(k.Count()), k.N(), k.Changed(), k.SumIntervals(), k.SumUnchanged(), kn, kx, kt}
			for i := range got {
				// Sums of the same float64 terms in the same order: exact but
				// for the last bit.
				if math.Abs(got[i]-want[i]) > 1e-9*math.Max(1, math.Abs(want[i])) {
					t.Errorf("%s: replayed stats %v, the crawler's %v", h.URL, got, want)
					break
				}
			}
			if h.Stored != rates[h.URL] {
				t.Errorf("%s: History.Stored %g, row %g", h.URL, h.Stored, rates[h.URL])
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if replayed != len(kept) || replayed < 100 {
			t.Errorf("replayed %d histories of %d pages held, want all of at least 100", replayed, len(kept))
		}

		// The estimates against the truth, in changes per wall second.
		var ratios []float64
		observations := 0
		for u, s := range kept {
			truth, err := web.Truth(u, web.Clock().Now())
			if err != nil {
				t.Fatal(err)
			}
			perSecond := truth.Rate / 86400 * simSpeed
			// r = λ·interval ≤ 2: beyond, a page changes at nearly every
			// visit and no estimator without Last-Modified can tell how often
			// (dissertation §6.4.2: the 10%-bias frontier is r = 3.5 at n = 20).
			// r over the page's own mean interval: on a loaded machine revisits
			// come later than cfg.Revisit.
			if r := perSecond * s.SumIntervals() / s.N(); s.Count() >= 5 && r >= 0.1 && r <= 2 {
				ratios = append(ratios, rates[u]/perSecond)
				observations += s.Count()
			}
		}
		if len(ratios) < 20 {
			t.Fatalf("%d pages with r in [0.1, 2] and 5 observations, want at least 20", len(ratios))
		}
		slices.Sort(ratios)
		median := ratios[len(ratios)/2]
		t.Logf("%d pages with r in [0.1, 2], %d observations: estimate/truth median %.2f, quartiles %.2f–%.2f",
			len(ratios), observations, median, ratios[len(ratios)/4], ratios[3*len(ratios)/4])
		if median < 0.5 || median > 2 {
			t.Errorf("median estimate/truth %.2f, want within a factor of 2 of 1", median)
		}
	})
}
