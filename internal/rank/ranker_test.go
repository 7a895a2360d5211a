package rank

import (
	"math"
	"reflect"
	"testing"
)

// TestRankerRefines feeds a backlink ranker a crawl of six pages on six
// hosts, a full collection of three, and checks what one ranking hands
// out against the in-degrees counted here by hand:
//
//	a→d a→e b→d c→d d→a d→c e→a      held a, b, c; frontier d, e, f
//	in-degree: a 2, b 0, c 1, d 3, e 1, f 0
//
// The most important outside URL, d (3), beats the least important held
// page, b (0), so d enters in b's place; the next, e (1), does not beat c
// (1), so e and f are handed out to explore only. Weights are importance
// over the held pages' mean (1), bounded below by 1/256.
func TestRankerRefines(t *testing.T) {
	var got map[string][]Promotion
	r, err := NewRanker(RankerConfig{Ordering: OrderBacklink, Capacity: 3, Promote: 10,
		Publish: func(p map[string][]Promotion) { got = p }})
	if err != nil {
		t.Fatal(err)
	}
	u := func(h string) string { return "http://" + h + ".test/" }
	links := func(hs ...string) []string {
		var out []string
		for _, h := range hs {
			out = append(out, u(h))
		}
		return out
	}
	r.Observe([]Update{
		{URL: u("a"), State: Held, SetLinks: true, Links: links("d", "e")},
		{URL: u("b"), State: Held, SetLinks: true, Links: links("d")},
		{URL: u("c"), State: Held, SetLinks: true, Links: links("d")},
	})
	r.Observe([]Update{
		{URL: u("d"), State: Frontier, SetLinks: true, Links: links("a", "c")},
		{URL: u("e"), State: Frontier, SetLinks: true, Links: links("a")},
		{URL: u("f"), State: Frontier},
	})
	r.rank()
	want := map[string][]Promotion{
		"d.test": {{URL: u("d"), Enters: true}},
		"e.test": {{URL: u("e")}},
		"f.test": {{URL: u("f")}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("handed out %v, want %v", got, want)
	}
	if !r.Claim() {
		t.Fatal("no victim to claim for d")
	}
	if r.Claim() {
		t.Error("a second claim with one victim named")
	}
	r.Unclaim()
	if v := r.Victim(map[string]bool{}); v != u("b") {
		t.Errorf("victim %q, want b", v)
	}
	if v := r.Victim(map[string]bool{}); v != "" {
		t.Errorf("a second victim %q, want none", v)
	}
	weights := map[string]float64{"a": 2, "b": 1.0 / 256, "c": 1, "d": 3, "e": 1, "f": 1.0 / 256}
	for h, w := range weights {
		if got := r.Weight(u(h)); math.Abs(got-w) > 1e-12 {
			t.Errorf("weight of %s %g, want %g", h, got, w)
		}
	}
	if w := r.Weight(u("z")); w != 0 {
		t.Errorf("weight of a page never ranked %g, want 0", w)
	}
}

// With room in the collection every URL outside may enter, in order of
// importance, up to Promote of them, ties going to the URL found first; a
// page held or gone is never handed out. In-degrees: a/2 1, b/1 1, b/2 2;
// a/2 was found before b/1.
func TestRankerFills(t *testing.T) {
	r, got := fillsRanker(t)
	r.rank()
	want := map[string][]Promotion{"b.test": {{URL: "http://b.test/2", Enters: true}}, "a.test": {{URL: "http://a.test/2", Enters: true}}}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("handed out %v, want %v", *got, want)
	}
}

// fillsRanker is TestRankerFills's backlink ranker, its graph observed,
// and where its rankings are handed out.
func fillsRanker(t *testing.T) (*Ranker, *map[string][]Promotion) {
	t.Helper()
	got := new(map[string][]Promotion)
	r, err := NewRanker(RankerConfig{Ordering: OrderBacklink, Capacity: 10, Promote: 2,
		Publish: func(p map[string][]Promotion) { *got = p }})
	if err != nil {
		t.Fatal(err)
	}
	r.Observe([]Update{
		{URL: "http://a.test/1", State: Held, SetLinks: true, Links: []string{"http://a.test/2", "http://b.test/1", "http://b.test/2"}},
		{URL: "http://a.test/3", State: Gone, SetLinks: true, Links: []string{"http://b.test/2"}},
	})
	return r, got
}

// TestRankerInlinks: links from outside the crawl (a cluster's other
// partitions, Update.Inlinks, each a total that replaces the last) add to
// the in-degree the ranking counts, and change nothing else. The graph of
// TestRankerFills with 3 links to b/1 from outside: b/1 4, b/2 2, a/2 1, so
// b/1 and b/2 are handed out, not b/2 and a/2; the Inlinks update leaves
// b/1 in the frontier.
func TestRankerInlinks(t *testing.T) {
	r, got := fillsRanker(t)
	r.Observe([]Update{
		{URL: "http://b.test/1", Inlinks: 1},
		{URL: "http://b.test/1", Inlinks: 3},
		{URL: "http://a.test/1", Inlinks: 7}, // held: never handed out
	})
	r.rank()
	want := map[string][]Promotion{"b.test": {{URL: "http://b.test/1", Enters: true}, {URL: "http://b.test/2", Enters: true}}}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("handed out %v, want %v", *got, want)
	}
}

func TestNewRankerOrderings(t *testing.T) {
	for _, o := range Orderings() {
		_, err := NewRanker(RankerConfig{Ordering: o, Publish: func(map[string][]Promotion) {}})
		if wantErr := o == OrderBreadthFirst || o == OrderRandom; (err != nil) != wantErr {
			t.Errorf("NewRanker(%s): %v", o, err)
		}
	}
}
