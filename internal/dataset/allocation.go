package dataset

import (
	"encoding/json"
	"io"
	"math"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// This file writes the output of freshcrawl allocate: per page of a rates
// file (ReadRates), its allocated visits, interval and expected freshness
// and age, as an aligned table or as JSON lines, then the collection's
// sums. The table of 10⁷ pages is formatted in parallel pieces.

// Allocation is one page in allocate's -json output. Infinite intervals
// (never visited) and ages (never visited but changing) are null. The
// output is written by appendJSON, which must produce what encoding/json
// would for this type (TestAllocationJSONEncoding).
type Allocation struct {
	ID              string   `json:"id"`
	ChangesPerDay   float64  `json:"changes_per_day"`
	Weight          float64  `json:"weight"`
	VisitsPerDay    float64  `json:"visits_per_day"`
	Interval        string   `json:"interval"`
	IntervalSeconds *float64 `json:"interval_seconds"`
	Freshness       float64  `json:"freshness"`
	Age             string   `json:"age"`
	AgeSeconds      *float64 `json:"age_seconds"`
	Host            string   `json:"host,omitempty"`
}

func finite(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return &v
}

// AllocationSum accumulates the collection's weighted averages: Fetches
// is the frequencies' sum, in fetches per second.
type AllocationSum struct {
	Fetches                      float64
	weight, fresh, age, harmonic float64
}

// Averages are the weighted time-averaged freshness and age (Definition
// 5.4: Σ w_i F̄_i/Σ w_i, as policy.Collection).
func (s AllocationSum) Averages() (fresh, age float64) {
	if s.weight == 0 {
		return 1, 0
	}
	return s.fresh / s.weight, s.age / s.weight
}

// Harmonic is the weighted time-averaged harmonic staleness,
// Σ w_i Ḡ_i/Σ w_i (policy.HarmonicStaleness): +Inf if a page that changes
// is never visited.
func (s AllocationSum) Harmonic() float64 {
	if s.weight == 0 {
		return 0
	}
	return s.harmonic / s.weight
}

// Text columns: the numbers are right-aligned in widths that fit any value
// their format can produce (%.4g of a positive finite float is at most
// 10 bytes, HumanSeconds 9 runes), so the table streams without a first
// pass; ids and hosts are left-aligned to the longest, up to a limit.
var allocationColumns = []struct {
	name  string
	width int
}{{"changes/day", 11}, {"weight", 10}, {"visits/day", 10}, {"every", 9}, {"freshness", 9}, {"age", 9}}

const maxNameWidth = 48

// WriteAllocation writes the frequencies freq (fetches per second) of the
// pages of rf, a table or JSON lines, and returns the collection's sums.
// Pieces of the output are formatted in parallel and written in order,
// with a bounded number in flight.
func WriteAllocation(w io.Writer, rf *Rates, freq []float64, asJSON bool) AllocationSum {
	idW, hostW := min(max(rf.IDWidth(), 2), maxNameWidth), 0
	if rf.HasHosts() {
		hostW = min(max(rf.HostWidth(), 4), maxNameWidth)
	}
	if !asJSON {
		var b []byte
		b = appendLeft(b, "id", idW)
		if rf.HasHosts() {
			b = appendLeft(append(b, "  "...), "host", hostW)
		}
		for _, c := range allocationColumns {
			b = appendRight(b, c.name, c.width)
		}
		w.Write(append(b, '\n'))
	}
	const piece = 1 << 14 // pages
	n := len(rf.Pages)
	pieces := (n + piece - 1) / piece
	workers := min(runtime.GOMAXPROCS(0), pieces)
	type result struct {
		buf []byte
		sum AllocationSum
	}
	done := make([]chan result, pieces)
	for k := range done {
		done[k] = make(chan result, 1)
	}
	// free bounds the pieces formatted but not yet written, and recycles
	// their buffers.
	free := make(chan []byte, 2*workers)
	for range 2 * workers {
		free <- nil
	}
	var next atomic.Int32
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				buf := <-free
				k := int(next.Add(1)) - 1
				if k >= pieces {
					return
				}
				var s AllocationSum
				buf = buf[:0]
				for i := k * piece; i < min(n, (k+1)*piece); i++ {
					buf = appendPage(buf, rf, i, freq[i], asJSON, idW, hostW, &s)
				}
				done[k] <- result{buf, s}
			}
		})
	}
	var total AllocationSum
	for k := range pieces {
		r := <-done[k]
		w.Write(r.buf)
		free <- r.buf
		total.Fetches += r.sum.Fetches
		total.weight += r.sum.weight
		total.fresh += r.sum.fresh
		total.age += r.sum.age
		total.harmonic += r.sum.harmonic
	}
	wg.Wait()
	return total
}

// appendPage appends page i's line and adds it to s.
func appendPage(b []byte, rf *Rates, i int, f float64, asJSON bool, idW, hostW int, s *AllocationSum) []byte {
	p := rf.Pages[i]
	w := weightOf(p)
	fresh := policy.Freshness(policy.FixedOrder, p.Rate, f)
	age := policy.Age(policy.FixedOrder, p.Rate, f)
	s.Fetches += f
	s.weight += w
	s.fresh += w * fresh
	s.age += w * age
	s.harmonic += w * policy.HarmonicStaleness(p.Rate, f)
	if asJSON {
		return appendJSON(b, rf, i, f, fresh, age)
	}
	b = appendLeft(b, rf.ID(i), idW)
	if hostW > 0 {
		b = appendLeft(append(b, "  "...), rf.Host(i), hostW)
	}
	var num [40]byte
	col := allocationColumns
	b = appendRight(b, AppendG(num[:0], p.Rate*secondsPerDay, 4), col[0].width)
	b = appendRight(b, AppendG(num[:0], w, 4), col[1].width)
	b = appendRight(b, AppendG(num[:0], f*secondsPerDay, 4), col[2].width)
	b = appendRight(b, appendEvery(num[:0], f), col[3].width)
	b = appendRight(b, AppendF4(num[:0], fresh), col[4].width)
	b = appendRight(b, appendHuman(num[:0], age), col[5].width)
	return append(b, '\n')
}

// appendLeft appends s padded with spaces to width runes (s itself if
// longer).
func appendLeft[S ~string | ~[]byte](b []byte, s S, width int) []byte {
	b = append(b, s...)
	for k := runeCount(s); k < width; k++ {
		b = append(b, ' ')
	}
	return b
}

// appendRight appends two spaces, then s right-aligned in width runes. s
// is a number or an interval: ASCII, or "∞".
func appendRight[S ~string | ~[]byte](b []byte, s S, width int) []byte {
	b = append(b, "  "...)
	n := len(s)
	if n > 0 && s[0] >= 0x80 {
		n = runeCount(s)
	}
	for ; n < width; n++ {
		b = append(b, ' ')
	}
	return append(b, s...)
}

// runeCount is the number of runes in s, quick for ASCII.
func runeCount[S ~string | ~[]byte](s S) int {
	n := 0
	for k := 0; k < len(s); k++ {
		if s[k]&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// appendJSON appends page i as encoding/json would encode its
// Allocation, newline included.
func appendJSON(b []byte, rf *Rates, i int, f, fresh, age float64) []byte {
	p := rf.Pages[i]
	b = append(b, `{"id":`...)
	b = appendJSONString(b, rf.ID(i))
	b = append(b, `,"changes_per_day":`...)
	b = appendJSONFloat(b, p.Rate*secondsPerDay)
	b = append(b, `,"weight":`...)
	b = appendJSONFloat(b, weightOf(p))
	b = append(b, `,"visits_per_day":`...)
	b = appendJSONFloat(b, f*secondsPerDay)
	b = append(b, `,"interval":"`...)
	b = appendEvery(b, f)
	b = append(b, `","interval_seconds":`...)
	b = appendJSONFinite(b, 1/f)
	b = append(b, `,"freshness":`...)
	b = appendJSONFloat(b, fresh)
	b = append(b, `,"age":"`...)
	b = appendHuman(b, age)
	b = append(b, `","age_seconds":`...)
	b = appendJSONFinite(b, age)
	if h := rf.Host(i); len(h) > 0 {
		b = append(b, `,"host":`...)
		b = appendJSONString(b, h)
	}
	return append(b, "}\n"...)
}

// appendJSONString appends s as a JSON string: directly when it is plain
// printable ASCII that encoding/json leaves alone, else through
// json.Marshal (which escapes HTML characters, as the Encoder did).
func appendJSONString[S ~string | ~[]byte](b []byte, s S) []byte {
	for k := 0; k < len(s); k++ {
		if c := s[k]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(string(s))
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONFloat appends v as encoding/json formats a float64: the
// shortest representation, in exponent form below 1e-6 or from 1e21, with
// a two-digit negative exponent shortened to one ("1e-07" → "1e-7").
func appendJSONFloat(b []byte, v float64) []byte {
	format := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendJSONFinite appends v, or null when it is infinite or NaN.
func appendJSONFinite(b []byte, v float64) []byte {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return append(b, "null"...)
	}
	return appendJSONFloat(b, v)
}

func weightOf(p policy.Page) float64 {
	if p.Weight == 0 {
		return 1
	}
	return p.Weight
}

// HumanSeconds formats a duration in seconds as "45s", "12m", "7.2h",
// "3.5d" or "∞".
func HumanSeconds(s float64) string { return string(appendHuman(nil, s)) }

// appendHuman appends HumanSeconds(s).
func appendHuman(b []byte, s float64) []byte {
	switch {
	case math.IsInf(s, 1) || math.IsNaN(s):
		return append(b, "∞"...)
	case s < 60:
		return append(AppendG(b, s, 3), 's')
	case s < 3600:
		return append(AppendG(b, s/60, 3), 'm')
	case s < 2*secondsPerDay:
		return append(AppendG(b, s/3600, 3), 'h')
	}
	return append(AppendG(b, s/secondsPerDay, 3), 'd')
}

// every formats the interval between visits at frequency f (per second).
func every(f float64) string { return string(appendEvery(nil, f)) }

// appendEvery appends every(f).
func appendEvery(b []byte, f float64) []byte {
	if f == 0 {
		return append(b, "never"...)
	}
	return appendHuman(b, 1/f)
}
