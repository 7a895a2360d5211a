// Package splitmix is the hashing behind every random draw of the
// simulators (internal/sim, internal/simweb): splitmix64's finaliser
// (Steele, Lea and Flood, OOPSLA 2014; Vigna's splitmix64.c), ways to
// combine a seed with integer coordinates and to map a hash to a uniform
// float, and splitmix64's sequence itself. A draw is then a pure function
// of the seed and its coordinates, so pages can be generated lazily, in
// any order, from any goroutine.
package splitmix

import "math/bits"

// Gamma is splitmix64's increment, 2^64 divided by the golden ratio.
const Gamma = 0x9e3779b97f4a7c15

// Mix is the splitmix64 finaliser: a bijective, well-avalanched 64-bit mix.
// The n-th output of splitmix64 seeded with s is Mix(s + n·Gamma).
func Mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Hash2 combines a key with one coordinate.
func Hash2(a, b uint64) uint64 { return Mix(Mix(a+Gamma) ^ b) }

// Hash3 combines a key with two coordinates.
func Hash3(a, b, c uint64) uint64 { return Mix(Hash2(a, b) ^ Mix(c+0x632be59bd9b4e019)) }

// Unit maps a 64-bit hash to a float in [0, 1).
func Unit(h uint64) float64 { return float64(h>>11) * (1.0 / (1 << 53)) }

// Open maps a 64-bit hash to a float in (0, 1], safe for logarithms.
func Open(h uint64) float64 { return float64((h>>11)+1) * (1.0 / (1 << 53)) }

// At returns output n (n ≥ 1) of splitmix64 seeded with key, Mix(key +
// n·Gamma): a sequence whose only state is the counter n.
func At(key, n uint64) uint64 { return Mix(key + n*Gamma) }

// Stream is splitmix64 seeded with a key, for a decision that needs many
// draws in a row (the links of a page, the words of a paragraph): its n-th
// Uint64 is At(key, n).
type Stream struct{ s uint64 }

// NewStream returns the stream seeded with key.
func NewStream(key uint64) Stream { return Stream{s: key} }

// Uint64 returns the stream's next output.
func (r *Stream) Uint64() uint64 {
	r.s += Gamma
	return Mix(r.s)
}

// Float64 returns Unit of the next output, in [0, 1).
func (r *Stream) Float64() float64 { return Unit(r.Uint64()) }

// IntN returns a value in [0, n) by Lemire's multiply-shift (bias below
// n/2^64).
func (r *Stream) IntN(n int) int {
	hi, _ := bits.Mul64(r.Uint64(), uint64(n))
	return int(hi)
}
