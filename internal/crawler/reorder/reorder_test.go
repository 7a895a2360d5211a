package reorder

import (
	"math/rand/v2"
	"slices"
	"testing"
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
	var b Buffer[string, item]
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
