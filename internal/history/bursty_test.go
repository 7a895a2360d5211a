package history

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// burstyStats are the figures of a generated history that its parameters
// promise.
type burstyStats struct {
	pages, born, deleted int
	mods                 int
	pageYears            float64
	sweepMods            int // modifications in seconds where ≥ 10 pages change
}

func measure(h *History, start int64) burstyStats {
	var st burstyStats
	perSecond := map[int64]int{}
	for i := range h.Pages {
		p := &h.Pages[i]
		st.pages++
		if p.Created() > start {
			st.born++
		}
		n, alive := p.Modifications(h.End)
		st.mods += n
		st.pageYears += float64(alive) / year
		for j, e := range p.Events {
			if e.Deleted {
				st.deleted++
			} else if j > 0 {
				perSecond[e.Time]++
			}
		}
	}
	for _, n := range perSecond {
		if n >= 10 {
			st.sweepMods += n
		}
	}
	return st
}

// TestBursty generates the default world and checks it against what the
// parameters imply, with tolerances wide enough for one seed's luck but
// narrow enough to catch a parameter that does nothing: the pooled rate
// (Rate·e^{(Spread²+2·Drift²)/2} outside sweeps plus Sweeps·0.325), the
// share of modifications in sweeps, births and deaths.
func TestBursty(t *testing.T) {
	cfg := DefaultBursty()
	h, err := Bursty(cfg)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Bursty(cfg)
	if !reflect.DeepEqual(h, again) {
		t.Fatal("the same seed gave another history")
	}
	st := measure(h, cfg.Start.Unix())
	t.Logf("%+v", st)
	own := cfg.Rate * math.Exp((cfg.Spread*cfg.Spread+2*cfg.Drift*cfg.Drift)/2)
	sweep := cfg.Sweeps * (cfg.SweepMin + cfg.SweepMax) / 2
	pooled := float64(st.mods) / st.pageYears
	if want := own + sweep; pooled < want/2 || pooled > want*2 {
		t.Errorf("pooled rate %.2f per page-year, want about %.2f", pooled, want)
	}
	if share := float64(st.sweepMods) / float64(st.mods); share < 0.15 || share > 0.7 {
		t.Errorf("%.2f of modifications in sweeps, want about %.2f", share, sweep/(own+sweep))
	}
	wantBorn := cfg.Growth * cfg.Years * float64(cfg.Sites*cfg.Pages)
	if b := float64(st.born); b < wantBorn/2 || b > wantBorn*2 {
		t.Errorf("%d pages born, want about %.0f", st.born, wantBorn)
	}
	if wantDead := cfg.Deaths * st.pageYears; st.deleted == 0 || float64(st.deleted) > 3*wantDead {
		t.Errorf("%d deletions, want about %.0f", st.deleted, wantDead)
	}
	// Without sweeps, births or drift, the world is Poisson at Rate.
	flat := cfg
	flat.Sweeps, flat.Growth, flat.Drift, flat.Spread, flat.Deaths = 0, 0, 0, 0, 0
	fh, _ := Bursty(flat)
	fs := measure(fh, cfg.Start.Unix())
	if r := float64(fs.mods) / fs.pageYears; math.Abs(r-cfg.Rate) > 4*math.Sqrt(cfg.Rate/fs.pageYears) || fs.born != 0 || fs.sweepMods != 0 {
		t.Errorf("flat world: rate %.3f per page-year, %d born, %d in sweeps", r, fs.born, fs.sweepMods)
	}
}

func TestBurstyConfigErrors(t *testing.T) {
	for _, mod := range []func(*BurstyConfig){
		func(c *BurstyConfig) { c.Sites = 0 },
		func(c *BurstyConfig) { c.Years = 0 },
		func(c *BurstyConfig) { c.SweepMax = 1.5 },
		func(c *BurstyConfig) { c.Memory = 0 },
		func(c *BurstyConfig) { c.Growth = -1 },
	} {
		c := DefaultBursty()
		mod(&c)
		if _, err := Bursty(c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

func TestParseBursty(t *testing.T) {
	tests := []struct{ spec, err string }{
		{"sites=2, pages=50,years=1.5,sweep-max=0.9", ""},
		{"sites=2.5", "want a whole number"},
		{"speed=3", "unknown name"},
		{"rate", "want name=number"},
		{"sweep-min=0.8", "sweep-min ≤ sweep-max"},
	}
	for _, tt := range tests {
		c, err := ParseBursty(tt.spec, DefaultBursty())
		if tt.err == "" && (err != nil || c.Sites != 2 || c.Pages != 50 || c.Years != 1.5 || c.SweepMax != 0.9 || c.Rate != DefaultBursty().Rate) {
			t.Errorf("%q: %+v, %v", tt.spec, c, err)
		}
		if tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%q: error %v, want %q", tt.spec, err, tt.err)
		}
	}
}
