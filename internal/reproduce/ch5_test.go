package reproduce

import (
	"strings"
	"testing"
)

// TestRows runs every reproduction row as its own subtest, named by the
// section that prints it. An unflagged row must agree with the paper
// within its tolerance (half a unit of the printed digit); a flagged row
// must disagree, since its flag says the paper is wrong, unless the flag
// records an assumption (Table 5.7's rate shares), in which case the
// printed value is the target. The computed values themselves are checked
// against independent references in the per-topic tests (TestExamples,
// TestTable57, TestOptimalRatio, TestOrderClaims, TestTable53).
func TestRows(t *testing.T) {
	rows := AllRows()
	if len(rows) < 60 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		t.Run(r.Section+"/"+r.Quantity, func(t *testing.T) {
			assumption := strings.HasPrefix(r.Flag, "rate shares") && !strings.Contains(r.Flag, "printed")
			switch {
			case r.Flag == "" || assumption:
				if !r.Agrees() {
					t.Errorf("paper %g, computed %.6g (tolerance %g)", r.Paper, r.Computed, r.Tol)
				}
			default:
				if r.Agrees() {
					t.Errorf("flagged (%s) but agrees: paper %g, computed %.6g", r.Flag, r.Paper, r.Computed)
				}
			}
			if r.Kind != "printed" && r.Kind != "derived" {
				t.Errorf("kind %q", r.Kind)
			}
		})
	}
}
