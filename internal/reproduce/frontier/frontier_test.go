package frontier

import (
	"context"
	"testing"
)

// TestClaims checks that every claim is measured and agrees, none flagged:
// the closed forms and small optima to their tolerances, the orderings as
// issue 19 found them against the authors' code.
func TestClaims(t *testing.T) {
	cs, err := Claims(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 14 {
		t.Errorf("%d claims, want 14", len(cs))
	}
	for _, c := range cs {
		t.Logf("%s | %s | %s | %s", c.Section, c.Quantity, c.MeasuredText, c.Verdict())
		if c.Verdict() != "agrees" {
			t.Errorf("%s: %s: paper %g %s, measured %g %s", c.Section, c.Quantity, c.Paper, c.PaperText, c.Computed, c.MeasuredText)
		}
	}
}
