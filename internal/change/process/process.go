// Package process is the one definition of how a synthetic page changes:
// the kinds of change process (the dissertation's Poisson model, §4.6, and
// paper 002's Pareto and quasi-deterministic processes, §2.3 and §B.2),
// their names, and the draws that turn a uniform variate into a time
// between changes. The simulator (internal/sim, float64 seconds) and the
// synthetic web (internal/simweb, int64 nanoseconds) both draw through it,
// so a page of a given kind changes by the same law in both worlds and the
// formulas are written once.
//
// Each draw is a pure function of a uniform u in (0, 1] (splitmix.Open), so
// callers keep their own streams and their determinism: the same u gives
// the same time, bit for bit.
package process

import (
	"fmt"
	"strings"
)

// Kind is the kind of a page's change process.
type Kind uint8

// Change processes. Poisson is the dissertation's model (§4.6); Pareto and
// QuasiDeterministic are paper 002's non-Poisson processes (§2.3; spec
// seed-ford-wolf-ntoulas §B.2 and §B.7).
const (
	// Poisson pages change at exponential intervals of mean 1/λ.
	Poisson Kind = iota
	// Pareto pages form a renewal process with Lomax intervals, tail
	// (β/(β+t))^α with α > 1 and β = (α−1)/λ, so that the mean is 1/λ.
	Pareto
	// QuasiDeterministic pages may change only at potential update times
	// phase + j·period, each of which happens with probability k,
	// independently (paper 002 §B.2, eq. 17 with k_{i,j} = k).
	QuasiDeterministic
)

var kindNames = [...]string{"poisson", "pareto", "quasi-deterministic"}

// String returns the process's name: poisson, pareto or
// quasi-deterministic.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// ParseKind reads a process name as String prints it, in any case.
func ParseKind(s string) (Kind, error) {
	for i, n := range kindNames {
		if strings.EqualFold(s, n) {
			return Kind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown change process %q (want poisson, pareto or quasi-deterministic)", s)
}
