package history

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

// pep3142 is the example line of the dataset's README, with a header and a
// page that is deleted for good.
const pep3142 = "# source: example\n# end: 1780000000\n" +
	"/a/\t100 d200\n" +
	"/pep-3142/\t1177650660 d1177650970 1232274500 1368203275 1484642607 1497207759 1642763031 1738403478\n"

func mustParse(t *testing.T, text string) *History {
	t.Helper()
	h, err := Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestParseExample reads the README's example and asks the page's state
// at instants around its events, each answer counted from the README's
// rule (exists iff the last event at or before t is plain; version = plain
// events at or before t).
func TestParseExample(t *testing.T) {
	h := mustParse(t, pep3142)
	if h.End != 1780000000 || len(h.Headers) != 2 || len(h.Pages) != 2 {
		t.Fatalf("end %d, %d headers, %d pages", h.End, len(h.Headers), len(h.Pages))
	}
	p := h.Lookup("/pep-3142/")
	if p == nil || h.Lookup("/pep-3143/") != nil {
		t.Fatal("Lookup")
	}
	tests := []struct {
		t    int64
		want State
	}{
		{1177650659, State{false, 0, 0, 1177650660}},
		{1177650660, State{true, 1, 1177650660, 1177650970}},
		{1177650970, State{false, 1, 1177650970, 1232274500}},
		{1200000000, State{false, 1, 1177650970, 1232274500}},
		{1232274500, State{true, 2, 1232274500, 1368203275}},
		{1700000000, State{true, 6, 1642763031, 1738403478}},
		{2000000000, State{true, 7, 1738403478, math.MaxInt64}},
	}
	for _, tt := range tests {
		if got := p.At(tt.t); got != tt.want {
			t.Errorf("At(%d) = %+v, want %+v", tt.t, got, tt.want)
		}
	}
	if v, ok := p.VersionTime(2); !ok || v != 1232274500 {
		t.Errorf("VersionTime(2) = %d, %v", v, ok)
	}
	if _, ok := p.VersionTime(8); ok {
		t.Error("VersionTime(8) exists")
	}
	if n, alive := p.Modifications(1780000000); n != 6 || alive != (1177650970-1177650660)+(1780000000-1232274500) {
		t.Errorf("Modifications = %d, %d", n, alive)
	}
	if !h.Drop("/a/") || h.Drop("/a/") || len(h.Pages) != 1 {
		t.Errorf("Drop: %d pages left", len(h.Pages))
	}
}

// TestParseErrors checks that each kind of bad input is refused with the
// line it is on.
func TestParseErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"unsorted", "/b/\t1\n/a/\t2\n", "line 2: key /a/ after /b/: keys are not sorted"},
		{"duplicate", "# x: y\n/a/\t1\n/a/\t2\n", "line 3: key /a/ appears again"},
		{"equal times", "/a/\t1 2 2\n", "line 1: /a/: event 3 at 2 is not after 2"},
		{"decreasing", "/a/\t5 3\n", "line 1: /a/: event 2 at 3 is not after 5"},
		{"d first", "/a/\td1 2\n", "line 1: /a/: event 1: a deletion must follow a plain event"},
		{"d after d", "/a/\t1 d2 d3\n", "line 1: /a/: event 3: a deletion must follow a plain event"},
		{"garbage event", "/a/\t1 x2\n", `line 1: /a/: event 2: want T or dT (unix seconds), got "x2"`},
		{"double space", "/a/\t1  2\n", `line 1: /a/: event 2: want T or dT (unix seconds), got ""`},
		{"no tab", "/a/ 1 2\n", "line 1: want KEY<TAB>events"},
		{"no slash", "a\t1\n", "line 1: want KEY<TAB>events"},
		{"empty line", "/a/\t1\n\n", "line 2: want KEY<TAB>events"},
		{"bad end", "# end: soon\n", `line 1: end: want unix seconds, got "soon"`},
		{"signed", "/a/\t+1\n", "line 1: /a/: event 1: want T or dT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line with %q", err, tt.want)
			}
		})
	}
}

// TestEvaluateByHand scores copies of the example at 1500000000, when
// /pep-3142/ is at version 5 (since 1497207759), against ages worked out
// by hand from the event list.
func TestEvaluateByHand(t *testing.T) {
	h := mustParse(t, pep3142)
	const now = 1500000000
	copies := []simweb.Copy{
		{URL: "/pep-3142/", Version: 5}, // live: fresh
		{URL: "/pep-3142/", Version: 4}, // stale since version 5: 1500000000 − 1497207759
		{URL: "/pep-3142/", Version: 1}, // stale since the deletion: 1500000000 − 1177650970
		{URL: "/pep-3142/", Version: 2}, // stale since version 3: 1500000000 − 1368203275
		{URL: "/a/", Version: 1},        // deleted at 200
		{URL: "/nope/", Version: 1},
	}
	q := h.Evaluate(now, copies)
	ages := []int64{0, 2792241, 322349030, 131796725, now - 200}
	sum := int64(0)
	for _, a := range ages {
		sum += a
	}
	want := simweb.Quality{Pages: 5, Fresh: 1, Freshness: 0.2, MeanAge: time.Duration(float64(sum) / 5 * 1e9), Unknown: 1}
	if q != want {
		t.Errorf("Evaluate = %+v, want %+v", q, want)
	}
	// At the instant version 6 appears, a copy of version 5 is stale with
	// age 0, and not fresh.
	if q := h.Evaluate(1642763031, copies[:1]); q.Fresh != 0 || q.MeanAge != 0 {
		t.Errorf("at the change: %+v", q)
	}
}

// TestRoundTrip writes parsed and generated histories and reads them back.
func TestRoundTrip(t *testing.T) {
	gen, err := Bursty(DefaultBursty())
	if err != nil {
		t.Fatal(err)
	}
	for name, h := range map[string]*History{"example": mustParse(t, pep3142), "bursty": gen} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteTSV(&b, h); err != nil {
				t.Fatal(err)
			}
			back, err := Parse(&b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, h) {
				t.Errorf("round trip differs")
			}
		})
	}
	var b bytes.Buffer
	_ = WriteTSV(&b, mustParse(t, pep3142))
	if b.String() != pep3142 {
		t.Errorf("WriteTSV = %q, want the input", b.String())
	}
}
