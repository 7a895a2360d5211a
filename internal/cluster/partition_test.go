package cluster

import (
	"fmt"
	"testing"
)

func TestParse(t *testing.T) {
	for _, s := range []Scheme{BySite, ByURL, ByTLD} {
		got, err := ParseScheme(s.String())
		if err != nil || got != s {
			t.Errorf("ParseScheme(%q) = %v, %v", s, got, err)
		}
	}
	for _, m := range []Mode{ModeFirewall, ModeCrossOver, ModeExchange} {
		got, err := ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m, got, err)
		}
	}
	for _, bad := range []string{"", "Site", "hash", "Scheme(0)"} {
		if _, err := ParseScheme(bad); err == nil {
			t.Errorf("ParseScheme(%q) succeeded", bad)
		}
		if _, err := ParseMode(bad); err == nil {
			t.Errorf("ParseMode(%q) succeeded", bad)
		}
	}
}

func TestPartitionerKeys(t *testing.T) {
	tests := []struct {
		scheme Scheme
		url    string
		key    string
	}{
		{BySite, "http://news.bbc.co.uk/a", "bbc.co.uk"},
		{BySite, "http://www.bbc.co.uk:8080/b?x", "bbc.co.uk"},
		{BySite, "http://127.0.0.1:8080/", "127.0.0.1"},
		{ByURL, "http://news.bbc.co.uk/a", "http://news.bbc.co.uk/a"},
		{ByTLD, "http://news.bbc.co.uk/a", "co.uk"},
		{ByTLD, "https://a.example.com/", "com"},
	}
	for _, tt := range tests {
		p := Partitioner{Scheme: tt.scheme, N: 16}
		if got := p.Key(tt.url); got != tt.key {
			t.Errorf("%v Key(%q) = %q, want %q", tt.scheme, tt.url, got, tt.key)
		}
	}
}

// TestSiteTogether checks what the default scheme is for: every page of a
// site in one partition, whatever its host, while sites spread evenly
// over the partitions (5,000 sites over 8: each within 15 % of 625, six
// standard deviations of a binomial's 22).
func TestSiteTogether(t *testing.T) {
	p := Partitioner{Scheme: BySite, N: 8}
	counts := make([]int, p.N)
	for i := range 5000 {
		site := fmt.Sprintf("site%d.example", i)
		want := p.Of("http://" + site + "/")
		for _, u := range []string{"http://www." + site + "/a/b", "https://img." + site + ":8443/x.png"} {
			if got := p.Of(u); got != want {
				t.Fatalf("%s in partition %d, its site's home page in %d", u, got, want)
			}
		}
		counts[want]++
	}
	for i, c := range counts {
		if c < 531 || c > 719 {
			t.Errorf("partition %d holds %d of 5,000 sites, want 625 ± 15 %%", i, c)
		}
	}
	// URL hash scatters a site: 64 pages of one site land in more than
	// half of 8 partitions (all in one has probability 8^−63).
	u := Partitioner{Scheme: ByURL, N: 8}
	seen := map[int]bool{}
	for i := range 64 {
		seen[u.Of(fmt.Sprintf("http://one.example/p%d", i))] = true
	}
	if len(seen) < 5 {
		t.Errorf("URL hash put 64 pages of a site in %d of 8 partitions", len(seen))
	}
}

func TestOnePartition(t *testing.T) {
	for _, n := range []int{0, 1} {
		if got := (Partitioner{Scheme: BySite, N: n}).Of("http://a.example/"); got != 0 {
			t.Errorf("N=%d: partition %d", n, got)
		}
	}
}
