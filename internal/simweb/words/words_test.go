package words

import (
	"math"
	"strings"
	"testing"
)

// DrawTopic is Zipf(1) over the topics: topic i (from 0) comes up with
// probability (1/(i+1))/H_n, H_n the n-th harmonic number, which a fine
// grid of u measures to within the grid's step.
func TestDrawTopicIsZipf(t *testing.T) {
	const steps = 1_000_000
	counts := make([]float64, len(Topics))
	for k := range steps {
		counts[DrawTopic((float64(k)+0.5)/steps)]++
	}
	h := 0.0
	for i := range Topics {
		h += 1 / float64(i+1)
	}
	for i, c := range counts {
		if want := 1 / float64(i+1) / h; math.Abs(c/steps-want) > 2.0/steps {
			t.Errorf("topic %d (%s): share %.6f, want %.6f", i, Topics[i], c/steps, want)
		}
	}
}

// A corpus is a pure function of its key; AppendWords cuts whole words,
// n of them, wrapping at the end.
func TestCorpus(t *testing.T) {
	a, b, c := NewCorpus(1), NewCorpus(1), NewCorpus(2)
	if string(a.AppendWords(nil, 0, 500)) != string(b.AppendWords(nil, 0, 500)) {
		t.Error("the same key gave two corpora")
	}
	if string(a.AppendWords(nil, 0, 500)) == string(c.AppendWords(nil, 0, 500)) {
		t.Error("two keys gave the same corpus")
	}
	for _, tt := range []struct{ i, n int }{{0, 1}, {10, 37}, {CorpusWords - 3, 10}, {5 * CorpusWords, 4}} {
		got := string(a.AppendWords(nil, tt.i, tt.n))
		if w := strings.Fields(got); len(w) != tt.n || strings.HasSuffix(got, " ") {
			t.Errorf("AppendWords(%d, %d) = %d words %q", tt.i, tt.n, len(w), got)
		}
	}
	wrapped := string(a.AppendWords(nil, CorpusWords-2, 4))
	if want := string(a.AppendWords(nil, CorpusWords-2, 2)) + " " + string(a.AppendWords(nil, 0, 2)); wrapped != want {
		t.Errorf("wrapping: %q, want %q", wrapped, want)
	}
}
