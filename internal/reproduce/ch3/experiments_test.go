package ch3

import (
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

func smallWorld(t *testing.T) *World {
	t.Helper()
	cfg := simweb.DefaultConfig()
	cfg.Hosts, cfg.PagesPerHost = 200, 20
	w, err := NewWorld(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestRandomSeeds checks the seeds' counts (s spread evenly, the first
// s mod n partitions one more), that each is in its partition and none
// repeats.
func TestRandomSeeds(t *testing.T) {
	w := smallWorld(t)
	part := w.Partition(cluster.Partitioner{Scheme: cluster.BySite, N: 8})
	seeds := RandomSeeds(part, 8, 43, 1)
	seen := map[uint32]bool{}
	for p, ss := range seeds {
		want := 5
		if p < 3 {
			want = 6
		}
		if len(ss) != want {
			t.Errorf("partition %d: %d seeds, want %d", p, len(ss), want)
		}
		for _, v := range ss {
			if part[v] != int32(p) || seen[v] {
				t.Errorf("partition %d: seed %d in partition %d, repeated %v", p, v, part[v], seen[v])
			}
			seen[v] = true
		}
	}
}

// TestHalfSites checks the web of half the sites against a brute-force
// count: about half the sites, all their pages, and exactly the links
// between kept pages.
func TestHalfSites(t *testing.T) {
	w := smallWorld(t)
	h, err := w.HalfSites(3)
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	for _, u := range h.URL {
		kept[u] = true
	}
	var links int64
	for u := range w.Pages() {
		for _, v := range w.Out.In(uint32(u)) {
			if kept[w.URL[u]] && kept[w.URL[v]] {
				links++
			}
		}
	}
	// 200 sites, each kept with probability 1/2: 100 ± 3σ (σ ≈ 7).
	if h.Sites < 79 || h.Sites > 121 || h.Pages() != 20*h.Sites || h.Out.Edges() != links {
		t.Errorf("%d sites, %d pages, %d links; want about 100, 20 a site, %d", h.Sites, h.Pages(), h.Out.Edges(), links)
	}
}

// TestQualityBudget checks the quality crawls' budget and exchange
// spacing (§3.9: x = 1 is one exchange in the middle, x = 0 is
// firewall), and that a crawl ordered by IB' with an exchange after every
// round scores at least firewall's P_CS at n = 8.
func TestQualityBudget(t *testing.T) {
	l := newLab(smallWorld(t), 1)
	for _, x := range []int{0, 1, 4, 10} {
		q, err := l.quality(4, 4, 0.1, x)
		if err != nil {
			t.Fatal(err)
		}
		if q.Exchanges != x || (x == 0) != (q.Pairs == 0) {
			t.Errorf("x = %d: %d exchanges, %.3f pairs a page", x, q.Exchanges, q.Pairs)
		}
	}
	fw, _ := l.quality(8, 8, 0.05, 0)
	ex, _ := l.quality(8, 8, 0.05, 1000)
	if ex.PCS < fw.PCS {
		t.Errorf("P_CS exchanging every round %.3f < firewall's %.3f", ex.PCS, fw.PCS)
	}
}
