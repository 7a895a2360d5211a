package sampling

// FrequencyBased is the change-frequency-based policy paper 004 compares
// its sampling policies with (§2.1 item 2, after its refs [8, 11]): each
// page's change frequency is estimated from its own history and the page
// is revisited in proportion to it ("if we detected 4 changes [in 12
// monthly visits], we may estimate that the item changes once every 4
// months and revisit the item accordingly").
//
// A page's estimate is the share of its downloads that found a change,
// p̂ = (X + 1/2)/(n + 1) after X changes in n downloads (the
// Krichevsky–Trofimov estimate; the paper names no estimator), which is
// 1/2 before the first download and never 0, so that a page never seen to
// change is still revisited, ever more rarely, as the paper's Fig. 10
// describes. Time runs in downloads: page i is due 1/f_i downloads after
// its latest one, f_i = p̂_i/Σ_j p̂_j, so that the rates sum to one download
// per download slot, and each cycle downloads the pages due soonest. Pages
// never downloaded come first, in index order, so that the first cycles
// are the round-robin pass of the paper's §4.2 ("it visited every page
// once in a round-robin manner in the beginning").
type FrequencyBased struct {
	visits, changes []int32
	at              []float64 // slot of the latest download
	sum             float64   // Σ p̂
	slot            float64   // downloads handed out so far
	fresh           int       // pages 0..fresh−1 have been handed out once
	heap            dueHeap   // the pages handed out and observed
}

// NewFrequencyBased returns the policy for pages 0..pages−1, none
// downloaded yet.
func NewFrequencyBased(pages int) *FrequencyBased {
	return &FrequencyBased{visits: make([]int32, pages), changes: make([]int32, pages), at: make([]float64, pages),
		sum: 0.5 * float64(pages), heap: make(dueHeap, 0, pages)}
}

// Estimate is page i's estimated per-cycle change probability p̂_i.
func (f *FrequencyBased) Estimate(i int) float64 {
	return (float64(f.changes[i]) + 0.5) / (float64(f.visits[i]) + 1)
}

// Next returns the pages to download this cycle, at most budget of them,
// soonest due first. Every page it returns must be passed to Observe
// before the next call to Next; until then it is not scheduled.
func (f *FrequencyBased) Next(budget int) []int {
	n := min(budget, len(f.visits)-f.fresh+len(f.heap))
	out := make([]int, n)
	for k := range out {
		// Pages never handed out come first, in index order.
		p := f.fresh
		if p < len(f.visits) {
			f.fresh++
		} else {
			p = int(f.heap.pop().page)
		}
		out[k] = p
		f.at[p] = f.slot
		f.slot++
	}
	return out
}

// Observe records what the download of page i returned by Next found and
// schedules the page's next download.
func (f *FrequencyBased) Observe(i int, changed bool) {
	f.sum -= f.Estimate(i)
	f.visits[i]++
	if changed {
		f.changes[i]++
	}
	p := f.Estimate(i)
	f.sum += p
	f.heap.push(dueEntry{due: f.at[i] + f.sum/p, page: int32(i)})
}

type dueEntry struct {
	due  float64
	page int32
}

// dueHeap is a binary min-heap on due, then page.
type dueHeap []dueEntry

func (e dueEntry) less(o dueEntry) bool {
	return e.due < o.due || e.due == o.due && e.page < o.page
}

func (h *dueHeap) push(e dueEntry) {
	*h = append(*h, e)
	s := *h
	for j := len(s) - 1; j > 0; {
		p := (j - 1) / 2
		if !s[j].less(s[p]) {
			break
		}
		s[j], s[p] = s[p], s[j]
		j = p
	}
}

func (h *dueHeap) pop() dueEntry {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for j := 0; ; {
		l := 2*j + 1
		if l >= len(s) {
			break
		}
		if r := l + 1; r < len(s) && s[r].less(s[l]) {
			l = r
		}
		if !s[l].less(s[j]) {
			break
		}
		s[j], s[l] = s[l], s[j]
		j = l
	}
	*h = s
	return top
}
