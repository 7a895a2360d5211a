package change

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// updateObservations returns n observations of a page of rate 1/(24 h)
// visited every 8 h ± 50 %, the regime of paper 001's experiments, with
// Last-Modified on every visit.
func updateObservations(n int) []Observation {
	rng := rand.New(rand.NewPCG(8, 24))
	obs := make([]Observation, n)
	for i := range obs {
		iv := 8 * hour * (0.5 + rng.Float64())
		back := rng.ExpFloat64() * 24 * hour
		obs[i] = Observation{Interval: iv, Changed: back < iv, SinceModified: back}
	}
	return obs
}

// BenchmarkUpdate measures the crawler's per-visit cost: Stats.Add of the
// visit's observation, then re-estimating with each estimator. prior-mle is
// the default; its solve starts from the root cached in the Stats.
func BenchmarkUpdate(b *testing.B) {
	obs := updateObservations(1024)
	for _, est := range All() {
		for _, decay := range []float64{0, 30 * day} {
			b.Run(fmt.Sprintf("%s/decay=%v", est.Name(), decay > 0), func(b *testing.B) {
				s := Stats{Decay: decay}
				at := 0.0
				var sink float64
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					o := obs[i&1023]
					at += o.Interval
					s.Add(o, at)
					sink += est.Estimate(&s).Rate
				}
				if math.IsNaN(sink) {
					b.Fatal("NaN estimate")
				}
			})
		}
	}
}

// BenchmarkUpdateYoungPage is BenchmarkUpdate for prior-mle on pages in
// their first 300 visits (a new page every 300 visits, with no decay), where
// each visit moves the root more than on a long history.
func BenchmarkUpdateYoungPage(b *testing.B) {
	obs := updateObservations(1024)
	var s Stats
	est := PriorMLE{}
	at := 0.0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%300 == 0 {
			s = Stats{}
		}
		o := obs[i&1023]
		at += o.Interval
		s.Add(o, at)
		est.Estimate(&s)
	}
}

// BenchmarkUpdateCold is BenchmarkUpdate for prior-mle with the cached root
// cleared before every solve, to show what the warm start saves.
func BenchmarkUpdateCold(b *testing.B) {
	obs := updateObservations(1024)
	var s Stats
	est := PriorMLE{}
	at := 0.0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		o := obs[i&1023]
		at += o.Interval
		s.Add(o, at)
		s.hint = 0
		est.Estimate(&s)
	}
}

// BenchmarkUpdateRow is the whole per-visit round trip of a stored page:
// decode the Stats from the row, add the visit, re-estimate with prior-mle,
// encode it back.
func BenchmarkUpdateRow(b *testing.B) {
	obs := updateObservations(1024)
	var s Stats
	at := 0.0
	for _, o := range obs {
		at += o.Interval
		s.Add(o, at)
	}
	est := PriorMLE{}
	// The crawler stores a row after estimating, so the row carries the
	// last root, the next update's warm start.
	est.Estimate(&s)
	row, _ := s.MarshalBinary()
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	b.SetBytes(int64(len(row)))
	for i := 0; b.Loop(); i++ {
		var t Stats
		if err := t.UnmarshalBinary(row); err != nil {
			b.Fatal(err)
		}
		o := obs[i&1023]
		t.Add(o, at+o.Interval)
		est.Estimate(&t)
		buf, _ = t.AppendBinary(buf[:0])
	}
}

// BenchmarkUnmarshal is the decoding half of BenchmarkUpdateRow alone:
// a stored row with Last-Modified and seven bins, and one with decay,
// whose weights are not whole numbers.
func BenchmarkUnmarshal(b *testing.B) {
	obs := updateObservations(1024)
	for _, decay := range []float64{0, 30 * day} {
		b.Run(fmt.Sprintf("decay=%v", decay > 0), func(b *testing.B) {
			s := Stats{Decay: decay}
			at := 0.0
			for _, o := range obs {
				at += o.Interval
				s.Add(o, at)
			}
			PriorMLE{}.Estimate(&s)
			row, _ := s.MarshalBinary()
			b.ReportAllocs()
			b.SetBytes(int64(len(row)))
			for b.Loop() {
				var t Stats
				if err := t.UnmarshalBinary(row); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
