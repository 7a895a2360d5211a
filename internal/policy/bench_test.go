package policy

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkOptimalFreshness allocates 10⁶ weighted pages with log-normal
// rates (median one change a day) at one visit per page a day.
func BenchmarkOptimalFreshness(b *testing.B) {
	benchAllocator(b, OptimalFreshness{}, 1_000_000)
}

// BenchmarkOptimalAge is BenchmarkOptimalFreshness for OptimalAge.
func BenchmarkOptimalAge(b *testing.B) {
	benchAllocator(b, OptimalAge{}, 1_000_000)
}

func benchAllocator(b *testing.B, a Allocator, n int) {
	pages := randomPages(rand.New(rand.NewPCG(1, 1)), n, true)
	f := make([]float64, n)
	b.ResetTimer()
	for b.Loop() {
		if err := a.Allocate(pages, float64(n)/day, f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEmbarrassment compares Greedy and Threshold on 10⁵ Poisson pages
// at 2.5 crawls per page per period (paper 002's range) and at 50.
func BenchmarkEmbarrassment(b *testing.B) {
	pages := randomPages(rand.New(rand.NewPCG(1, 1)), 100_000, true)
	for _, perPage := range []float64{2.5, 50} {
		for _, exact := range []bool{false, true} {
			name := map[bool]string{false: "greedy", true: "threshold"}[exact]
			b.Run(fmt.Sprintf("R/N=%g/%s", perPage, name), func(b *testing.B) {
				e := Embarrassment{Exact: exact}
				for b.Loop() {
					if _, err := e.Crawls(pages, perPage*float64(len(pages))/day); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
