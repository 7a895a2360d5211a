package simweb

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestLinkGraph: the links LinkGraph reports for a page are the links its
// rendered HTML carries, page by page, on a web without churn or faults.
func TestLinkGraph(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Hosts, cfg.PagesPerHost = 5, 60
	cfg.Churn = 0
	w, err := New(cfg, &ManualClock{})
	if err != nil {
		t.Fatal(err)
	}
	slotOf := map[string]int{}
	var urls []string
	w.Snapshot(0, func(u string, v Version) {
		slotOf[u] = len(urls)
		urls = append(urls, u)
	})
	want := make([][]int, len(urls))
	edges := 0
	w.LinkGraph(func(from, to int) {
		want[from] = append(want[from], to)
		edges++
	})
	if edges == 0 {
		t.Fatal("no links")
	}
	if got := w.SiteHome(3); !strings.HasSuffix(urls[got], ".test/") {
		t.Errorf("home of site 3 is %s", urls[got])
	}
	href := regexp.MustCompile(`href="([^"]*)"`)
	for from, u := range urls {
		rec := httptest.NewRecorder()
		w.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, u, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d", u, rec.Code)
		}
		var got []int
		host := u[:strings.Index(u[len("http://"):], "/")+len("http://")]
		for _, m := range href.FindAllStringSubmatch(rec.Body.String(), -1) {
			target := m[1]
			if strings.HasPrefix(target, "/") {
				target = host + target
			}
			if to, ok := slotOf[target]; ok {
				got = append(got, to)
			}
		}
		slices.Sort(got)
		got = slices.Compact(got)
		exp := slices.Clone(want[from])
		slices.Sort(exp)
		if !slices.Equal(got, exp) {
			t.Fatalf("%s links to %v, LinkGraph says %v", u, got, exp)
		}
	}
}
