package policy

import (
	"math"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/change"
)

// visit is one scripted visit: its time, whether it saw a change, and the
// seconds since Last-Modified (NaN: none sent).
type visit struct {
	t       float64
	changed bool
	since   float64
}

func (v visit) obs() change.Observation {
	return change.Observation{Interval: 1, Changed: v.changed, SinceModified: v.since}
}

// TestNutchSequence replays scripted outcomes through NutchAdaptive and
// compares every interval and next visit time with the rule worked by hand
// (spec anchors-crawlers §1.1, Nutch's setFetchSchedule).
func TestNutchSequence(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name         string
		rule         NutchAdaptive
		visits       []visit
		wantInterval []float64
		wantNext     []float64
	}{
		{
			// Defaults, no sync delta: 10 d → ×0.8 = 8 → ×1.4 = 11.2 →
			// ×1.4 = 15.68 → ×0.8 = 12.544.
			name:         "no sync delta",
			rule:         NutchAdaptive{Default: 10 * day, NoSyncDelta: true},
			visits:       []visit{{100, true, nan}, {200, false, nan}, {300, false, nan}, {400, true, nan}},
			wantInterval: []float64{8 * day, 11.2 * day, 15.68 * day, 12.544 * day},
			wantNext:     []float64{100 + 8*day, 200 + 11.2*day, 300 + 15.68*day, 400 + 12.544*day},
		},
		{
			// Sync delta without Last-Modified: the known modification is
			// the visit that saw the change (t = 1 d). At 3 d, unchanged:
			// I = 1.4·8 = 11.2 d, δ = 2 d < I, next = 3 − 0.6 + 11.2 d. At
			// 40 d, unchanged: I = 1.4·11.2 = 15.68 d < δ = 39 d, so I = 39,
			// next = 40 − 11.7 + 39 d.
			name:         "sync delta, no Last-Modified",
			rule:         NutchAdaptive{Default: 10 * day},
			visits:       []visit{{1 * day, true, nan}, {3 * day, false, nan}, {40 * day, false, nan}},
			wantInterval: []float64{8 * day, 11.2 * day, 39 * day},
			wantNext:     []float64{9 * day, (3 - 0.6 + 11.2) * day, (40 - 11.7 + 39) * day},
		},
		{
			// Sync delta with Last-Modified 5 d before an unchanged visit
			// at 10 d: I = 1.4·2 = 2.8 d < δ = 5, so I = 5 d, next =
			// 10 − 1.5 + 5 d. At 20 d, unchanged and without
			// Last-Modified, the known modification stays at 5 d: I =
			// 1.4·5 = 7 d < δ = 15 d, so I = 15 d, next = 20 − 4.5 + 15 d.
			name:         "sync delta, Last-Modified",
			rule:         NutchAdaptive{Default: 2 * day},
			visits:       []visit{{10 * day, false, 5 * day}, {20 * day, false, nan}},
			wantInterval: []float64{5 * day, 15 * day},
			wantNext:     []float64{13.5 * day, (20 - 0.3*15 + 15) * day},
		},
		{
			// Clamps: 100 s ×0.8 ×0.8 = 64, then ×0.8 = 51.2 → Min 60;
			// and a long unchanged run reaches Max.
			name:         "min clamp",
			rule:         NutchAdaptive{Default: 100, NoSyncDelta: true},
			visits:       []visit{{0, true, nan}, {1, true, nan}, {2, true, nan}},
			wantInterval: []float64{80, 64, 60},
			wantNext:     []float64{80, 65, 62},
		},
		{
			name:         "max clamp",
			rule:         NutchAdaptive{Default: 300 * day, NoSyncDelta: true},
			visits:       []visit{{0, false, nan}, {1, false, nan}},
			wantInterval: []float64{365 * day, 365 * day},
			wantNext:     []float64{365 * day, 1 + 365*day},
		},
		{
			// Custom rates: Inc 0.1, Dec 0.5, Min 10, Max 1000.
			name:         "custom",
			rule:         NutchAdaptive{Inc: 0.1, Dec: 0.5, Min: 10, Max: 1000, Default: 100, NoSyncDelta: true},
			visits:       []visit{{0, false, nan}, {1, true, nan}, {2, true, nan}, {3, true, nan}, {4, true, nan}},
			wantInterval: []float64{110, 55, 27.5, 13.75, 10},
			wantNext:     []float64{110, 56, 29.5, 16.75, 14},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NutchPage{Modified: math.NaN()}
			for k, v := range tt.visits {
				next := tt.rule.Next(&p, v.t, v.obs())
				if !near(p.Interval, tt.wantInterval[k]) || !near(next, tt.wantNext[k]) {
					t.Errorf("visit %d: interval %g next %g, want %g and %g", k, p.Interval, next, tt.wantInterval[k], tt.wantNext[k])
				}
			}
		})
	}
}

// near compares to 1e-12 relative: the hand values are exact decimals
// that the rule reaches in a few multiplications.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// TestNutchSyncDeltaPast is the case the simulator's adapter guards
// against: an unchanged page last modified more than Max/SyncDeltaRate ago
// gets a next visit time in the past (t − 0.3δ + Max).
func TestNutchSyncDeltaPast(t *testing.T) {
	var p NutchPage
	next := NutchAdaptive{}.Next(&p, 1000*day, change.Observation{Interval: 1, SinceModified: 2000 * day})
	if want := 1000*day - 600*day + 365*day; !near(next, want) || next >= 1000*day {
		t.Errorf("next %g, want %g (before the visit)", next, want)
	}
}

// TestStormCrawlerSequence replays outcomes through StormCrawler's rule:
// on change I ← ½I + ½·Min, else I ← min(Max, 1.5·I) (spec §1.3), and the
// status table.
func TestStormCrawlerSequence(t *testing.T) {
	const h = 3600.0
	rule := StormCrawler{} // defaults: 1 d, min 1 h, max 2 weeks, 0.5/0.5
	var I float64
	steps := []struct {
		status  Status
		changed bool
		want    float64 // interval after
		next    float64 // next − t
	}{
		{StatusFetched, true, 12.5 * h, 12.5 * h},        // ½·24 + ½·1
		{StatusFetched, true, 6.75 * h, 6.75 * h},        // ½·12.5 + ½
		{StatusFetched, false, 10.125 * h, 10.125 * h},   // ×1.5
		{StatusFetchError, false, 0, 2 * h},              // table: 2 h, reset
		{StatusFetched, false, 36 * h, 36 * h},           // from the default again
		{StatusError, false, 0, math.Inf(1)},             // never
		{StatusFetched, false, 36 * h, 36 * h},           // reset again
		{StatusFetched, false, 54 * h, 54 * h},           // ×1.5
		{StatusFetched, false, 81 * h, 81 * h},           // ×1.5
		{StatusFetched, false, 121.5 * h, 121.5 * h},     // ×1.5
		{StatusFetched, false, 182.25 * h, 182.25 * h},   // ×1.5
		{StatusFetched, false, 273.375 * h, 273.375 * h}, // ×1.5
		{StatusFetched, false, 336 * h, 336 * h},         // Max: 2 weeks
		{StatusFetched, true, 168.5 * h, 168.5 * h},      // ½·336 + ½
	}
	for k, s := range steps {
		tNow := float64(k) * 1000
		next := rule.Next(&I, tNow, s.status, s.changed)
		if !near(I, s.want) || !near(next-tNow, s.next) && !(math.IsInf(next, 1) && math.IsInf(s.next, 1)) {
			t.Errorf("step %d: interval %g next−t %g, want %g and %g", k, I, next-tNow, s.want, s.next)
		}
	}
	// Repeated changes approach Min but never pass it: I − Min halves.
	I = 0
	for range 60 {
		rule.Next(&I, 0, StatusFetched, true)
	}
	if I < StormMinInterval || I > StormMinInterval*(1+1e-9) {
		t.Errorf("after 60 changes interval %g, want just above %g", I, StormMinInterval)
	}
}

// TestSchedules checks the collection wrappers keep pages apart.
func TestSchedules(t *testing.T) {
	n := NewNutchSchedule(2, NutchAdaptive{Default: 100, NoSyncDelta: true})
	n.Visit(0, 0, change.Observation{Interval: 1, Changed: true, SinceModified: math.NaN()})
	if n.Interval(0) != 80 || n.Interval(1) != 100 {
		t.Errorf("nutch intervals %g, %g; want 80, 100", n.Interval(0), n.Interval(1))
	}
	s := NewStormSchedule(2, StormCrawler{Default: 100, Min: 10})
	if next := s.Visit(1, 5, change.Observation{Interval: 1, Changed: true}); next != 5+55 || s.Interval(0) != 100 {
		t.Errorf("storm next %g, interval(0) %g; want 60, 100", next, s.Interval(0))
	}
}
