package sim

import (
	"github.com/freshcrawl/freshcrawl/internal/change/process"
	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// Every random draw is a pure function of the seed, a page and a per-page
// counter, as in simweb (rng.go): pages draw from independent streams and
// the result does not depend on the order in which pages are processed.

// stream is one page's sequence of uniforms: draw n is
// Open(splitmix.At(key, n)), splitmix64 indexed by the page's draw counter,
// which is all the state a page keeps for it.
type stream struct {
	key uint64
	n   *uint32
}

// u returns the next uniform in (0, 1].
func (s stream) u() float64 {
	*s.n++
	return splitmix.Open(splitmix.At(s.key, uint64(*s.n)))
}

// exp returns an exponential variate of the given rate (+Inf for rate 0).
// It draws a uniform either way, so the stream's position does not depend
// on the rate.
func (s stream) exp(rate float64) float64 { return process.Exponential(s.u(), rate) }
