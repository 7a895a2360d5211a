package refresh

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/store"
)

// TestExpected checks the collection's expectation against a brute-force
// sum over the held rows, after random moves (rates, intervals, pages
// leaving and entering), after a reopen from the counters, and after a
// rebuild from the rows. One page's share is eq. 5.4's (1 − e^{−λI})/(λI)
// and Table 5.2's age I/2 − 1/λ + (1 − e^{−λI})/(λ²I), checked in closed
// form for λI = 1.
func TestExpected(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s, err := store.Open(dir, store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Open(Config{Budget: 1}, s, fixedSize{})
	if err != nil {
		t.Fatal(err)
	}
	e := expectationOf(&store.Page{Rate: 1.0 / 3600, Interval: 3600})
	if want := 1 - math.Exp(-1); math.Abs(float64(e.fresh)/1e6-want) > 1e-6 {
		t.Errorf("freshness at λI = 1: %g, want 1 − 1/e = %g", float64(e.fresh)/1e6, want)
	}
	if want := 3600 * (0.5 - 1 + (1 - math.Exp(-1))); math.Abs(float64(e.age)/1e3-want) > 1e-3 {
		t.Errorf("age at λI = 1, I = 1 h: %g s, want I(1/2 − 1 + 1 − 1/e) = %g s", float64(e.age)/1e3, want)
	}

	for _, perDay := range []float64{1e-5, 0.01, 0.5, 1, 1.5, 2, 7, 1000, 1e6} {
		k := RateOctave(perDay / 86400)
		if lo := OctaveRate(k); !(lo <= perDay*(1+1e-12) && perDay < 2*lo) {
			t.Errorf("rate %g/day in bucket %d of [%g, %g)", perDay, k, lo, 2*lo)
		}
	}
	if k := RateOctave(1.0 / 86400); OctaveRate(k) != 1 {
		t.Errorf("1 a day: bucket from %g, want 1", OctaveRate(k))
	}

	rng := rand.New(rand.NewPCG(1, 2))
	rows := map[string]store.Page{}
	for step := range 3000 {
		u := fmt.Sprintf("http://a.test/%d", rng.IntN(400))
		prev, known := rows[u]
		p := store.Page{URL: u, Kind: store.KindPage, Held: rng.Float64() < 0.9}
		if rng.Float64() < 0.8 {
			p.Rate = math.Exp(rng.Float64()*16 - 16)
		}
		if rng.Float64() < 0.85 {
			p.Interval = math.Exp(rng.Float64() * 14)
		}
		txn := s.Begin()
		if err := txn.PutPage(p, nil); err != nil {
			t.Fatal(err)
		}
		wasHeld := known && prev.Held
		m.StagePlan(txn, nil, &prev, wasHeld, &p)
		txn.AddHeld(int64(b2i(p.Held) - b2i(wasHeld)))
		if err := txn.Commit(); err != nil {
			t.Fatal(err)
		}
		rows[u] = p
		if step%1000 == 999 {
			checkExpected(t, m, rows)
		}
	}
	held, _ := s.Held()
	for _, name := range []string{"reopened", "rebuilt", "rebuilt under a new basis"} {
		txn := s.Begin()
		switch name {
		case "rebuilt":
			txn.Add(expectPlanned, 7) // the counters no longer account for the held pages
		case "rebuilt under a new basis":
			// Counters summed under another rule: the page counts agree,
			// the buckets do not.
			txn.Add(expectRate+"5", 3)
			if err := txn.SetSetting(expectBasisSetting, "an older rule"); err != nil {
				t.Fatal(err)
			}
		}
		if err := txn.Commit(); err != nil {
			t.Fatal(err)
		}
		m2, err := Open(Config{Budget: 1}, s, fixedSize{held: held})
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) { checkExpected(t, m2, rows) })
	}
	s.Close()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkExpected compares m's expectation with the brute-force one of rows.
func checkExpected(t *testing.T, m *Module, rows map[string]store.Page) {
	t.Helper()
	var fresh, age float64
	var planned, others int64
	var hist [RateOctaves]int64
	for _, p := range rows {
		if !p.Held {
			continue
		}
		hist[RateOctave(p.Rate)]++
		if p.Interval <= 0 {
			others++
			continue
		}
		planned++
		d := time.Duration(p.Interval * float64(time.Second)).Seconds()
		r := p.Rate * d
		if p.Rate == 0 {
			fresh++
			continue
		}
		fresh += -math.Expm1(-r) / r
		age += d/2 - 1/p.Rate - math.Expm1(-r)/(p.Rate*r)
	}
	got := m.Expected()
	if got.Planned != planned || got.Others != others {
		t.Fatalf("pages planned %d, others %d; want %d, %d", got.Planned, got.Others, planned, others)
	}
	if want := fresh / float64(planned); math.Abs(got.Freshness-want) > 1e-6 {
		t.Errorf("freshness %.9f, want %.9f", got.Freshness, want)
	}
	if want := age / float64(planned); math.Abs(got.Age-want) > 1e-3*want+1e-3 {
		t.Errorf("age %.6f s, want %.6f s", got.Age, want)
	}
	if h := m.RateHistogram(); h != hist {
		t.Errorf("rate histogram %v, want %v", h, hist)
	}
}
