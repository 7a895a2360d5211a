package simweb

import (
	"math"
	"strings"

	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// topicWords is the topic vocabulary. Each directory has a topic and most
// of its pages are about it, which gives the topical locality of links that
// the similarity crawlers of dissertation ch. 2 rely on ("computer" and
// "admission" are the topics of §2.5.4). Topics are drawn with Zipf
// popularity in this order.
var topicWords = [...]string{
	"computer", "news", "research", "students", "admission", "sports", "music", "travel",
	"health", "library", "science", "finance", "software", "history", "weather", "policy",
	"energy", "medicine", "physics", "football", "housing", "careers", "museum", "garden",
	"robotics", "climate", "poetry", "chemistry", "elections", "aviation", "cooking", "astronomy",
}

// topicCDF is the cumulative Zipf(1) distribution over topicWords.
var topicCDF = func() [len(topicWords)]float64 {
	var c [len(topicWords)]float64
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

func drawTopic(u float64) int {
	for i, c := range topicCDF {
		if u < c {
			return i
		}
	}
	return len(topicCDF) - 1
}

// fillerWords make up the running text of pages.
var fillerWords = strings.Fields(`the of and to in is for on that with as by at from this be are or an it was
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

// latinWords are the non-ASCII words that non-UTF-8 pages carry, so their
// encoding matters to a parser.
var latinWords = []string{"café", "naïve", "Zürich", "señor", "façade", "crème", "brûlée", "Ångström", "résumé", "déjà"}

// corpus is a long run of pseudo-random filler text. Paragraphs are slices
// of it, so rendering a page copies bytes instead of drawing every word.
type corpus struct {
	text  []byte
	words []int32 // start offset of each word; words[len-1] is len(text)
}

const corpusWords = 1 << 17

func newCorpus(seed uint64) corpus {
	r := splitmix.NewStream(seed ^ tagCorpus)
	var b strings.Builder
	b.Grow(corpusWords * 7)
	starts := make([]int32, 0, corpusWords+1)
	sentence := 0
	for i := 0; i < corpusWords; i++ {
		starts = append(starts, int32(b.Len()))
		// Roughly Zipfian word choice: common words dominate, as in prose.
		k := int(float64(len(fillerWords)) * math.Pow(r.Float64(), 2.2))
		word := fillerWords[k]
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
	return corpus{text: []byte(b.String()), words: starts}
}

// appendWords appends n consecutive corpus words starting at word i
// (wrapping), without the trailing space.
func (c *corpus) appendWords(dst []byte, i, n int) []byte {
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

// pageTopic returns the topic of a page incarnation: its directory's topic
// four times in five, otherwise any topic.
func (w *Web) pageTopic(si, slot int32, key uint64) int {
	s := &w.sites[si]
	c := s.clusterOf(slot)
	r := splitmix.NewStream(key ^ tagTopic)
	if c >= 0 && r.Float64() < 0.8 {
		return s.clusters[c].topic
	}
	return drawTopic(r.Float64())
}

// appendTitle appends the title of a page incarnation.
func (w *Web) appendTitle(dst []byte, si, slot int32, key uint64) []byte {
	s := &w.sites[si]
	topic := topicWords[w.pageTopic(si, slot, key)]
	r := splitmix.NewStream(key ^ tagTopic ^ 0x55)
	switch {
	case slot == 0:
		dst = append(dst, strings.ToUpper(s.name[:1])...)
		dst = append(dst, s.name[1:len(s.name)-len(Zone)-1]...)
		return append(dst, " home"...)
	case s.clusters[s.clusterOf(slot)].start == slot:
		dst = append(dst, strings.ToUpper(topic[:1])...)
		dst = append(dst, topic[1:]...)
		return append(dst, " index"...)
	}
	n := 2 + r.IntN(4)
	withTopic := r.Float64() < 0.35
	at := r.IntN(n)
	for i := 0; i < n; i++ {
		if i > 0 {
			dst = append(dst, ' ')
		}
		if withTopic && i == at {
			dst = append(dst, topic...)
			continue
		}
		word := fillerWords[r.IntN(len(fillerWords))]
		if i == 0 {
			dst = append(dst, word[0]-('a'-'A'))
			dst = append(dst, word[1:]...)
		} else {
			dst = append(dst, word...)
		}
	}
	return dst
}
