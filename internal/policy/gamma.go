package policy

import "math"

// GammaUniformFreshness is F̄(S)_u, the freshness of the uniform policy when
// the pages' change rates follow a gamma distribution with mean λ and
// δ² = Var/mean² = delta2, synced at f = λ/r (dissertation §5.5.1, Table 5.3).
// At δ² = 1 (exponential rates) the printed form is 0/0; its limit is
// ln(1 + r)/r. At δ² = 0 all pages change at λ and it equals the
// proportional policy's freshness.
func GammaUniformFreshness(r, delta2 float64) float64 {
	switch delta2 {
	case 0:
		return GammaProportionalFreshness(r)
	case 1:
		return math.Log1p(r) / r
	}
	// Table 5.3: [1 − (1 + rδ²)^{1−1/δ²}] / [r(1 − δ²)].
	return -math.Expm1((1-1/delta2)*math.Log1p(r*delta2)) / (r * (1 - delta2))
}

// GammaProportionalFreshness is F̄(S)_p = (1 − e^{−r})/r, the proportional
// policy's freshness, which does not depend on δ (Table 5.3).
func GammaProportionalFreshness(r float64) float64 { return Freshness(FixedOrder, r, 1) }

// GammaUniformAge is Ā(S)_u/I, the uniform policy's age in units of the mean
// interval I = 1/f under gamma-distributed rates (Table 5.3). It needs
// δ² < 1; at δ² = 1/2 the printed form is 0/0 and the limit is taken.
func GammaUniformAge(r, delta2 float64) float64 {
	// Table 5.3: (1/(1−δ²))[(1−δ²)/2 − 1/r + (1 − (1+rδ²)^{2−1/δ²})/(r²(1−2δ²))].
	// expm1 keeps the digits near the removable singularity δ² = 1/2.
	var last float64
	switch delta2 {
	case 0:
		return GammaProportionalAge(r, 0)
	case 0.5:
		// With ε = 1 − 2δ², (1 − (1+r/2)^{−2ε})/(r²ε) → 2 ln(1 + r/2)/r².
		last = 2 * math.Log1p(r/2) / (r * r)
	default:
		last = -math.Expm1((2-1/delta2)*math.Log1p(r*delta2)) / (r * r * (1 - 2*delta2))
	}
	return ((1-delta2)/2 - 1/r + last) / (1 - delta2)
}

// GammaProportionalAge is Ā(S)_p/I under gamma-distributed rates (Table
// 5.3): (1/(1−δ²))(1/2 − 1/r + (1 − e^{−r})/r²). It diverges as δ² → 1,
// where E[1/λ] is infinite.
func GammaProportionalAge(r, delta2 float64) float64 {
	return em3(r) / (r * r) / (1 - delta2)
}
