package rank

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTopK checks the bounded selection against a full sort, ties (many
// equal ranks) broken by node id.
func TestTopK(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 7, 100, 1000} {
		r := make([]float64, n)
		for i := range r {
			r[i] = float64(rng.IntN(20))
		}
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		slices.SortFunc(all, func(a, b int) int {
			if c := cmp.Compare(r[b], r[a]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		for _, k := range []int{0, 1, 5, 50, 2000} {
			want := all[:min(k, n)]
			if got := TopK(r, k); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Errorf("n %d k %d: %v, want %v", n, k, got, want)
			}
		}
	}
}
