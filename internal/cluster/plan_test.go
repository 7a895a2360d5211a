package cluster

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/refresh"
)

// randomShare is a share of n bins in key order, as a planner's histogram
// gives them.
func randomShare(rng *rand.Rand, n int) refresh.Share {
	s := refresh.Share{Held: rng.Int64N(1 << 40), Queued: rng.Int64N(1 << 20), Excess: rng.Float64() * 3}
	rate := int64(-1500)
	for range n {
		if rng.IntN(4) == 0 || len(s.Bins) == 0 {
			rate += 1 + rng.Int64N(40)
		}
		w := rng.Int64N(2000) - 1000
		if len(s.Bins) > 0 && s.Bins[len(s.Bins)-1][0] == rate {
			w = s.Bins[len(s.Bins)-1][1] + 1 + rng.Int64N(5)
		}
		s.Bins = append(s.Bins, [3]int64{rate, w, 1 + rng.Int64N(1<<20)})
	}
	return s
}

// TestShareRoundTrip: a share comes back from its encoding as it went in,
// in at most 8 bytes a bin; a damaged one is refused.
func TestShareRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{0, 1, 7, 5000} {
		s := randomShare(rng, n)
		b := encodeShare(s)
		got, err := decodeShare(b)
		if err != nil || !reflect.DeepEqual(got, s) && n > 0 || got.Held != s.Held || got.Excess != s.Excess {
			t.Fatalf("%d bins: got %+v, %v", n, got.Held, err)
		}
		if n == 5000 && len(b) > 8*n {
			t.Errorf("%d bins in %d bytes", n, len(b))
		}
		if n > 0 {
			for _, cut := range []int{0, 1, len(b) / 2, len(b) - 1} {
				if _, err := decodeShare(b[:cut]); err == nil {
					t.Errorf("%d bins cut at %d: no error", n, cut)
				}
			}
		}
	}
}

// TestCoarsen: merging weight bins keeps every page, the rates, and the
// key order, and a huge histogram fits at a few levels.
func TestCoarsen(t *testing.T) {
	s := randomShare(rand.New(rand.NewPCG(4, 4)), 400000)
	pages := func(s refresh.Share) (n int64) {
		for _, b := range s.Bins {
			n += b[2]
		}
		return n
	}
	c, level := s, 0
	for len(encodeShare(c)) > maxShare && level < 16 {
		level++
		c = coarsen(s, level)
	}
	t.Logf("%d bins, %d bytes; at level %d %d bins, %d bytes", len(s.Bins), len(encodeShare(s)), level, len(c.Bins), len(encodeShare(c)))
	if pages(c) != pages(s) || level == 0 || level > 8 {
		t.Errorf("%d pages from %d, level %d", pages(c), pages(s), level)
	}
	for i := 1; i < len(c.Bins); i++ {
		a, b := c.Bins[i-1], c.Bins[i]
		if a[0] > b[0] || a[0] == b[0] && a[1] >= b[1] || b[1]&(1<<level-1) != 1<<(level-1) {
			t.Fatalf("bins %v then %v at level %d", a, b, level)
		}
	}
}

func FuzzDecodeShare(f *testing.F) {
	f.Add(encodeShare(randomShare(rand.New(rand.NewPCG(2, 2)), 20)))
	f.Add([]byte{shareVersion, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := decodeShare(b)
		if err != nil {
			return
		}
		again, err := decodeShare(encodeShare(s))
		if err != nil || again.Held != s.Held || len(again.Bins) != len(s.Bins) ||
			math.Float64bits(again.Excess) != math.Float64bits(s.Excess) {
			t.Fatalf("re-encoded share differs: %+v, %v", again, err)
		}
	})
}

// TestPlans: shares and the plan go through the bucket; Shares reports
// false until every partition has written one.
func TestPlans(t *testing.T) {
	s := testServer(t)
	_, js := connect(t, s)
	ctx := context.Background()
	pl, err := OpenPlans(ctx, js, "t")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := pl.Plan(ctx); ok || err != nil {
		t.Fatalf("a plan before any: %v, %v", ok, err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	want := []refresh.Share{randomShare(rng, 10), randomShare(rng, 3)}
	if err := pl.PutShare(ctx, 0, want[0]); err != nil {
		t.Fatal(err)
	}
	if _, all, err := pl.Shares(ctx, 2); all || err != nil {
		t.Fatalf("all shares with one of two written: %v, %v", all, err)
	}
	if err := pl.PutShare(ctx, 1, want[1]); err != nil {
		t.Fatal(err)
	}
	got, all, err := pl.Shares(ctx, 2)
	if !all || err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("shares %v, all %v, %v", got, all, err)
	}
	plan := Plan{Shared: refresh.Shared{Uniform: time.Hour, Param: 1.5e-3}, Budget: 10, Partitions: 2,
		Budgets: []float64{3.25, 6.75}, At: time.Unix(1e9, 0).UTC()}
	if err := pl.PutPlan(ctx, plan); err != nil {
		t.Fatal(err)
	}
	if back, ok, err := pl.Plan(ctx); !ok || err != nil || !reflect.DeepEqual(back, plan) {
		t.Errorf("plan %+v, %v, %v; want %+v", back, ok, err, plan)
	}
}
