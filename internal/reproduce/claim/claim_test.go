package claim

import "testing"

// TestVerdict checks the four verdicts and the ordering form.
func TestVerdict(t *testing.T) {
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
		{"ordering fails, flagged", Holds("s", "q", "a < b", "2 < 1", false).WithFlag("f"), DiffersFlagged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.Verdict(); got != tt.want {
				t.Errorf("verdict %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSource checks that sections map to their chapter or paper in report
// order, ch. 3 between ch. 2 and ch. 5.
func TestSource(t *testing.T) {
	tests := []struct {
		section, want string
	}{
		{"diss. §2.5.2 Fig. 2.3", "dissertation ch. 2 (Cho: crawl ordering)"},
		{"diss. §3.6 Fig. 3.4", "dissertation ch. 3 (Cho: parallel crawlers)"},
		{"diss. §5.5.4 Table 5.5", "dissertation ch. 5 (Cho: refresh policies)"},
		{"paper 004 §4.6", "paper 004 (Cho & Ntoulas: change detection by sampling)"},
		{"elsewhere", "other"},
	}
	for _, tt := range tests {
		if got := (Claim{Row: Row{Section: tt.section}}).Source(); got != tt.want {
			t.Errorf("%q: source %q, want %q", tt.section, got, tt.want)
		}
	}
	if !(SourceOf("diss. §2.4") < SourceOf("diss. §3.6") && SourceOf("diss. §3.6") < SourceOf("diss. §5.1")) {
		t.Error("ch. 3 is not reported between ch. 2 and ch. 5")
	}
}
