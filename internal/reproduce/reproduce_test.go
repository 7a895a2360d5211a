package reproduce

import (
	"slices"
	"testing"
)

// TestLargestRemainder checks the rounding against hand-worked cases: the
// sum is R, and equal remainders go to the lower index.
func TestLargestRemainder(t *testing.T) {
	tests := []struct {
		share []float64
		R     int
		want  []int
	}{
		{[]float64{0.25, 0.25, 0.25, 0.25}, 10, []int{3, 3, 2, 2}},
		{[]float64{0.5, 0.3, 0.2}, 7, []int{4, 2, 1}}, // 3.5, 2.1, 1.4
		{[]float64{1}, 5, []int{5}},
	}
	for _, tt := range tests {
		if got := largestRemainder(tt.share, tt.R); !slices.Equal(got, tt.want) {
			t.Errorf("largestRemainder(%v, %d) = %v, want %v", tt.share, tt.R, got, tt.want)
		}
	}
}

// TestPaper002Small checks the ordering on a small instance and that the
// optimum is no worse than either heuristic, which holds by definition.
func TestPaper002Small(t *testing.T) {
	o, u, p, err := Paper002Staleness(1000, 2.5, poissonModel)
	if err != nil {
		t.Fatal(err)
	}
	if !(o < u && u < p) {
		t.Errorf("optimal %g, uniform %g, proportional %g: want optimal < uniform < proportional", o, u, p)
	}
}
