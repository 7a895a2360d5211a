// Package policy turns pages' change rates and importances into revisit
// frequencies: the refresh policies of Cho's dissertation ch. 5 (uniform,
// proportional, and the freshness- and age-optimal allocations, weighted as
// in §5.6), paper 001's staleness-cost interval (Ford, Grimes & Tassone) and
// paper 002's embarrassment-weighted discrete allocation (Wolf et al.).
//
// It is pure math: no clock, no I/O. Units are seconds and changes per
// second throughout; r = λ/f, the expected number of changes per visit
// interval, is the dimensionless quantity the formulas are written in, and
// the code names variables as the papers do (lambda, f, r, mu, nu).
//
// The pieces:
//
//   - Freshness and Age: the time-averaged freshness F̄(λ, f) and age
//     Ā(λ, f) of one Poisson page under the fixed, random and purely random
//     sync orders (dissertation §5.4, Table 5.2).
//   - Allocator, with Uniform, Proportional, OptimalFreshness, OptimalAge
//     and Embarrassment: frequencies for a whole collection under a budget of
//     visits per second.
//   - StalenessCost: paper 001's cost per unit time of a refresh interval,
//     its optimal ratio r* and the linear-shrinkage interval r*·Δ̂.
//   - Greedy and Threshold: exact solvers of paper 002's discrete separable
//     convex resource-allocation problem, and the UpdateModel staleness
//     functions (Poisson, Pareto) it is fed with.
//
// Package reproduce sets the papers' worked numbers against these
// functions, row by row, with the papers' known mistakes flagged rather
// than repeated.
package policy
