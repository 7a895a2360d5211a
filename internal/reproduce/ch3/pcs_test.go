package ch3_test

import (
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/reproduce"
	"github.com/freshcrawl/freshcrawl/internal/reproduce/ch3"
	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// TestPCS checks ch3.PCS against ch. 2's TopFound, which computes P_CS
// (dissertation §2.3) for every prefix of a visit order by another
// method, on random importances with many ties, and against the closed
// forms of §2.3: the ideal crawler scores 1.
func TestPCS(t *testing.T) {
	r := splitmix.NewStream(7)
	for trial := range 50 {
		n := 1 + r.IntN(60)
		imp := make([]float64, n)
		order := make([]uint32, n)
		for i := range imp {
			imp[i] = float64(r.IntN(5))
			order[i] = uint32(i)
		}
		for i := n - 1; i > 0; i-- {
			j := r.IntN(i + 1)
			order[i], order[j] = order[j], order[i]
		}
		curve := reproduce.TopFound(order, imp)
		for k := 1; k <= n; k++ {
			if got := ch3.PCS(order[:k], imp, k); got != curve[k-1] {
				t.Fatalf("trial %d, k = %d: PCS %g, TopFound %g", trial, k, got, curve[k-1])
			}
		}
	}
	if got := ch3.PCS([]uint32{2, 0}, []float64{5, 1, 9}, 2); got != 1 {
		t.Errorf("the ideal crawler scores %g, want 1", got)
	}
}
