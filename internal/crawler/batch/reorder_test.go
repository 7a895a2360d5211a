package batch

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestAdd feeds three sources' items in a random interleaving and order
// and checks each source's items come out in order, all of them.
func TestAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	type item struct {
		src string
		seq uint64
	}
	var in []item
	for _, src := range []string{"a", "b", "c"} {
		for i := range 200 {
			in = append(in, item{src, uint64(i)})
		}
	}
	rng.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
	var b Reorder[string, item]
	next := map[string]*uint64{"a": new(uint64), "b": new(uint64), "c": new(uint64)}
	var out []item
	for _, it := range in {
		out = b.Add(it.src, next[it.src], it.seq, it, out)
	}
	if len(out) != len(in) || b.Held() != 0 {
		t.Fatalf("%d out, %d held, of %d in", len(out), b.Held(), len(in))
	}
	for _, src := range []string{"a", "b", "c"} {
		var seqs []uint64
		for _, it := range out {
			if it.src == src {
				seqs = append(seqs, it.seq)
			}
		}
		if !slices.IsSorted(seqs) || *next[src] != 200 {
			t.Errorf("source %s: out of order, or next %d", src, *next[src])
		}
	}
}

// TestGather checks Gather takes what waits, waits for more while under
// group, and stops at max and at a closed channel.
func TestGather(t *testing.T) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	add := func(v int, out []int) []int { return append(out, v) }
	ch := make(chan int, 10)
	for i := range 5 {
		ch <- i
	}
	if got := Gather(ch, nil, add, 3, 2, time.Millisecond, timer); len(got) != 3 {
		t.Errorf("max 3: got %v", got)
	}
	// Under group: waits out the window for more, then returns what came.
	go func() { time.Sleep(5 * time.Millisecond); ch <- 9 }()
	if got := Gather(ch, nil, add, 100, 50, time.Second/2, timer); len(got) != 3 || got[2] != 9 {
		t.Errorf("window: got %v, want the 2 waiting and the one that came", got)
	}
	close(ch)
	if got := Gather(ch, []int{7}, add, 100, 50, time.Hour, timer); len(got) != 1 {
		t.Errorf("closed: got %v", got)
	}
}
