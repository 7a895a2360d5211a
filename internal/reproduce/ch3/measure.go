package ch3

// Dissertation ch. 3 (parallel crawlers): the web the experiments crawl
// and everything they measure, for claims.go to set against the paper.

import (
	"errors"
	"fmt"
	"sync"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

// Web returns the simweb of ch. 3's experiments, of the given seed: 8,192
// sites of 50 pages (409,600 pages), about 9.4 links a page, in-degree
// Zipfian as simweb draws it. It cannot be smaller for tests: with fewer
// sites the 5 seeds of a C-proc alone cover a large share of a partition
// at n = 64 (at 2,048 sites, a fifth of it), and firewall coverage no
// longer falls below 0.1. Two settings are
// calibrated to the paper. The same-site share of links (0.91, against
// simweb's 0.9) gives 0.87 links a page to other sites, the share that
// §3.8's exchange overheads (0.43–0.5, 0.8, 0.86 at n = 2, 16, 64) imply
// under the naive model L_inter·(1 − 1/n); the size of a site (50 pages)
// sets how many other sites a site links to, and with it how fast
// firewall coverage falls with n: 50 puts n = 16 at 0.5, Fig. 3.4's
// midpoint (25 pages put it at 0.05, 70 at 0.73).
func Web(seed uint64) simweb.Config {
	c := simweb.DefaultConfig()
	c.Seed = seed
	c.Hosts, c.PagesPerHost = 8192, 50
	c.IntraSite = 0.91
	return c
}

// Budgets, C-proc counts and exchange counts of the quality experiments
// (§3.9, Figs. 3.9–3.11): the paper's 500K, 2M and 8M pages of 40M, and
// "more than 50 %".
var (
	budgets   = []float64{0.0125, 0.05, 0.2, 0.5}
	qualityNs = []int{2, 8, 64}
	exchanges = []int{0, 1, 2, 5, 10, 20, 50, 100}
)

// firewallNs are Fig. 3.4's C-proc counts.
var firewallNs = []int{1, 2, 4, 8, 16, 32, 64}

// replicate are the replicated set sizes of Fig. 3.8 as shares of the
// web: 10^4, 10^5 and 2·10^5 of 40M pages.
var replicate = []float64{0.00025, 0.0025, 0.005}

// measures are ch. 3's measurements.
type measures struct {
	pages, sites, links int
	firewall            map[int]float64 // coverage by n
	firewallOverlap     float64         // the largest overlap of the firewall crawls
	half                map[int]float64 // coverage by n, on half the sites
	seeds               map[[2]int]float64
	cross               map[int]crossCurve
	site, url           map[int]*Result // exchange, immediate, by n
	repl                []float64       // communication at n = 64 by replicated share
	quality             map[qkey]qualityRun
}

// qkey is a quality run: budget index, n (1 for the single process, with
// the seeds of seedsOf C-procs) and x.
type qkey struct{ budget, n, seedsOf, x int }

// measure runs every experiment on the web of cfg.
func measure(cfg simweb.Config, seed uint64) (*measures, error) {
	w, err := NewWorld(cfg)
	if err != nil {
		return nil, err
	}
	l := newLab(w, seed)
	m := &measures{pages: w.Pages(), sites: w.Sites, links: int(w.Out.Edges())}
	// Three chains at once, each writing its own fields of m; the
	// cross-over crawls need firewall's coverage.
	chains := [][]func(*lab, *measures) error{{measureFirewall, measureCrossOver}, {measureExchange}, {measureQuality}}
	errs := make([]error, len(chains))
	var wg sync.WaitGroup
	for i, chain := range chains {
		wg.Go(func() {
			for _, step := range chain {
				if errs[i] = step(l, m); errs[i] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return m, nil
}

// measureFirewall runs Fig. 3.4's and 3.5's firewall crawls, on the web
// and on half its sites.
func measureFirewall(l *lab, m *measures) error {
	half, err := l.w.HalfSites(l.seed)
	if err != nil {
		return err
	}
	m.firewall, m.half, m.seeds = map[int]float64{}, map[int]float64{}, map[[2]int]float64{}
	for _, n := range firewallNs {
		var o float64
		if m.firewall[n], o, err = l.firewall(l.w, n, seedsPerProc*n); err != nil {
			return err
		}
		m.firewallOverlap = max(m.firewallOverlap, o)
		if m.half[n], _, err = l.firewall(half, n, seedsPerProc*n); err != nil {
			return err
		}
	}
	for _, n := range []int{2, 8, 64} {
		for _, s := range []int{64, 128, 256, 512, 1024} {
			if m.seeds[[2]int{n, s}], _, err = l.firewall(l.w, n, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// measureCrossOver runs Fig. 3.6's cross-over crawls for n = 4 and 16.
func measureCrossOver(l *lab, m *measures) error {
	m.cross = map[int]crossCurve{}
	for _, n := range []int{4, 16} {
		c, err := l.crossOver(n, m.firewall[n])
		if err != nil {
			return err
		}
		m.cross[n] = c
	}
	return nil
}

// measureExchange runs Fig. 3.7's exchange crawls (site-hash for every n,
// URL-hash for n = 2) and Fig. 3.8's replication at n = 64.
func measureExchange(l *lab, m *measures) error {
	m.site, m.url = map[int]*Result{}, map[int]*Result{}
	var err error
	for _, n := range firewallNs[1:] {
		if m.site[n], err = l.exchange(cluster.BySite, n, 0); err != nil {
			return err
		}
	}
	if m.url[2], err = l.exchange(cluster.ByURL, 2, 0); err != nil {
		return err
	}
	for _, share := range replicate {
		r, err := l.exchange(cluster.BySite, 64, int(share*float64(m.pages)+0.5))
		if err != nil {
			return err
		}
		m.repl = append(m.repl, r.Communication())
	}
	return nil
}

// measureQuality runs the crawls of Figs. 3.9–3.11: at the smallest
// budget every n and x; at every budget firewall and the single process
// for n = 2; at 20 % every x for n = 8.
func measureQuality(l *lab, m *measures) error {
	m.quality = map[qkey]qualityRun{}
	run := func(k qkey) error {
		if _, ok := m.quality[k]; ok {
			return nil
		}
		q, err := l.quality(k.n, k.seedsOf, budgets[k.budget], k.x)
		if err != nil {
			return fmt.Errorf("quality %+v: %w", k, err)
		}
		m.quality[k] = q
		return nil
	}
	var keys []qkey
	for _, n := range qualityNs {
		keys = append(keys, qkey{0, 1, n, 0})
		for _, x := range exchanges {
			keys = append(keys, qkey{0, n, n, x}, qkey{2, 8, 8, x})
		}
	}
	for b := range budgets {
		keys = append(keys, qkey{b, 2, 2, 0}, qkey{b, 1, 2, 0})
	}
	keys = append(keys, qkey{2, 1, 8, 0})
	for _, k := range keys {
		if err := run(k); err != nil {
			return err
		}
	}
	return nil
}
