package cluster

import (
	"math"
	"testing"
)

// TestCounts checks the §3.4 metrics on the chapter's own examples: the
// toy crawl of Fig. 3.2 in firewall mode (C1 fetched a, b, c; C2 f … i:
// coverage 7/9, printed truncated as 0.77, overlap 0); cross-over, where
// C1 also fetches g and h (overlap 2/9, claim 2); and 1,000 pages with
// 3,000 URLs exchanged (3 a page, claim 3).
func TestCounts(t *testing.T) {
	tests := []struct {
		name                string
		c                   Counts
		overlap, cover, com float64
	}{
		{"firewall toy", Counts{Downloads: 7, Unique: 7, Target: 9}, 0, 7.0 / 9, 0},
		{"cross-over toy", Counts{Downloads: 11, Unique: 9, Target: 9}, 2.0 / 9, 1, 0},
		{"exchange", Counts{Downloads: 1000, Unique: 1000, Target: 1000, Exchanged: 3000}, 0, 1, 3},
		{"nothing", Counts{}, 0, 0, 0},
	}
	for _, tt := range tests {
		if got := tt.c.Overlap(); math.Abs(got-tt.overlap) > 1e-12 {
			t.Errorf("%s: overlap %g, want %g", tt.name, got, tt.overlap)
		}
		if got := tt.c.Coverage(); math.Abs(got-tt.cover) > 1e-12 {
			t.Errorf("%s: coverage %g, want %g", tt.name, got, tt.cover)
		}
		if got := tt.c.Communication(); math.Abs(got-tt.com) > 1e-12 {
			t.Errorf("%s: communication %g, want %g", tt.name, got, tt.com)
		}
	}
	if got := math.Floor(Counts{Unique: 7, Target: 9}.Coverage()*100) / 100; got != 0.77 {
		t.Errorf("toy coverage truncated to %g, the paper prints 0.77", got)
	}
}

func TestReplicated(t *testing.T) {
	r := NewReplicated([]string{"http://a/", "http://b/"})
	if !r.Has("http://a/") || r.Has("http://c/") || r.Len() != 2 {
		t.Error("membership wrong")
	}
	var none *Replicated
	if none.Has("http://a/") || none.Len() != 0 {
		t.Error("a nil set holds something")
	}
}
