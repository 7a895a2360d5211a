package schedule

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// Hosts tells a capacity-aware allocator or scheduler which host each page
// is on and how often each host may be fetched. A host that asks for a
// delay of d seconds between requests allows at most c = 1/d fetches per
// second, however the crawler's budget is divided (DESIGN.md §4,
// politeness); Kolobov et al. (SIGIR 2019) were the first to make the
// freshness-optimal allocation respect that limit.
type Hosts struct {
	// Of[i] is the host of page i, an index into Capacity, or NoHost for a
	// page whose host sets no limit. A nil Of puts every page on no host.
	Of []int32
	// Capacity[h] is host h's limit c_h in fetches per second (1/delay),
	// ≥ 0; +Inf means no limit and 0 means the host may not be fetched.
	Capacity []float64
}

// NoHost is the host of a page that no host limits.
const NoHost = -1

// check validates h for n pages.
func (h Hosts) check(n int) error {
	if h.Of == nil {
		return nil
	}
	if len(h.Of) != n {
		return fmt.Errorf("%w: hosts for %d pages, want %d", policy.ErrInput, len(h.Of), n)
	}
	for i, g := range h.Of {
		if g < NoHost || int(g) >= len(h.Capacity) {
			return fmt.Errorf("%w: page %d on host %d of %d", policy.ErrInput, i, g, len(h.Capacity))
		}
	}
	for g, c := range h.Capacity {
		if !(c >= 0) {
			return fmt.Errorf("%w: host %d has capacity %v", policy.ErrInput, g, c)
		}
	}
	return nil
}

// group is page i's group: its host, or nh (one past the last host) for a
// page on no host.
func (h Hosts) group(i, nh int) int {
	if h.Of == nil || h.Of[i] < 0 {
		return nh
	}
	return int(h.Of[i])
}

// minParallel is the least number of items worth cutting into chunks.
const minParallel = 1 << 14

// forChunks calls fn(c, lo, hi) for the k chunks c of [0, n), run on up
// to GOMAXPROCS goroutines. The chunks depend on n and k only, so that
// sums taken per chunk and added in chunk order, and the allocations made
// from them, do not depend on the number of CPUs (as in policy).
func forChunks(n, k int, fn func(c, lo, hi int)) {
	if k <= 1 {
		fn(0, 0, n)
		return
	}
	var next atomic.Int32
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), k) {
		wg.Go(func() {
			for c := int(next.Add(1)) - 1; c < k; c = int(next.Add(1)) - 1 {
				fn(c, c*n/k, (c+1)*n/k)
			}
		})
	}
	wg.Wait()
}
