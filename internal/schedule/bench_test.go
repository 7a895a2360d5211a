package schedule

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkCapped allocates 10⁷ weighted pages (log-normal rates, median
// one change a day) on 10⁵ hosts of Zipf-like sizes at one visit per page
// a day, each host capped at 0.6 to 1.9 times its pages' count per day, so
// that some of the hosts saturate (the metric saturated counts them); at
// /all the caps are halved, so that every host saturates and the budget
// cannot all be spent. This is the acceptance size of issue 5
// ("freshcrawl allocate for 10⁷ pages in ≤ 10 s").
func BenchmarkCapped(b *testing.B) {
	for _, rule := range []Rule{Freshness, Age, Uniform, Harmonic} {
		for _, all := range []bool{false, true} {
			name := fmt.Sprintf("%v/N=1e7/H=1e5", rule)
			if all {
				name += "/all"
			}
			b.Run(name, func(b *testing.B) {
				benchCapped(b, rule, 10_000_000, 100_000, all)
			})
		}
	}
}

func benchCapped(b *testing.B, rule Rule, n, nh int, all bool) {
	rng := rand.New(rand.NewPCG(1, 1))
	pages, of := randomPages(rng, n, nh, 0, true)
	count := make([]float64, nh)
	for _, h := range of {
		count[h]++
	}
	caps := make([]float64, nh)
	for h := range caps {
		caps[h] = count[h] * (0.6 + 1.3*rng.Float64()) / day
		if all {
			caps[h] /= 2
		}
	}
	c := Capped{Rule: rule, Hosts: Hosts{Of: of, Capacity: caps}}
	freq := make([]float64, n)
	b.ResetTimer()
	for b.Loop() {
		sol, err := c.Solve(pages, float64(n)/day, freq)
		if err != nil {
			b.Fatal(err)
		}
		sat := 0
		for _, s := range sol.Saturated {
			if s {
				sat++
			}
		}
		b.ReportMetric(float64(sat), "saturated")
	}
}

// BenchmarkAssignCrawls assigns paper 002's crawls to crawler slots
// (AssignCrawls) in the shape of the paper's Fig. 10, scaled down: 10
// crawlers with as many slots a day as there are crawls, the crawls of
// pages crawled 1 to 5 times a day at their ideal, evenly spaced times,
// and a fifth of the pages quasi-deterministic (release times; those after
// 90 % of the day are left ordinary, as no slot may follow them).
func BenchmarkAssignCrawls(b *testing.B) {
	for _, r := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("R=%d", r), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(2, 2))
			var x []int
			var release []bool
			for total := 0; total < r; {
				k := min(1+rng.IntN(5), r-total)
				x = append(x, k)
				release = append(release, rng.IntN(5) == 0)
				total += k
			}
			crawls := IdealTimes(x, day, nil, release)
			for c := range crawls {
				crawls[c].Release = crawls[c].Release && crawls[c].Ideal <= 0.9*day
			}
			per := make([]int, 10)
			for k := range per {
				per[k] = r / 10
			}
			per[9] += r - 10*(r/10)
			slots := Slots(day, per)
			for b.Loop() {
				if _, _, err := AssignCrawls(crawls, slots, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTimetable plans a day of 10⁶ pages on 10⁴ hosts (one visit a
// page a day on average), the hosts at 1.2 times their load.
func BenchmarkTimetable(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	const n, nh = 1_000_000, 10_000
	pages, of := randomPages(rng, n, nh, 0, false)
	freq := make([]float64, n)
	for i, p := range pages {
		freq[i] = p.Rate
	}
	caps := hostSums(of, nh, freq)
	for h := range caps {
		caps[h] *= 1.2
	}
	tt := Timetable{Horizon: day, Hosts: Hosts{Of: of, Capacity: caps}}
	for b.Loop() {
		if _, err := tt.Plan(freq); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKKTPass is one pass of the capacitated allocation over 10⁶
// weighted pages on 10⁴ hosts: every page's curve value and derivative at
// a multiplier that puts the pages across the whole curve, summed per
// host. BenchmarkCapped repeats this loop ten to twenty times a solve.
func BenchmarkKKTPass(b *testing.B) {
	const n, nh = 1_000_000, 10_000
	pages, of := randomPages(rand.New(rand.NewPCG(1, 1)), n, nh, 0, true)
	caps := make([]float64, nh)
	for h := range caps {
		caps[h] = float64(n) / nh / day
	}
	for _, age := range []bool{false, true} {
		b.Run(map[bool]string{false: "freshness", true: "age"}[age], func(b *testing.B) {
			p := newKKT(pages, Hosts{Of: of, Capacity: caps}, age)
			// c = μλ/w and y = νλ²/w of about 0.3 for a median page.
			m := 0.3 * day
			if age {
				m *= day
			}
			mu := make([]float64, p.ng)
			for g := range mu {
				mu[g] = m
			}
			for b.Loop() {
				p.sums(mu)
			}
		})
	}
}
