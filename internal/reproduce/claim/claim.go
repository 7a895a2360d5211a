// Package claim holds what `freshcrawl reproduce` reports: a number or a
// statement a paper prints (Row, Claim), set against what freshcrawl
// measures, with its verdict, and the papers and chapters the claims come
// from. The experiments live in package reproduce and, for the
// dissertation's ch. 3, in package ch3; both build their claims with this
// package, which imports neither.
package claim

import (
	"math"
	"strings"
)

// A Row sets one number a paper prints (or that the requirements spec
// derives from a paper's formulas) against the number freshcrawl
// computes.
type Row struct {
	// Section is where the number is printed, e.g. "diss. §5.5.4 Table 5.5".
	Section string
	// Quantity says what the number is, with its unit.
	Quantity string
	// Paper is the printed (or derived) value, Computed ours.
	Paper, Computed float64
	// Tol is how far apart the two may be and still agree: half a unit of
	// the last printed digit for printed values, the spec's rounding for
	// derived ones.
	Tol float64
	// Kind is "printed", "derived" for values the spec computed from the
	// paper's formulas, or "recon" for the spec's reconstruction of an
	// experiment the paper describes without numbers.
	Kind string
	// Flag, when set, says why the paper's number is wrong or rests on an
	// assumption; such a row is reported, not "fixed".
	Flag string
}

// Agrees reports whether the computed value is within Tol of the paper's.
func (r Row) Agrees() bool { return math.Abs(r.Paper-r.Computed) <= r.Tol }

// A Claim is one number or statement of a seed paper set against what
// freshcrawl measures. It extends Row, whose Paper, Computed and Tol carry
// the numbers. An ordering or a trend is a Row with Paper 1 (the paper
// says it holds), Computed 1 or 0 (it holds here or not) and Tol 0, and
// its texts say what was compared.
type Claim struct {
	Row
	// PaperText and MeasuredText, when set, are reported instead of the
	// numbers Paper and Computed.
	PaperText, MeasuredText string
	// Pending, when set, says why the claim cannot be measured yet; the
	// claim then has no measured value and no verdict but "not yet
	// measurable".
	Pending string
}

// Verdicts of a Claim.
const (
	Agrees         = "agrees"
	DiffersFlagged = "differs: paper error flagged"
	Differs        = "differs"
	NotMeasurable  = "not yet measurable"
)

// Verdict says how the measured value compares with the paper's: Agrees
// within Tol; DiffersFlagged when it does not and the claim carries a Flag
// (a known error or an unstated assumption of the source, reported rather
// than reproduced); Differs otherwise; NotMeasurable when Pending.
func (c Claim) Verdict() string {
	switch {
	case c.Pending != "":
		return NotMeasurable
	case c.Agrees():
		return Agrees
	case c.Flag != "":
		return DiffersFlagged
	}
	return Differs
}

// Holds returns an ordering or trend claim: the paper says it holds, ok
// says whether it does here.
func Holds(section, quantity, paper, measured string, ok bool) Claim {
	c := Claim{Row: Row{Section: section, Quantity: quantity, Paper: 1, Kind: "printed"},
		PaperText: paper, MeasuredText: measured}
	if ok {
		c.Computed = 1
	}
	return c
}

// WithFlag returns c flagged: the paper's value rests on what the flag
// says, and a disagreement is reported, not reproduced.
func (c Claim) WithFlag(flag string) Claim { c.Flag = flag; return c }

// sources are the papers and chapters the claims come from, in report
// order, each by the prefix of its claims' sections.
var sources = []struct{ prefix, name string }{
	{"diss. §2", "dissertation ch. 2 (Cho: crawl ordering)"},
	{"diss. §3", "dissertation ch. 3 (Cho: parallel crawlers)"},
	{"diss. §5", "dissertation ch. 5 (Cho: refresh policies)"},
	{"diss. §6", "dissertation ch. 6 (Cho: change estimation)"},
	{"paper 001", "paper 001 (Ford, Grimes & Tassone: staleness cost)"},
	{"paper 002", "paper 002 (Wolf et al.: optimal crawl frequencies)"},
	{"paper 004", "paper 004 (Cho & Ntoulas: change detection by sampling)"},
	{"Azar", "Azar et al. (PNAS 2018: freshness of Poisson crawls)"},
	{"Kolobov", "Kolobov et al. (SIGIR 2019, NeurIPS 2019: harmonic staleness, LambdaCrawl)"},
}

// SourceOf is the report position of a section's paper: its index among
// the sources, or past them all for a section of none.
func SourceOf(section string) int {
	for k, s := range sources {
		if strings.HasPrefix(section, s.prefix) {
			return k
		}
	}
	return len(sources)
}

// Source names the paper or chapter the claim comes from, or "other".
func (c Claim) Source() string {
	if k := SourceOf(c.Section); k < len(sources) {
		return sources[k].name
	}
	return "other"
}
