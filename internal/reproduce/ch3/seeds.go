package ch3

import (
	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// RandomSeeds returns s seeds in all, spread as evenly as possible over n
// partitions (the first s mod n get one more), each drawn uniformly from
// its partition's pages without repeats: §3.6's "5 random seeds from its
// own partition" when s = 5n. A partition with fewer pages gives all it
// has.
func RandomSeeds(part []int32, n, s int, seed uint64) [][]uint32 {
	pages := make([][]uint32, n)
	for v, p := range part {
		pages[p] = append(pages[p], uint32(v))
	}
	out := make([][]uint32, n)
	for p, ps := range pages {
		k := min(s/n, len(ps))
		if p < s%n {
			k = min(k+1, len(ps))
		}
		r := splitmix.NewStream(splitmix.Hash2(seed, uint64(p)))
		// A partial Fisher–Yates shuffle: the first k of a random order.
		for i := range k {
			j := i + r.IntN(len(ps)-i)
			ps[i], ps[j] = ps[j], ps[i]
		}
		out[p] = ps[:k:k]
	}
	return out
}
