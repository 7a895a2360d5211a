package rank

import (
	"math"
	"strings"
	"unicode"
)

// Similarity to a driving query, IS(p, Q) of dissertation §2.2 (spec 1.1):
// a page and the query are vectors over the vocabulary whose weight for
// word i is tf_i · idf_i, with the dissertation's idf, one over the
// number of times the word occurs in the whole collection (not the usual
// log(N/df): spec 1.1's flag). IS' is the same computed with the
// collection frequencies of the pages crawled so far, which is what a
// Collection built as the crawl goes gives.

// Words splits text into lower-case words: runs of letters and digits.
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Collection counts how often each word occurs over the documents added:
// the collection frequencies the idf divides by.
type Collection struct {
	freq  map[string]int
	total int
}

// NewCollection returns an empty collection.
func NewCollection() *Collection { return &Collection{freq: map[string]int{}} }

// Add counts the words of one document.
func (c *Collection) Add(words []string) {
	for _, w := range words {
		c.freq[w]++
	}
	c.total += len(words)
}

// IDF returns 1 / (occurrences of word in the collection), or 0 for a
// word never seen (which then weighs nothing).
func (c *Collection) IDF(word string) float64 {
	if n := c.freq[word]; n > 0 {
		return 1 / float64(n)
	}
	return 0
}

// vector is a document's tf·idf weights.
func (c *Collection) vector(words []string) map[string]float64 {
	v := map[string]float64{}
	for _, w := range words {
		v[w]++
	}
	for w, tf := range v {
		v[w] = tf * c.IDF(w)
	}
	return v
}

// Similarity returns IS(p, Q) as the inner product of the tf·idf vectors
// of the page's and the query's words, or, with cosine set, the inner
// product of the two vectors scaled to length 1 (the dissertation allows
// either and picks neither).
func (c *Collection) Similarity(page, query []string, cosine bool) float64 {
	p, q := c.vector(page), c.vector(query)
	dot := 0.0
	for w, x := range q {
		dot += x * p[w]
	}
	if !cosine || dot == 0 {
		return dot
	}
	norm := func(v map[string]float64) float64 {
		s := 0.0
		for _, x := range v {
			s += x * x
		}
		return math.Sqrt(s)
	}
	return dot / (norm(p) * norm(q))
}

// Combined returns IC(p) = k1·IS(p, Q) + k2·IB(p) (dissertation §2.2,
// spec 1.6; no constants are given).
func Combined(k1, similarity, k2, backlinks float64) float64 {
	return k1*similarity + k2*backlinks
}
