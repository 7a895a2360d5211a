package simweb

import (
	"math"
	"math/bits"

	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// Every random quantity in simweb is a pure function of the web's seed and a
// few integer coordinates (site, slot, generation, event index, purpose).
// There is no shared generator, so pages can be generated lazily, in any
// order, from any goroutine, and the same seed always gives the same web.

// Purpose tags keep the streams for different quantities independent.
const (
	tagSite uint64 = iota + 1
	tagWeight
	tagLinks
	tagRate
	tagLife
	tagInterval
	tagContent
	tagVersion
	tagFault
	tagTopic
	tagCorpus
	tagSiteWeight
)

// stream is a splitmix64 sequence seeded from a key: used where one
// decision needs many draws (links of a page, words of a paragraph).
type stream struct{ s uint64 }

func newStream(key uint64) stream { return stream{s: key} }

func (r *stream) next() uint64 {
	r.s += splitmix.Gamma
	return splitmix.Mix(r.s)
}

func (r *stream) float() float64 { return splitmix.Unit(r.next()) }

// intn returns a value in [0, n) by Lemire's multiply-shift (bias < n/2^64).
func (r *stream) intn(n int) int {
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int(hi)
}

// poisson draws a Poisson variate with the given mean (Knuth for small
// means, a rounded normal approximation above 30 where the two agree to
// well under the other approximations in the generator).
func (r *stream) poisson(mean float64) int {
	if mean <= 0 {
		return 0
	}
	if mean < 30 {
		l := math.Exp(-mean)
		k, p := 0, 1.0
		for {
			p *= r.float()
			if p <= l {
				return k
			}
			k++
		}
	}
	// Box–Muller.
	u1, u2 := splitmix.Open(r.next()), r.float()
	z := math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
	v := int(math.Round(mean + math.Sqrt(mean)*z))
	if v < 0 {
		return 0
	}
	return v
}
