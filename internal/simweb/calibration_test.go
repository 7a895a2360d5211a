package simweb

import (
	"math"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/change/evolution"
	"github.com/freshcrawl/freshcrawl/internal/change/process/processtest"
	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// The ch. 4 method (daily visits, first bar = changed at every visit)
// applied to simweb gives back the printed first two bars. With 2,000
// pages the standard error of a share near 0.2 is 0.009; the tolerance
// of 0.03 is over 3 standard errors.
func TestCh4MethodReproducesPrintedBars(t *testing.T) {
	w, _ := newTestWeb(t, func(c *Config) { c.Hosts, c.PagesPerHost, c.Churn = 270, 10, 0 })
	st := Describe(w, 0)
	got := st.Ch4Bins[evolution.NumDomains]
	for b, want := range []float64{0.23, 0.15} {
		if math.Abs(got[b]-want) > 0.03 {
			t.Errorf("ch.4-method bar %q = %.3f, printed %.2f (tolerance 0.03)", evolution.Bins[b].Label, got[b], want)
		}
	}
}

// The link graph of a 10^5-page web has the shape dissertation ch. 2 and
// ch. 3 describe: about 10 out-links a page, about 90 % same-site (§3.3
// footnote), and an in-degree distribution whose hot sets for G = 3, 10,
// 100 are about 47 %, 10 % and 0.8 % (§2.5.2). These are "about" figures
// from another graph (the 1999 Stanford web), so the tolerances are wide
// enough for shape, narrow enough to fail if the generator loses its power
// law (a Poisson in-degree with mean 10 would give 99.7 %, 54 %, 0 %).
func TestLinkCalibration(t *testing.T) {
	w, _ := newTestWeb(t, func(c *Config) { c.Hosts, c.PagesPerHost = 100, 1000 })
	st := Describe(w, 1)
	checks := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"out-links per page", st.MeanOut, 10, 1},
		{"same-site share", st.IntraShare, 0.9, 0.02},
		{"in-degree >= 3", st.HotIB[0], 0.47, 0.05},
		{"in-degree >= 10", st.HotIB[1], 0.10, 0.03},
		{"in-degree >= 100", st.HotIB[2], 0.008, 0.006},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s = %.4f, want %.4f ± %.4f", c.name, c.got, c.want, c.tol)
		}
	}
}

// Links are topical (ch. 2's similarity crawlers need it, §2.5.4): the
// target of a same-site link shares its source's topic far more often than
// two random pages of the site do.
func TestTopicalLocality(t *testing.T) {
	w, _ := newTestWeb(t, func(c *Config) { c.Hosts, c.PagesPerHost = 20, 1000 })
	topic := func(si, slot int32) int {
		gen, _, _ := w.genAt(si, slot, 0)
		return w.pageTopic(si, slot, splitmix.Hash3(w.cfg.Seed, uint64(w.sites[si].first)+uint64(slot), uint64(gen)))
	}
	same, links, baseSame, pairs := 0, 0, 0, 0
	r := splitmix.NewStream(3)
	for si := int32(0); si < 20; si++ {
		for slot := int32(1); slot < 1000; slot++ {
			from := topic(si, slot)
			for _, l := range w.cachedLinks(si, slot) {
				if l.site == si && l.slot != 0 {
					links++
					if topic(l.site, l.slot) == from {
						same++
					}
				}
			}
			if other := int32(1 + r.IntN(999)); other != slot {
				pairs++
				if topic(si, other) == from {
					baseSame++
				}
			}
		}
	}
	linked, base := float64(same)/float64(links), float64(baseSame)/float64(pairs)
	t.Logf("same topic: %.3f of same-site links, %.3f of random page pairs", linked, base)
	if linked < 1.5*base {
		t.Errorf("same-topic share of links %.3f is not well above the base rate %.3f", linked, base)
	}
}

// Pages die after exponential lifetimes with their domain's mean: the
// realised lifetimes of later generations in the web pass a KS test.
func TestRealisedLifetimes(t *testing.T) {
	w, _ := newTestWeb(t, func(c *Config) { c.Hosts, c.PagesPerHost = 60, 200 })
	for d := evolution.Domain(0); d < evolution.NumDomains; d++ {
		var xs []float64
		for si := int32(0); si < 60; si++ {
			if w.sites[si].domain != d {
				continue
			}
			for slot := int32(1); slot < 200; slot++ {
				if w.sites[si].permanent(slot) {
					continue
				}
				for gen := int32(1); gen <= 3; gen++ {
					born, died := w.lifetime(si, slot, gen)
					xs = append(xs, float64(died-born))
				}
			}
		}
		mean := float64(evolution.MeanLifespan[d])
		dd, crit := processtest.KS(xs, processtest.ExponentialCDF(1/mean)), processtest.Critical(ksLevel, float64(len(xs)))
		if dd > crit {
			t.Errorf("%v: lifetimes KS D = %.4f > %.4f (n = %d)", d, dd, crit, len(xs))
		}
	}
}
