package rank

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestTopicHot checks the hot test of dissertation §2.5.4 (a page is hot
// for a word in its title or 10 or more times in it) on pages made for
// each part of the definition.
func TestTopicHot(t *testing.T) {
	page := func(title, body string) string {
		return "<html><head><title>" + title + "</title></head><body>" + body + "</body></html>"
	}
	times := func(s string, n int) string { return strings.Repeat(s+" and ", n) }
	tests := []struct {
		name, body, word string
		want             bool
	}{
		{"in the title", page("Computer science", "nothing here"), "computer", true},
		{"title, any case", "<TITLE>COMPUTER</TITLE>", "Computer", true},
		{"title with attributes", `<title lang="en">the computer</title>`, "computer", true},
		{"in the title as part of a word", page("Computers", ""), "computer", true},
		{"once, not in the title", page("Home", "a computer"), "computer", false},
		{"9 times", page("Home", times("computer", 9)), "computer", false},
		{"10 times", page("Home", times("computer", 10)), "computer", true},
		{"10 times in any case", page("Home", times("CoMpUtEr", 10)), "computer", true},
		{"title counts towards the 10", page("computer", times("computer", 9)), "computer", true},
		{"no title, once", "<p>computer</p>", "computer", false},
		{"title never closed", "<title>computer and more", "computer", false},
		{"not a title element", "<titles>computer</titles>", "computer", false},
		{"the tag name is not the title", page("Home", ""), "title", false},
		{"in the first title only", page("Home", "<title>computer</title>"), "computer", false},
		{"overlapping instances count once", page("Home", strings.Repeat("aa", 10)), "aaa", false},
		{"non-ASCII word, any case", page("ZÜRICH", ""), "zürich", true},
		{"non-ASCII word, 10 times", page("Home", times("Zürich", 10)), "ZÜRICH", true},
		{"empty word", page("", ""), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TopicHot([]byte(tt.body), tt.word); got != tt.want {
				t.Errorf("TopicHot(%q, %q) = %v, want %v", tt.body, tt.word, got, tt.want)
			}
		})
	}
}

// titleRE finds the first title element of a lower-cased page.
var titleRE = regexp.MustCompile(`(?s)<title(?:>|[ \t\n\r\f][^>]*>)(.*?)</title`)

// referenceHot is TopicHot the plain way: the whole page lower-cased, the
// title found by a regular expression, the word counted by bytes.Count.
func referenceHot(body []byte, word string) bool {
	lower, w := bytes.ToLower(body), []byte(strings.ToLower(word))
	if len(w) == 0 {
		return false
	}
	if m := titleRE.FindSubmatch(lower); m != nil && bytes.Contains(m[1], w) {
		return true
	}
	return bytes.Count(lower, w) >= 10
}

// TestTopicHotReference compares TopicHot with referenceHot on random
// pages of up to 3 chunks, the word and the title tags in random case
// anywhere, across the chunk boundaries too.
func TestTopicHotReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"computer", "compu", "ter", "<title>", "</title>", "<title x=1>", "<titlex>", " ", ">", "é", "text ",
		strings.Repeat("filler ", 100)}
	randCase := func(s string) string {
		b := []byte(s)
		for i, c := range b {
			if 'a' <= c && c <= 'z' && rng.IntN(2) == 0 {
				b[i] = c - 'a' + 'A'
			}
		}
		return string(b)
	}
	hot := 0
	for i := range 3000 {
		var b strings.Builder
		size := rng.IntN(3 * foldChunk)
		for b.Len() < size {
			p := pieces[rng.IntN(len(pieces))]
			if rng.IntN(8) == 0 {
				p = strings.Repeat(p, 1+rng.IntN(12))
			}
			b.WriteString(randCase(p))
		}
		body := []byte(b.String())
		want := referenceHot(body, "computer")
		if got := TopicHot(body, "computer"); got != want {
			t.Fatalf("page %d (%d bytes): TopicHot %v, reference %v", i, len(body), got, want)
		}
		if want {
			hot++
		}
	}
	if hot < 300 || hot > 2700 {
		t.Errorf("%d of 3000 pages hot: the test pages should be mixed", hot)
	}
}

// BenchmarkTopicHot measures the test on a 40 kB page with the word 5
// times, not in the title (the whole page is read), against the plain
// way the crawler had, which lower-cased a copy of the page.
func BenchmarkTopicHot(b *testing.B) {
	body := []byte("<html><head><title>Home</title></head><body>" +
		strings.Repeat(strings.Repeat("Some filler text of a page. ", 280)+"Computer ", 5) + "</body></html>")
	for _, bm := range []struct {
		name string
		hot  func([]byte, string) bool
	}{{"TopicHot", TopicHot}, {"lowered-copy", func(body []byte, w string) bool {
		lower := bytes.ToLower(body)
		return bytes.Count(lower, []byte(w)) >= 10
	}}} {
		b.Run(bm.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if bm.hot(body, "computer") {
					b.Fatal("hot")
				}
			}
		})
	}
}
