package simweb

import (
	"math"

	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// Every random quantity in simweb is a pure function of the web's seed and a
// few integer coordinates (site, slot, generation, event index, purpose).
// There is no shared generator, so pages can be generated lazily, in any
// order, from any goroutine, and the same seed always gives the same web.
// Where one decision needs many draws (the links of a page, the words of
// a paragraph) they come from a splitmix.Stream seeded from the
// coordinates.

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

// poisson draws a Poisson variate with the given mean from r (Knuth for
// small means, a rounded normal approximation above 30 where the two agree
// to well under the other approximations in the generator).
func poisson(r *splitmix.Stream, mean float64) int {
	if mean <= 0 {
		return 0
	}
	if mean < 30 {
		l := math.Exp(-mean)
		k, p := 0, 1.0
		for {
			p *= r.Float64()
			if p <= l {
				return k
			}
			k++
		}
	}
	// Box–Muller.
	u1, u2 := splitmix.Open(r.Uint64()), r.Float64()
	z := math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
	v := int(math.Round(mean + math.Sqrt(mean)*z))
	if v < 0 {
		return 0
	}
	return v
}
