package rank

import (
	"math"
	"slices"
	"testing"
)

// TestSimilarity checks IS(p, Q) against hand computations with the
// dissertation's idf, 1 / collection frequency (spec 1.1).
func TestSimilarity(t *testing.T) {
	docs := []string{
		"Computer science at Stanford: computer systems, computer graphics.",
		"Admission to Stanford; admission office.",
		"The computer museum.",
	}
	c := NewCollection()
	for _, d := range docs {
		c.Add(Words(d))
	}
	if got := Words("Computer, computer-science 2024!"); !slices.Equal(got, []string{"computer", "computer", "science", "2024"}) {
		t.Errorf("Words: %q", got)
	}
	// "computer" occurs 4 times in the collection, "museum" once.
	if got := c.IDF("computer"); got != 0.25 {
		t.Errorf("idf(computer) = %v, want 1/4", got)
	}
	if got := c.IDF("absent"); got != 0 {
		t.Errorf("idf of an unseen word %v, want 0", got)
	}
	q := Words("computer museum")
	// Page 1: tf(computer) = 3, so w = 3/4; the query's w(computer) = 1/4
	// and it has no "museum" weight on page 1: IS = 3/4 · 1/4 = 3/16.
	if got := c.Similarity(Words(docs[0]), q, false); math.Abs(got-3.0/16) > 1e-15 {
		t.Errorf("IS(page 1) = %v, want 3/16", got)
	}
	// Page 3: computer 1/4 · 1/4 + museum 1 · 1 = 1/16 + 1.
	if got := c.Similarity(Words(docs[2]), q, false); math.Abs(got-17.0/16) > 1e-15 {
		t.Errorf("IS(page 3) = %v, want 17/16", got)
	}
	if got := c.Similarity(Words(docs[1]), q, false); got != 0 {
		t.Errorf("IS(page 2) = %v, want 0", got)
	}
	// Cosine: page 3 against the same words as the query is 1.
	if got := c.Similarity(q, q, true); math.Abs(got-1) > 1e-12 {
		t.Errorf("cosine of the query with itself %v, want 1", got)
	}
	if got := c.Similarity(Words(docs[2]), q, true); !(got > 0 && got <= 1) {
		t.Errorf("cosine %v not in (0, 1]", got)
	}
	if got := Combined(2, 0.5, 0.1, 30); math.Abs(got-4) > 1e-15 {
		t.Errorf("IC = %v, want 2·0.5 + 0.1·30 = 4", got)
	}
}
