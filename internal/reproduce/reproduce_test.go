package reproduce

import (
	"slices"
	"testing"
)

// TestClaimVerdict checks the four verdicts and the ordering form.
func TestClaimVerdict(t *testing.T) {
	row := func(paper, computed, tol float64, flag string) Claim {
		return Claim{Row: Row{Paper: paper, Computed: computed, Tol: tol, Flag: flag}}
	}
	tests := []struct {
		name string
		c    Claim
		want string
	}{
		{"within tolerance", row(0.63, 0.632, 0.005, ""), Agrees},
		{"flagged but agrees", row(0.57, 0.573, 0.005, "assumed shares"), Agrees},
		{"flagged and differs", row(30, 26.4, 0.5, "printed 30%"), DiffersFlagged},
		{"differs", row(30, 26.4, 0.5, ""), Differs},
		{"pending", Claim{Pending: "not implemented"}, NotMeasurable},
		{"ordering holds", Holds("s", "q", "a < b", "1 < 2", true), Agrees},
		{"ordering fails", Holds("s", "q", "a < b", "2 < 1", false), Differs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.Verdict(); got != tt.want {
				t.Errorf("verdict %q, want %q", got, tt.want)
			}
		})
	}
}

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
