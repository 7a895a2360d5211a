package simweb

import (
	"math"
	"math/bits"
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

// mix is the splitmix64 finaliser: a bijective, well-avalanched 64-bit mix.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hash2 and hash3 combine a seed with coordinates into one 64-bit key.
func hash2(a, b uint64) uint64 { return mix(mix(a+0x9e3779b97f4a7c15) ^ b) }

func hash3(a, b, c uint64) uint64 { return mix(hash2(a, b) ^ mix(c+0x632be59bd9b4e019)) }

// unit maps a 64-bit hash to a float in [0, 1).
func unit(h uint64) float64 { return float64(h>>11) * (1.0 / (1 << 53)) }

// open maps a 64-bit hash to a float in (0, 1], safe for logarithms.
func open(h uint64) float64 { return float64((h>>11)+1) * (1.0 / (1 << 53)) }

// stream is a splitmix64 sequence seeded from a key: used where one
// decision needs many draws (links of a page, words of a paragraph).
type stream struct{ s uint64 }

func newStream(key uint64) stream { return stream{s: key} }

func (r *stream) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix(r.s)
}

func (r *stream) float() float64 { return unit(r.next()) }

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
	u1, u2 := open(r.next()), r.float()
	z := math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
	v := int(math.Round(mean + math.Sqrt(mean)*z))
	if v < 0 {
		return 0
	}
	return v
}
