package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// TestHumanSeconds pins the interval format.
func TestHumanSeconds(t *testing.T) {
	tests := []struct {
		s    float64
		want string
	}{{30, "30s"}, {90, "1.5m"}, {7 * 3600, "7h"}, {36 * 3600, "36h"}, {3.5 * 86400, "3.5d"}, {math.Inf(1), "∞"}}
	for _, tt := range tests {
		if got := HumanSeconds(tt.s); got != tt.want {
			t.Errorf("HumanSeconds(%g) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

// TestAllocationJSONEncoding checks that the hand-written JSON lines are
// byte for byte what encoding/json writes for Allocation, on ids that
// need escaping (quotes, HTML characters, control characters, non-ASCII,
// invalid UTF-8), numbers in every format range, and never-visited pages.
func TestAllocationJSONEncoding(t *testing.T) {
	ids := []string{"plain", "with \"quotes\" and \\", "<a href=x>&amp;", "ctl\x01\x1f", "héllo ✓", "bad\xff utf8", "\u2028"}
	var data strings.Builder
	for k, id := range ids {
		host := ""
		if k%2 == 1 {
			host = "\th<" + id[:1] + ">"
		}
		fmt.Fprintf(&data, "%s\t%g\t%g%s\n", id, []float64{0, 1e-9, 3, 2.5e7, 1e22, 0.1, 7}[k], []float64{1, 1e-7, 2, 3e21, 0.5, 1, 1}[k], host)
	}
	rf, err := ParseRates([]byte(data.String()))
	if err != nil {
		t.Fatal(err)
	}
	freqs := []float64{0, 1e-12, 1e-3, 1e25, 5, 3e-8, 1}
	for i := range rf.Pages {
		f := freqs[i]
		fresh := policy.Freshness(policy.FixedOrder, rf.Pages[i].Rate, f)
		age := policy.Age(policy.FixedOrder, rf.Pages[i].Rate, f)
		got := appendJSON(nil, rf, i, f, fresh, age)
		var want bytes.Buffer
		p := rf.Pages[i]
		if err := json.NewEncoder(&want).Encode(Allocation{
			ID: string(rf.ID(i)), ChangesPerDay: p.Rate * secondsPerDay, Weight: weightOf(p),
			VisitsPerDay: f * secondsPerDay, Interval: every(f), IntervalSeconds: finite(1 / f),
			Freshness: fresh, Age: HumanSeconds(age), AgeSeconds: finite(age), Host: string(rf.Host(i)),
		}); err != nil {
			t.Fatal(err)
		}
		if string(got) != want.String() {
			t.Errorf("page %d:\ngot  %s\nwant %s", i, got, want.String())
		}
	}
}
