package urlx

import (
	"fmt"
	"hash/fnv"
	"testing"

	"golang.org/x/net/publicsuffix"

	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

func TestSiteKey(t *testing.T) {
	tests := []struct{ host, want string }{
		{"example.com", "example.com"},
		{"www.example.com", "example.com"},
		{"a.b.c.example.com", "example.com"},
		{"www.bbc.co.uk", "bbc.co.uk"},
		{"bbc.co.uk", "bbc.co.uk"},
		{"a.b.github.io", "b.github.io"}, // github.io is a private public suffix
		{"xn--bcher-kva.de", "xn--bcher-kva.de"},
		{"www.xn--bcher-kva.de", "xn--bcher-kva.de"},
		{"example.com.", "example.com"}, // trailing dot ignored
		{"www.example.com.", "example.com"},
		// the synthetic web's reserved zone: the default rule "*" makes
		// "test" the public suffix
		{"h17-com.test", "h17-com.test"},
		{"www.h17-com.test", "h17-com.test"},
		{"h3-org.test", "h3-org.test"},
		// no registered domain: the host is its own site
		{"localhost", "localhost"},
		{"127.0.0.1", "127.0.0.1"},
		{"[::1]", "[::1]"},
		{"[2001:db8::1]", "[2001:db8::1]"},
		{"co.uk", "co.uk"},
		{"com", "com"},
		{"github.io", "github.io"},
		{"a..example.com", "a..example.com"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := SiteKey(tt.host); got != tt.want {
			t.Errorf("SiteKey(%q) = %q, want %q", tt.host, got, tt.want)
		}
	}
}

// TestSiteKeyMatchesPublicSuffix checks SiteKey against the library's own
// EffectiveTLDPlusOne wherever that has an answer.
func TestSiteKeyMatchesPublicSuffix(t *testing.T) {
	hosts := []string{
		"www.bbc.co.uk", "a.b.github.io", "foo.blogspot.com", "x.y.z.appspot.com", "www.gov.uk",
		"a.kawasaki.jp", "b.a.kawasaki.jp", "city.kawasaki.jp", "www.city.kawasaki.jp", "s3.amazonaws.com",
		"h17-com.test", "www.h17-com.test", "a.b.c.d.e.example.org", "xn--85x722f.xn--55qx5d.cn",
	}
	for _, h := range hosts {
		want, err := publicsuffix.EffectiveTLDPlusOne(h)
		if err != nil {
			want = h
		}
		if got := SiteKey(h); got != want {
			t.Errorf("SiteKey(%q) = %q, publicsuffix says %q", h, got, want)
		}
	}
}

// TestSiteKeySimweb checks that every host of a synthetic web is its own
// site, as the crawler's politeness and partitioning assume.
func TestSiteKeySimweb(t *testing.T) {
	cfg := simweb.DefaultConfig()
	cfg.Hosts, cfg.PagesPerHost = 200, 2
	w, err := simweb.New(cfg, &simweb.ManualClock{})
	if err != nil {
		t.Fatal(err)
	}
	for si := range int32(w.NumSites()) {
		u, err := Parse(w.URL(si, 1, 0))
		if err != nil {
			t.Fatal(err)
		}
		if name := w.SiteName(si); u.SiteKey() != name || SiteKey("www."+name) != name {
			t.Errorf("site %d: SiteKey(%q) = %q, SiteKey(www.) = %q", si, u.Host(), u.SiteKey(), SiteKey("www."+name))
		}
	}
}

func TestHostOfCanonical(t *testing.T) {
	tests := []struct{ in, authority, host string }{
		{"http://a.example/b", "a.example", "a.example"},
		{"http://a.example:8080/b:c", "a.example:8080", "a.example"},
		{"http://[::1]/x", "[::1]", "[::1]"},
		{"http://[::1]:80/x", "[::1]:80", "[::1]"},
		{"https://a.example", "a.example", "a.example"},
		{"not a url", "", ""},
	}
	for _, tt := range tests {
		if got := Authority(tt.in); got != tt.authority {
			t.Errorf("Authority(%q) = %q, want %q", tt.in, got, tt.authority)
		}
		if got := Host(tt.in); got != tt.host {
			t.Errorf("Host(%q) = %q, want %q", tt.in, got, tt.host)
		}
	}
}

// TestFNV1a checks the hash against the FNV reference test vectors and
// against the standard library's implementation.
func TestFNV1a(t *testing.T) {
	vectors := map[string]uint64{
		"":       0xcbf29ce484222325,
		"a":      0xaf63dc4c8601ec8c,
		"foobar": 0x85944171f73967e8,
	}
	for s, want := range vectors {
		if got := fnv1a64(s); got != want {
			t.Errorf("fnv1a64(%q) = %#x, want %#x", s, got, want)
		}
	}
	for i := 0; i < 1000; i++ {
		s := fmt.Sprintf("h%d-com.test", i)
		h := fnv.New64a()
		h.Write([]byte(s))
		if got, want := fnv1a64(s), h.Sum64(); got != want {
			t.Fatalf("fnv1a64(%q) = %#x, hash/fnv says %#x", s, got, want)
		}
	}
}

// TestPartitionStable pins Partition's values: nodes of a cluster (and a
// cluster before and after an upgrade) must agree on them. If this test
// fails, the change moves sites between partitions. The values were
// computed independently, by a Python transcription of FNV-1a, fmix64 and
// (h·n) >> 64 on arbitrary-precision integers.
func TestPartitionStable(t *testing.T) {
	tests := []struct {
		key  string
		n    int
		want int
	}{
		{"example.com", 16, 9},
		{"bbc.co.uk", 16, 3},
		{"h17-com.test", 16, 14},
		{"h17-com.test", 7, 6},
		{"h17-com.test", 1000, 928},
		{"", 16, 14},
		{"anything", 1, 0},
	}
	for _, tt := range tests {
		if got := Partition(tt.key, tt.n); got != tt.want {
			t.Errorf("Partition(%q, %d) = %d, want %d", tt.key, tt.n, got, tt.want)
		}
	}
}

// TestPartitionUniform spreads 160,000 site names over 16 partitions and
// applies Pearson's chi-square test, two-sided: with 15 degrees of freedom
// a uniform random map gives a statistic below 3.48 or above 37.70 with
// probability 0.001 each. The keys are fixed, so the test is deterministic.
// The lower bound matters too: FNV-1a alone, reduced modulo 16, scores
// 0.009 on these keys, far too regular, because its low bits depend only
// on the low bits of the input bytes.
func TestPartitionUniform(t *testing.T) {
	const n, keys = 16, 160000
	var counts [n]int
	for i := 0; i < keys; i++ {
		p := Partition(fmt.Sprintf("h%d-com.test", i), n)
		if p < 0 || p >= n {
			t.Fatalf("Partition = %d, out of [0, %d)", p, n)
		}
		counts[p]++
	}
	expected := float64(keys) / n
	var chi2 float64
	for _, c := range counts {
		d := float64(c) - expected
		chi2 += d * d / expected
	}
	if chi2 < 3.48 || chi2 > 37.70 {
		t.Errorf("chi-square = %.3f outside [3.48, 37.70] (p = 0.001 each side, 15 dof); counts %v", chi2, counts)
	}
	t.Logf("chi-square = %.2f over %v", chi2, counts)
}

func TestPartitionPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Partition(key, 0) did not panic")
		}
	}()
	Partition("a", 0)
}
