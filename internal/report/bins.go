package report

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// binsPerDecade is how finely the log-spaced bins of the rate plots cut
// a factor of ten: four bins, each a factor of 1.78.
const binsPerDecade = 4

// logBins returns the edges of log-spaced bins covering the positive
// values vs, on whole powers of ten; nil if none is positive.
func logBins(vs []float64) []float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if v > 0 {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if lo > hi {
		return nil
	}
	first, last := math.Floor(math.Log10(lo)), math.Floor(math.Log10(hi))+1
	n := int(last-first) * binsPerDecade
	edges := make([]float64, n+1)
	for i := range edges {
		edges[i] = math.Pow(10, first+float64(i)/binsPerDecade)
	}
	return edges
}

// binOf is the index of the bin of edges that holds v: the last whose
// lower edge is at most v.
func binOf(edges []float64, v float64) int {
	i, found := slices.BinarySearch(edges, v)
	if !found {
		i--
	}
	return min(max(i, 0), len(edges)-2)
}

// median is the median of vs, which it sorts; NaN if vs is empty.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	slices.Sort(vs)
	if n := len(vs); n%2 == 0 {
		return (vs[n/2-1] + vs[n/2]) / 2
	}
	return vs[len(vs)/2]
}

// timeUnit is the unit an axis of durations is drawn in.
type timeUnit struct {
	name string
	d    time.Duration
}

// unitFor is the unit that shows a duration of span in numbers between
// about 1 and 200: seconds up to 3 minutes, minutes up to 3 hours, hours
// up to 3 days, then days.
func unitFor(span time.Duration) timeUnit {
	switch {
	case span <= 3*time.Minute:
		return timeUnit{"seconds", time.Second}
	case span <= 3*time.Hour:
		return timeUnit{"minutes", time.Minute}
	case span <= 72*time.Hour:
		return timeUnit{"hours", time.Hour}
	}
	return timeUnit{"days", 24 * time.Hour}
}

// in is d in unit u.
func (u timeUnit) in(d time.Duration) float64 { return float64(d) / float64(u.d) }

// maxBuckets bounds the buckets of the plots over time: enough to show a
// crawl's phases, few enough that each bucket holds a fair count.
const maxBuckets = 60

// bucketWidths are the widths a time bucket takes, the narrowest that
// keeps a crawl's span within maxBuckets.
var bucketWidths = []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second,
	15 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute,
	15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour,
	12 * time.Hour, 24 * time.Hour, 2 * 24 * time.Hour, 7 * 24 * time.Hour, 30 * 24 * time.Hour}

// bucketWidth is the width of the buckets of a span.
func bucketWidth(span time.Duration) time.Duration {
	for _, w := range bucketWidths {
		if span/w < maxBuckets {
			return w
		}
	}
	return span / maxBuckets
}

// count is how many of ts fall in each bucket of width w from t0, over
// n buckets; a time outside them is not counted.
func count(ts []time.Time, t0 time.Time, w time.Duration, n int) []float64 {
	c := make([]float64, n)
	for _, t := range ts {
		if i := int(t.Sub(t0) / w); i >= 0 && i < n {
			c[i]++
		}
	}
	return c
}

// durationName names a bucket width: "second", "10 seconds", "hour".
func durationName(d time.Duration) string {
	units := []struct {
		d         time.Duration
		one, many string
	}{{24 * time.Hour, "day", "days"}, {time.Hour, "hour", "hours"}, {time.Minute, "minute", "minutes"},
		{time.Second, "second", "seconds"}}
	for _, u := range units {
		if d%u.d == 0 {
			if n := d / u.d; n > 1 {
				return fmt.Sprintf("%d %s", n, u.many)
			}
			return u.one
		}
	}
	return d.String()
}
