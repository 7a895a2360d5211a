package ch3

import (
	"fmt"
	"slices"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
	"github.com/freshcrawl/freshcrawl/internal/rank"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

// handWorld builds a World of the given pages (site, path) and links.
func handWorld(t *testing.T, pages [][2]string, links [][2]int) *World {
	t.Helper()
	var b rank.Builder
	b.AddNode(uint32(len(pages) - 1))
	for _, l := range links {
		b.AddEdge(uint32(l[1]), uint32(l[0]))
	}
	g, err := b.Build(rank.BuildOptions{Dedupe: true})
	if err != nil {
		t.Fatal(err)
	}
	w := &World{Out: g}
	sites := map[string]int32{}
	for _, p := range pages {
		if _, ok := sites[p[0]]; !ok {
			sites[p[0]] = int32(len(sites))
		}
		w.URL, w.Site = append(w.URL, "http://"+p[0]+p[1]), append(w.Site, sites[p[0]])
	}
	w.Sites = len(sites)
	w.index()
	return w
}

// fig32 is the toy web of Fig. 3.2 with the edges spec §5.3 reconstructs:
// S1 = {a, …, e} and S2 = {f, …, i}; within S1 a → b → c and d → e,
// within S2 f → g, f → i, g → h; between them a → g, c → g and h → d.
// The two sites' names are picked so that site-hash puts S1 in
// partition 0 and S2 in partition 1 of 2.
func fig32(t *testing.T) (*World, []int32) {
	t.Helper()
	p := cluster.Partitioner{Scheme: cluster.BySite, N: 2}
	var s1, s2 string
	for i := 0; s1 == "" || s2 == ""; i++ {
		name := fmt.Sprintf("s%d.test", i)
		if p.Of("http://"+name+"/") == 0 && s1 == "" {
			s1 = name
		} else if p.Of("http://"+name+"/") == 1 && s2 == "" {
			s2 = name
		}
	}
	var pages [][2]string
	for _, x := range "abcde" {
		pages = append(pages, [2]string{s1, "/" + string(x)})
	}
	for _, x := range "fghi" {
		pages = append(pages, [2]string{s2, "/" + string(x)})
	}
	const a, b, c, d, e, f, g, h, i = 0, 1, 2, 3, 4, 5, 6, 7, 8
	w := handWorld(t, pages, [][2]int{{a, b}, {b, c}, {d, e}, {f, g}, {f, i}, {g, h}, {a, g}, {c, g}, {h, d}})
	part := w.Partition(p)
	if !slices.Equal(part, []int32{0, 0, 0, 0, 0, 1, 1, 1, 1}) {
		t.Fatalf("partitions %v", part)
	}
	return w, part
}

// TestFig32 checks the three modes on Fig. 3.2's web (spec claim 2, from
// §3.3's prose): firewall covers 7/9 (printed "0.77") with no overlap or
// messages; exchange covers 9/9 with no overlap, sending g twice and d
// once when it sends after every page, g once when one batch spans a … c
// (§3.3's batching example); cross-over covers 9/9 and, both C-procs
// crossing over (C1 via g, h; C2 via d, e), downloads 13 pages: overlap
// 4/9 (spec's derived value).
func TestFig32(t *testing.T) {
	w, part := fig32(t)
	seeds := [][]uint32{{0}, {5}}
	tests := []struct {
		name     string
		s        Setup
		want     cluster.Counts
		coverage float64
	}{
		{"firewall", Setup{Mode: cluster.ModeFirewall}, cluster.Counts{Downloads: 7, Unique: 7, Target: 9}, 7.0 / 9},
		{"exchange immediate", Setup{Mode: cluster.ModeExchange, Every: 1}, cluster.Counts{Downloads: 9, Unique: 9, Target: 9, Exchanged: 3}, 1},
		{"exchange batched", Setup{Mode: cluster.ModeExchange, Every: 100}, cluster.Counts{Downloads: 9, Unique: 9, Target: 9, Exchanged: 2}, 1},
		{"cross-over", Setup{Mode: cluster.ModeCrossOver}, cluster.Counts{Downloads: 13, Unique: 9, Target: 9}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s
			s.Part, s.Seeds = part, seeds
			r, err := Crawl(w, s)
			if err != nil {
				t.Fatal(err)
			}
			if r.Counts != tt.want || r.Coverage() != tt.coverage {
				t.Errorf("counts %+v (coverage %.3f), want %+v (%.3f)", r.Counts, r.Coverage(), tt.want, tt.coverage)
			}
		})
	}
}

// TestBatchResend checks claim 31 in a crawl: with a batch a page, g is
// sent by C1 after a and again after c (a resend, no sent-set); with one
// batch for the crawl it is sent once, its count 2 (a merged entry).
func TestBatchResend(t *testing.T) {
	w, part := fig32(t)
	for _, tt := range []struct {
		every          int
		merged, resent int64
	}{{1, 0, 1}, {100, 1, 0}} {
		r, err := Crawl(w, Setup{Mode: cluster.ModeExchange, Every: tt.every, Part: part, Seeds: [][]uint32{{0}, {5}}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Merged != tt.merged || r.Resent != tt.resent {
			t.Errorf("every %d: merged %d, resent %d; want %d, %d", tt.every, r.Merged, r.Resent, tt.merged, tt.resent)
		}
	}
}

// reach returns the pages reachable from seeds following only links
// allowed: a brute-force breadth-first search.
func reach(w *World, seeds []uint32, allowed func(from, to uint32) bool) []bool {
	in := make([]bool, w.Pages())
	queue := slices.Clone(seeds)
	for _, s := range seeds {
		in[s] = true
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, v := range w.Out.In(u) {
			if !in[v] && allowed(u, v) {
				in[v] = true
				queue = append(queue, v)
			}
		}
	}
	return in
}

func count(b []bool) (n int64) {
	for _, x := range b {
		if x {
			n++
		}
	}
	return n
}

// TestCrawlBruteForce checks each mode on a small simweb against a
// brute-force search: firewall downloads what each C-proc reaches within
// its partition; exchange what the union of seeds reaches, once each,
// sending every inter-partition link of every page downloaded but those
// to replicated pages (immediate transfer); cross-over has each C-proc
// download all it reaches, so N is the sum of their reaches.
func TestCrawlBruteForce(t *testing.T) {
	cfg := simweb.DefaultConfig()
	cfg.Hosts, cfg.PagesPerHost = 300, 12
	w, err := NewWorld(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 3, 8} {
		part := w.Partition(cluster.Partitioner{Scheme: cluster.BySite, N: n})
		seeds := RandomSeeds(part, n, 2*n, 4)
		var fw, co int64
		for p, ss := range seeds {
			fw += count(reach(w, ss, func(_, v uint32) bool { return part[v] == int32(p) }))
			co += count(reach(w, ss, func(_, _ uint32) bool { return true }))
		}
		all := reach(w, slices.Concat(seeds...), func(_, _ uint32) bool { return true })
		top := rank.TopK(w.Backlinks(), 20)
		urls := make([]string, len(top))
		for i, v := range top {
			urls[i] = w.URL[v]
		}
		repl := cluster.NewReplicated(urls)
		for _, v := range top { // replicated pages are seeds of their owners
			all = orReach(all, reach(w, []uint32{uint32(v)}, func(_, _ uint32) bool { return true }))
		}
		var sent int64
		for u, ok := range all {
			for _, v := range w.Out.In(uint32(u)) {
				if ok && part[v] != part[u] && !repl.Has(w.URL[v]) {
					sent++
				}
			}
		}
		check := func(name string, s Setup, want cluster.Counts) {
			s.Part, s.Seeds = part, seeds
			r, err := Crawl(w, s)
			if err != nil {
				t.Fatal(err)
			}
			want.Target = int64(w.Pages())
			if r.Counts != want {
				t.Errorf("n = %d, %s: %+v, want %+v", n, name, r.Counts, want)
			}
		}
		check("firewall", Setup{Mode: cluster.ModeFirewall}, cluster.Counts{Downloads: fw, Unique: fw})
		check("exchange", Setup{Mode: cluster.ModeExchange, Every: 1, Replicated: repl},
			cluster.Counts{Downloads: count(all), Unique: count(all), Exchanged: sent})
		check("cross-over", Setup{Mode: cluster.ModeCrossOver},
			cluster.Counts{Downloads: co, Unique: count(reach(w, slices.Concat(seeds...), func(_, _ uint32) bool { return true }))})
	}
}

func orReach(a, b []bool) []bool {
	for i := range a {
		a[i] = a[i] || b[i]
	}
	return a
}
