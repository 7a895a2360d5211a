package sim

import "math"

// Every random draw is a pure function of the seed, a page and a per-page
// counter, as in simweb (rng.go): pages draw from independent streams and
// the result does not depend on the order in which pages are processed.

// mix is the splitmix64 finaliser: a bijective, well-avalanched 64-bit mix.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hash2 combines a key with a coordinate.
func hash2(a, b uint64) uint64 { return mix(mix(a+0x9e3779b97f4a7c15) ^ b) }

// open maps a 64-bit hash to a float in (0, 1], safe for logarithms.
func open(h uint64) float64 { return float64((h>>11)+1) * (1.0 / (1 << 53)) }

// stream is one page's sequence of uniforms: draw n is open(mix(key + n·γ)),
// splitmix64 indexed by the page's draw counter.
type stream struct {
	key uint64
	n   *uint32
}

// u returns the next uniform in (0, 1].
func (s stream) u() float64 {
	*s.n++
	return open(mix(s.key + uint64(*s.n)*0x9e3779b97f4a7c15))
}

// exp returns an exponential variate of the given rate (+Inf for rate 0).
func (s stream) exp(rate float64) float64 {
	u := s.u()
	if rate <= 0 {
		return math.Inf(1)
	}
	return -math.Log(u) / rate
}
