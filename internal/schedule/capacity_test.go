package schedule

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

const day = 86400.0

// randomPages draws n pages with log-normal rates (median one change a
// day, σ = 1.5) and, if weighted, log-normal weights, spread over hosts
// hosts with Zipf-like sizes (page i on host ⌊hosts·u²⌋); a share noHost of
// the pages is on no host.
func randomPages(rng *rand.Rand, n, hosts int, noHost float64, weighted bool) ([]policy.Page, []int32) {
	pages := make([]policy.Page, n)
	of := make([]int32, n)
	for i := range pages {
		pages[i].Rate = math.Exp(rng.NormFloat64()*1.5) / day
		if weighted {
			pages[i].Weight = math.Exp(rng.NormFloat64())
		}
		u := rng.Float64()
		of[i] = int32(float64(hosts) * u * u)
		if rng.Float64() < noHost {
			of[i] = NoHost
		}
	}
	return pages, of
}

// hostSums is Σ_{i∈h} f_i per host.
func hostSums(of []int32, nh int, freq []float64) []float64 {
	s := make([]float64, nh)
	for i, h := range of {
		if h >= 0 {
			s[h] += freq[i]
		}
	}
	return s
}

// gFresh and hAge are the marginal curves of the dissertation's optima
// (§5.5.4; policy's optimal.go): w·∂F̄/∂f = w·g(λ/f)/λ and
// −w·∂Ā/∂f = w·h(λ/f)/λ², written here again from their definitions so
// that the KKT checks do not share code with the solver.
func gFresh(r float64) float64 { return -r*math.Expm1(-r) - (math.Expm1(-r) + r) }
func hAge(r float64) float64   { return r*r/2 - 1 + (1+r)*math.Exp(-r) }

// marginal is page p's marginal objective per visit per second at f.
func marginal(age bool, p policy.Page, f float64) float64 {
	w := p.Weight
	if w == 0 {
		w = 1
	}
	if age {
		return w * hAge(p.Rate/f) / (p.Rate * p.Rate)
	}
	if f == 0 {
		return w / p.Rate // g(∞) = 1
	}
	return w * gFresh(p.Rate/f) / p.Rate
}

// checkKKT checks that freq meets the KKT conditions of the capacitated
// problem (the optimality certificate of Kolobov et al., SIGIR 2019, for
// Cho's objectives, dissertation §5.5.4, §5.6): every page that changes and
// is visited has marginal μ + η_h, every page not visited has marginal at
// most that, η_h ≥ 0 and η_h > 0 only on a host at its cap, no host over
// its cap, and the frequencies sum to the spent budget. It returns the
// largest relative deviation of a visited page's marginal.
func checkKKT(t *testing.T, age bool, pages []policy.Page, of []int32, caps, freq []float64, sol Solution, budget float64) float64 {
	t.Helper()
	var sum float64
	for _, f := range freq {
		sum += f
	}
	if math.Abs(sum-sol.Spent) > 1e-9*sol.Spent || sol.Spent > budget*(1+1e-9) {
		t.Errorf("Σf = %g, Spent %g, budget %g", sum, sol.Spent, budget)
	}
	for h, s := range hostSums(of, len(caps), freq) {
		if s > caps[h]*(1+1e-12) {
			t.Errorf("host %d: Σf = %g over its cap %g", h, s, caps[h])
		}
		if sol.Saturated[h] != (sol.HostMultiplier[h] > 0) && sol.HostMultiplier[h] != 0 {
			t.Errorf("host %d: saturated %v, η %g", h, sol.Saturated[h], sol.HostMultiplier[h])
		}
		if sol.Saturated[h] && math.Abs(s-caps[h]) > 1e-9*caps[h] {
			t.Errorf("host %d: saturated but Σf = %g, cap %g", h, s, caps[h])
		}
		if sol.HostMultiplier[h] < 0 {
			t.Errorf("host %d: η = %g < 0", h, sol.HostMultiplier[h])
		}
	}
	var worst float64
	for i, p := range pages {
		if p.Rate == 0 {
			if freq[i] != 0 {
				t.Errorf("page %d never changes but gets %g", i, freq[i])
			}
			continue
		}
		m := sol.Multiplier
		if of[i] >= 0 {
			m += sol.HostMultiplier[of[i]]
		}
		got := marginal(age, p, freq[i])
		if freq[i] == 0 {
			if got > m*(1+1e-9) {
				t.Errorf("page %d abandoned with marginal %g > μ + η_h = %g", i, got, m)
			}
			continue
		}
		worst = max(worst, math.Abs(got-m)/m)
	}
	return worst
}

// TestCappedKKT solves random collections of 2 000, 100 000 and 300 000
// pages (the latter two through the parallel passes, with hosts cut by
// chunk boundaries, the last with the sampled warm start) with caps at a fraction of each host's uncapped share, so
// that some hosts saturate, and checks the KKT conditions. The marginals
// must match μ + η_h within 1e-8: the curve tables are within 2e-10 of the
// exact inversion, and the multiplier searches stop within 1e-9 in ln μ.
func TestCappedKKT(t *testing.T) {
	for _, n := range []int{2000, 100_000, 300_000} {
		for _, rule := range []Rule{Freshness, Age} {
			t.Run(fmt.Sprintf("%v/%d", rule, n), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(n), uint64(rule)))
				nh := n / 50
				pages, of := randomPages(rng, n, nh, 0.1, true)
				pages[0].Rate = 0 // a page that never changes
				budget := float64(n) / day
				free := make([]float64, n)
				if _, err := (Capped{Rule: rule}).Solve(pages, budget, free); err != nil {
					t.Fatal(err)
				}
				caps := hostSums(of, nh, free)
				for h := range caps {
					caps[h] *= 0.7 + 0.8*rng.Float64()
				}
				freq := make([]float64, n)
				sol, err := Capped{Rule: rule, Hosts: Hosts{Of: of, Capacity: caps}}.Solve(pages, budget, freq)
				if err != nil {
					t.Fatal(err)
				}
				nsat := 0
				for _, s := range sol.Saturated {
					if s {
						nsat++
					}
				}
				if nsat == 0 || nsat == nh {
					t.Fatalf("%d of %d hosts saturated: the test wants some", nsat, nh)
				}
				worst := checkKKT(t, rule == Age, pages, of, caps, freq, sol, budget)
				t.Logf("%d of %d hosts saturated; worst marginal deviation %.2g", nsat, nh, worst)
				if worst > 1e-8 {
					t.Errorf("marginals deviate from μ + η_h by %.2g", worst)
				}
			})
		}
	}
}

// TestCappedUncapped checks that caps that do not bind leave the
// uncapacitated optimum unchanged: without hosts, and with every host's
// cap 10 % above its share of the uncapacitated optimum, the frequencies
// match policy.OptimalFreshness and policy.OptimalAge (an independent
// implementation: Halley inversions and policy's own multiplier search)
// within 1e-8 relative, no host is saturated and every η_h is 0.
func TestCappedUncapped(t *testing.T) {
	for _, n := range []int{5, 3000, 40_000} {
		for _, rule := range []Rule{Freshness, Age} {
			t.Run(fmt.Sprintf("%v/%d", rule, n), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(n), 7))
				nh := max(1, n/100)
				pages, of := randomPages(rng, n, nh, 0.2, true)
				budget := float64(n) / day
				want := make([]float64, n)
				var alloc policy.Allocator = policy.OptimalFreshness{}
				if rule == Age {
					alloc = policy.OptimalAge{}
				}
				if err := alloc.Allocate(pages, budget, want); err != nil {
					t.Fatal(err)
				}
				caps := hostSums(of, nh, want)
				for h := range caps {
					caps[h] *= 1.1
				}
				for _, hosts := range []Hosts{{}, {Of: of, Capacity: caps}} {
					got := make([]float64, n)
					sol, err := Capped{Rule: rule, Hosts: hosts}.Solve(pages, budget, got)
					if err != nil {
						t.Fatal(err)
					}
					var worst float64
					for i := range got {
						worst = max(worst, math.Abs(got[i]-want[i])/(budget/float64(n)))
					}
					t.Logf("hosts %v: worst deviation from policy %.2g of the mean frequency", hosts.Of != nil, worst)
					if worst > 1e-8 {
						t.Errorf("hosts %v: frequencies off policy's by %.2g of the mean", hosts.Of != nil, worst)
					}
					for h, s := range sol.Saturated {
						if s || sol.HostMultiplier[h] != 0 {
							t.Errorf("host %d saturated (η = %g) under a cap that does not bind", h, sol.HostMultiplier[h])
						}
					}
				}
			})
		}
	}
}

// objective is Σ w_i F̄(λ_i, f_i) (freshness) or −Σ w_i Ā(λ_i, f_i) (age),
// the quantity the allocation maximises, from policy's closed forms
// (Table 5.2), with no inversion involved.
func objective(age bool, pages []policy.Page, freq []float64) float64 {
	var s float64
	for i, p := range pages {
		w := p.Weight
		if w == 0 {
			w = 1
		}
		if age {
			s -= w * policy.Age(policy.FixedOrder, p.Rate, freq[i])
		} else {
			s += w * policy.Freshness(policy.FixedOrder, p.Rate, freq[i])
		}
	}
	return s
}

// exchangeOptimum maximises objective over {f ≥ 0, Σf = budget,
// Σ_{i∈h} f_i ≤ caps[h]} by pairwise exchanges: for every pair (i, j) it
// moves the best amount δ from j to i that the bounds allow, found by
// golden-section search on the objective itself, until no exchange gains.
// The feasible set is the base polytope of a polymatroid (the host caps
// form a laminar family) whose edges are the directions e_i − e_j, so a
// point no exchange improves is the optimum of the concave objective. It
// shares nothing with the solver but policy's closed forms of F̄ and Ā.
func exchangeOptimum(age bool, pages []policy.Page, of []int32, caps []float64, budget float64) []float64 {
	n := len(pages)
	f := make([]float64, n)
	slack := append([]float64(nil), caps...)
	left := budget
	for i := range f { // a feasible start: fill the pages in order
		room := left
		if of[i] >= 0 {
			room = min(room, slack[of[i]])
			slack[of[i]] -= room
		}
		f[i] = room
		left -= room
	}
	pairObj := func(i, j int, fi, fj float64) float64 {
		var s float64
		for _, k := range [2]int{i, j} {
			p, f := pages[k], fi
			if k == j {
				f = fj
			}
			w := p.Weight
			if w == 0 {
				w = 1
			}
			if age {
				s -= w * policy.Age(policy.FixedOrder, p.Rate, f)
			} else {
				s += w * policy.Freshness(policy.FixedOrder, p.Rate, f)
			}
		}
		return s
	}
	for sweep := 0; sweep < 2000; sweep++ {
		gained := 0.0
		for i := range n {
			for j := range n {
				if i == j {
					continue
				}
				// Move δ ∈ [0, hi] from j to i.
				hi := f[j]
				if of[i] >= 0 && of[i] != of[j] {
					hi = min(hi, slack[of[i]])
				}
				if hi <= 0 {
					continue
				}
				obj := func(d float64) float64 { return pairObj(i, j, f[i]+d, f[j]-d) }
				a, b := 0.0, hi
				const phi = 0.6180339887498949
				c, d := b-phi*(b-a), a+phi*(b-a)
				fc, fd := obj(c), obj(d)
				for range 90 {
					if fc >= fd {
						b, d, fd = d, c, fc
						c = b - phi*(b-a)
						fc = obj(c)
					} else {
						a, c, fc = c, d, fd
						d = a + phi*(b-a)
						fd = obj(d)
					}
				}
				best := (a + b) / 2
				if obj(hi) > obj(best) {
					best = hi
				}
				if g := obj(best) - obj(0); g > 0 {
					gained += g
					f[i] += best
					f[j] -= best
					if of[i] >= 0 {
						slack[of[i]] -= best
					}
					if of[j] >= 0 {
						slack[of[j]] += best
					}
				}
			}
		}
		if gained <= 1e-15 {
			break
		}
	}
	return f
}

// TestCappedBruteForce compares Capped with exchangeOptimum, an
// independent solver, on 300 random instances of 2 to 4 pages on one or
// two capped hosts (and sometimes a page on no host), for freshness and
// for age (the weighted objectives of dissertation §5.5.4 and §5.6 under
// Kolobov et al.'s per-host politeness constraints, SIGIR 2019), budgets
// from a tenth to nine tenths of the caps. The objective must
// match within 1e-9 relative (the exchange search's golden sections end
// within ~1e-12 of the best step; the objective is flat to second order
// there) and the frequencies within 1e-4 of the budget.
func TestCappedBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, rule := range []Rule{Freshness, Age} {
		var worstObj, worstF float64
		for trial := range 300 {
			n := 2 + rng.IntN(3)
			nh := 1 + rng.IntN(2)
			pages := make([]policy.Page, n)
			of := make([]int32, n)
			for i := range pages {
				pages[i] = policy.Page{Rate: math.Exp(rng.NormFloat64()), Weight: math.Exp(rng.NormFloat64() / 2)}
				of[i] = int32(rng.IntN(nh))
				if rng.IntN(6) == 0 {
					of[i] = NoHost
				}
			}
			caps := make([]float64, nh)
			var total float64
			for h := range caps {
				caps[h] = 0.2 + 2*rng.Float64()
				total += caps[h]
			}
			budget := total * (0.1 + 0.8*rng.Float64())
			freq := make([]float64, n)
			sol, err := Capped{Rule: rule, Hosts: Hosts{Of: of, Capacity: caps}}.Solve(pages, budget, freq)
			if err != nil {
				t.Fatal(err)
			}
			checkKKT(t, rule == Age, pages, of, caps, freq, sol, budget)
			want := exchangeOptimum(rule == Age, pages, of, caps, budget)
			got, best := objective(rule == Age, pages, freq), objective(rule == Age, pages, want)
			dObj := (best - got) / math.Abs(best)
			worstObj = max(worstObj, dObj)
			for i := range freq {
				worstF = max(worstF, math.Abs(freq[i]-want[i])/budget)
			}
			if dObj > 1e-9 {
				t.Errorf("%v trial %d: objective %.12g, exchange search finds %.12g\npages %v hosts %v caps %v budget %g\ngot  %v\nwant %v",
					rule, trial, got, best, pages, of, caps, budget, freq, want)
			}
		}
		t.Logf("%v: worst objective shortfall %.2g (relative), worst frequency gap %.2g of the budget", rule, worstObj, worstF)
		if worstF > 1e-4 {
			t.Errorf("%v: frequencies differ from the exchange optimum by %.2g of the budget", rule, worstF)
		}
	}
}

// TestCappedOverCapacity asks for more than the hosts allow: every host
// that has a changing page gets exactly its capacity, Spent says how much
// that is, Allocate reports ErrOverCapacity, and a host of capacity 0 gets
// nothing.
func TestCappedOverCapacity(t *testing.T) {
	pages := []policy.Page{{Rate: 1}, {Rate: 2}, {Rate: 3, Weight: 2}, {Rate: 1}, {Rate: 0}}
	of := []int32{0, 0, 1, 2, 1}
	caps := []float64{1.5, 0.7, 0}
	for _, rule := range []Rule{Freshness, Age, Uniform, Proportional} {
		t.Run(rule.String(), func(t *testing.T) {
			c := Capped{Rule: rule, Hosts: Hosts{Of: of, Capacity: caps}}
			freq := make([]float64, len(pages))
			sol, err := c.Solve(pages, 10, freq)
			if err != nil {
				t.Fatal(err)
			}
			sums := hostSums(of, len(caps), freq)
			if math.Abs(sol.Spent-2.2) > 1e-12 || math.Abs(sums[0]-1.5) > 1e-12 || math.Abs(sums[1]-0.7) > 1e-12 || sums[2] != 0 {
				t.Errorf("spent %g, host sums %v, want 2.2 = 1.5 + 0.7 + 0", sol.Spent, sums)
			}
			if sol.Multiplier != 0 {
				t.Errorf("multiplier %g, want 0 with every host saturated", sol.Multiplier)
			}
			if err := c.Allocate(pages, 10, freq); !errors.Is(err, ErrOverCapacity) {
				t.Errorf("Allocate: %v, want ErrOverCapacity", err)
			}
		})
	}
}

// TestWaterfill checks Uniform and Proportional under caps against a
// bisection on the level t of Σ_h min(t·Z_h, c_h) = B, Z_h the host's page
// count (Uniform) or total rate (Proportional): each page must get
// size·min(t, c_h/Z_h) within 1e-9 relative.
func TestWaterfill(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, rule := range []Rule{Uniform, Proportional} {
		for trial := range 50 {
			n, nh := 1+rng.IntN(40), 1+rng.IntN(6)
			pages, of := randomPages(rng, n, nh, 0.1, false)
			size := func(i int) float64 {
				if rule == Proportional {
					return pages[i].Rate
				}
				return 1
			}
			z, zFree := make([]float64, nh), 0.0
			for i, h := range of {
				if h >= 0 {
					z[h] += size(i)
				} else {
					zFree += size(i)
				}
			}
			caps := make([]float64, nh)
			var total float64
			for h := range caps {
				caps[h] = z[h] * rng.Float64() * 2 / day
				total += caps[h]
			}
			budget := total * (0.2 + rng.Float64())
			if zFree == 0 {
				budget = min(budget, total*0.999)
			}
			spend := func(t float64) float64 {
				s := zFree * t
				for h := range caps {
					s += min(t*z[h], caps[h])
				}
				return s
			}
			lo, hi := 0.0, 1.0
			for spend(hi) < budget {
				hi *= 2
			}
			for range 200 {
				if mid := (lo + hi) / 2; spend(mid) < budget {
					lo = mid
				} else {
					hi = mid
				}
			}
			freq := make([]float64, n)
			if _, err := (Capped{Rule: rule, Hosts: Hosts{Of: of, Capacity: caps}}).Solve(pages, budget, freq); err != nil {
				t.Fatal(err)
			}
			for i := range freq {
				want := size(i) * hi
				if h := of[i]; h >= 0 && z[h] > 0 {
					want = size(i) * min(hi, caps[h]/z[h])
				}
				if math.Abs(freq[i]-want) > 1e-9*want {
					t.Fatalf("%v trial %d page %d: %g, want %g", rule, trial, i, freq[i], want)
				}
			}
		}
	}
}

// TestCappedInput checks that malformed requests fail with policy.ErrInput.
func TestCappedInput(t *testing.T) {
	pages := []policy.Page{{Rate: 1}, {Rate: 2}}
	freq := make([]float64, 2)
	tests := []struct {
		name string
		c    Capped
		b    float64
	}{
		{"negative budget", Capped{}, -1},
		{"short hosts", Capped{Hosts: Hosts{Of: []int32{0}, Capacity: []float64{1}}}, 1},
		{"unknown host", Capped{Hosts: Hosts{Of: []int32{0, 2}, Capacity: []float64{1}}}, 1},
		{"negative capacity", Capped{Hosts: Hosts{Of: []int32{0, 0}, Capacity: []float64{-1}}}, 1},
		{"cost rule", Capped{Rule: Cost}, 1},
	}
	for _, tt := range tests {
		if _, err := tt.c.Solve(pages, tt.b, freq); !errors.Is(err, policy.ErrInput) {
			t.Errorf("%s: %v, want ErrInput", tt.name, err)
		}
	}
}
