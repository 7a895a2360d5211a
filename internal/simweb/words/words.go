// Package words is the vocabulary of the synthetic web's pages (package
// simweb): the topic words of its directories, the filler prose its
// paragraphs are cut from, and the accented words of its windows-1252
// pages. Everything is a pure function of a seed.
package words

import (
	"math"
	"strings"

	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// Topics is the topic vocabulary. Each directory of the web has a topic and
// most of its pages are about it, which gives the topical locality of links that
// the similarity crawlers of dissertation ch. 2 rely on ("computer" and
// "admission" are the topics of §2.5.4). Topics are drawn with Zipf
// popularity in this order.
var Topics = [...]string{
	"computer", "news", "research", "students", "admission", "sports", "music", "travel",
	"health", "library", "science", "finance", "software", "history", "weather", "policy",
	"energy", "medicine", "physics", "football", "housing", "careers", "museum", "garden",
	"robotics", "climate", "poetry", "chemistry", "elections", "aviation", "cooking", "astronomy",
}

// topicCDF is the cumulative Zipf(1) distribution over Topics.
var topicCDF = func() [len(Topics)]float64 {
	var c [len(Topics)]float64
	acc := 0.0
	for i := range c {
		acc += 1 / float64(i+1)
		c[i] = acc
	}
	for i := range c {
		c[i] /= acc
	}
	return c
}()

// DrawTopic returns the index in Topics of a topic drawn with Zipf(1)
// popularity, by a uniform u in [0, 1).
func DrawTopic(u float64) int {
	for i, c := range topicCDF {
		if u < c {
			return i
		}
	}
	return len(topicCDF) - 1
}

// Filler are the words the running text of pages is made of.
var Filler = strings.Fields(`the of and to in is for on that with as by at from this be are or an it was
which will can all has have more about new one their other time year also page may its
these two first our some information when used only use into after over would such
who most like people work years than many well through each there where under between
must should well day state group place part local under system program service public
data report number world area team life book member city school family plan support
level project early market study power home student center water field office order
general quality design process range small large course result research social human
every within public open without across along during toward later always often still
update section list guide event review access notice history contact index archive note
today week month season annual campus board council staff faculty department offer
price store product customer account order shipping return policy privacy terms help
search weather map route travel hotel flight ticket game score player league match
health clinic patient care doctor nurse drug trial risk safety energy power grid oil
light sound music film show art gallery museum garden park river lake mountain coast`)

// Latin are the non-ASCII words that non-UTF-8 pages carry, so their
// encoding matters to a parser.
var Latin = []string{"café", "naïve", "Zürich", "señor", "façade", "crème", "brûlée", "Ångström", "résumé", "déjà"}

// Corpus is a long run of pseudo-random filler text. Paragraphs are slices
// of it, so rendering a page copies bytes instead of drawing every word.
type Corpus struct {
	text  []byte
	words []int32 // start offset of each word; words[len-1] is len(text)
}

// CorpusWords is the number of words in a Corpus.
const CorpusWords = 1 << 17

// NewCorpus returns the corpus drawn from the stream seeded with key: the
// same key gives the same text.
func NewCorpus(key uint64) Corpus {
	r := splitmix.NewStream(key)
	var b strings.Builder
	b.Grow(CorpusWords * 7)
	starts := make([]int32, 0, CorpusWords+1)
	sentence := 0
	for i := 0; i < CorpusWords; i++ {
		starts = append(starts, int32(b.Len()))
		// Roughly Zipfian word choice: common words dominate, as in prose.
		k := int(float64(len(Filler)) * math.Pow(r.Float64(), 2.2))
		word := Filler[k]
		if sentence == 0 {
			b.WriteString(strings.ToUpper(word[:1]) + word[1:])
		} else {
			b.WriteString(word)
		}
		sentence++
		if sentence > 6 && r.Float64() < 0.12 {
			b.WriteString(".")
			sentence = 0
		}
		b.WriteByte(' ')
	}
	starts = append(starts, int32(b.Len()))
	return Corpus{text: []byte(b.String()), words: starts}
}

// AppendWords appends n consecutive corpus words starting at word i
// (wrapping), without the trailing space.
func (c *Corpus) AppendWords(dst []byte, i, n int) []byte {
	total := len(c.words) - 1
	for n > 0 {
		i %= total
		k := min(n, total-i)
		dst = append(dst, c.text[c.words[i]:c.words[i+k]-1]...)
		n -= k
		i += k
		if n > 0 {
			dst = append(dst, ' ')
		}
	}
	return dst
}
