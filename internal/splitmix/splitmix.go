// Package splitmix is the hashing behind every random draw of the
// simulators (internal/sim, internal/simweb): splitmix64's finaliser
// (Steele, Lea and Flood, OOPSLA 2014; Vigna's splitmix64.c) and ways to
// combine a seed with integer coordinates and to map a hash to a uniform
// float. A draw is then a pure function of the seed and its coordinates,
// so pages can be generated lazily, in any order, from any goroutine.
package splitmix

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
