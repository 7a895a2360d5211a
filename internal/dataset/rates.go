package dataset

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/schedule"
)

// secondsPerDay converts the file's changes per day to policy's changes
// per second.
const secondsPerDay = 86400.0

// Rates is a parsed rates file. The ids are not copied out of the file's
// bytes: each page keeps the offset of its line, where its id runs to the
// first tab. For 10⁷ pages that saves as many strings.
type Rates struct {
	// Pages are the file's pages in order: Rate in changes per second,
	// Weight as the file gives it, 1 where it gives none.
	Pages []policy.Page

	data  []byte
	line  []int
	host  []int32   // per page, schedule.NoHost for none; nil if no page has one
	hosts hostTable // the host names, numbered
	// hostSpan is where page i's host is in its line, offset<<8 | length,
	// 0 if it does not fit, so that a writer can copy it from the line it
	// is reading anyway rather than look it up (a cache miss a page).
	hostSpan []uint32
	// idWidth and hostWidth are the longest id and host name, in bytes.
	idWidth, hostWidth int
}

// ID is page i's id.
func (rf *Rates) ID(i int) []byte {
	b := rf.data[rf.line[i]:]
	return b[:bytes.IndexByte(b, '\t')]
}

// Host is page i's host, or nothing.
func (rf *Rates) Host(i int) []byte {
	if rf.host == nil || rf.host[i] < 0 {
		return nil
	}
	if sp := rf.hostSpan[i]; sp != 0 {
		at := rf.line[i] + int(sp>>8)
		return rf.data[at : at+int(sp&0xff)]
	}
	return rf.hosts.name(rf.host[i])
}

// HasHosts reports whether any page names its host.
func (rf *Rates) HasHosts() bool { return rf.host != nil }

// IDWidth is the length of the longest id, in bytes.
func (rf *Rates) IDWidth() int { return rf.idWidth }

// HostWidth is the length of the longest host name, in bytes.
func (rf *Rates) HostWidth() int { return rf.hostWidth }

// HostLimits numbers the pages' hosts for schedule and gives each host its
// capacity in fetches per second, 1/delay: the delay in seconds is the
// host's in delays (as ReadHosts returns them), else def; a delay of 0 is
// no limit. Without hosts it is the zero Hosts, which limits nothing.
func (rf *Rates) HostLimits(delays map[string]float64, def float64) schedule.Hosts {
	if rf.host == nil {
		return schedule.Hosts{}
	}
	caps := make([]float64, rf.hosts.len())
	for h := range caps {
		d, ok := delays[string(rf.hosts.name(int32(h)))]
		if !ok {
			d = def
		}
		caps[h] = math.Inf(1)
		if d > 0 {
			caps[h] = 1 / d
		}
	}
	return schedule.Hosts{Of: rf.host, Capacity: caps}
}

// ReadRates reads r to the end and parses it as a rates file.
func ReadRates(r io.Reader) (*Rates, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, err
	}
	return ParseRates(data)
}

// readAll reads r to the end, in one allocation when r is a regular file.
func readAll(r io.Reader) ([]byte, error) {
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			data := make([]byte, st.Size())
			n, err := io.ReadFull(f, data)
			if err == io.ErrUnexpectedEOF {
				err = nil
			}
			if err != nil {
				return nil, err
			}
			rest, err := io.ReadAll(f) // a file that grew meanwhile
			return append(data[:n], rest...), err
		}
	}
	return io.ReadAll(r)
}

// ratePart is one piece of the rates file, parsed by one goroutine into
// its own stretch [at, at+n) of the Rates' arrays, which has room for as
// many pages as the piece has lines.
type ratePart struct {
	lo, hi             int // the piece's bytes
	at, n              int // its pages
	hosts              hostTable
	idWidth, hostWidth int
	errAt              int // offset of the malformed line
	err                error
}

// ParseRates parses a rates file held in memory, which the Rates keeps.
// It is cut into pieces at line ends; the pieces' lines are counted, each
// piece is parsed in parallel into its own stretch of the arrays, and the
// stretches are closed up where comments and blank lines left room. A
// host is numbered where it first appears, so the result does not depend
// on the number of CPUs or pieces. A malformed line is reported with its
// line number.
func ParseRates(data []byte) (*Rates, error) {
	parts, lines := cutRates(data)
	rf := &Rates{data: data, line: make([]int, lines), Pages: make([]policy.Page, lines),
		host: make([]int32, lines), hostSpan: make([]uint32, lines)}
	parallel(len(parts), func(k int) { rf.parsePart(&parts[k]) })
	withHost, n := false, 0
	for k := range parts {
		p := &parts[k]
		if p.err != nil {
			line := 1 + bytes.Count(data[:p.errAt], []byte{'\n'})
			return nil, fmt.Errorf("line %d: %w", line, p.err)
		}
		withHost = withHost || p.hosts.len() > 0
		rf.idWidth, rf.hostWidth = max(rf.idWidth, p.idWidth), max(rf.hostWidth, p.hostWidth)
		rf.joinPart(p, n)
		n += p.n
	}
	rf.line, rf.Pages, rf.host, rf.hostSpan = rf.line[:n], rf.Pages[:n], rf.host[:n], rf.hostSpan[:n]
	if !withHost {
		rf.host, rf.hostSpan = nil, nil
	}
	return rf, nil
}

// cutRates cuts data into pieces at line ends, each with the number of
// its first page, and returns them and an upper bound on the pages.
// Pieces are of at least 1 MB, about four a CPU: each has its own table
// of host names, which joinPart then merges.
func cutRates(data []byte) (parts []ratePart, lines int) {
	piece := max(1<<20, len(data)/(4*runtime.GOMAXPROCS(0))+1)
	for at := 0; at < len(data); {
		end := min(at+piece, len(data))
		if nl := bytes.IndexByte(data[end:], '\n'); nl >= 0 {
			end += nl + 1
		} else {
			end = len(data)
		}
		parts = append(parts, ratePart{lo: at, hi: end, at: lines})
		lines += bytes.Count(data[at:end], []byte{'\n'}) + 1
		at = end
	}
	return parts, lines
}

// joinPart numbers piece p's hosts globally, in order of first
// appearance, and moves its pages down to start at page n.
func (rf *Rates) joinPart(p *ratePart, n int) {
	if p.hosts.len() > 0 {
		global := make([]int32, p.hosts.len())
		for h := range global {
			global[h] = rf.hosts.number(p.hosts.name(int32(h)))
		}
		for i := p.at; i < p.at+p.n; i++ {
			if h := rf.host[i]; h >= 0 {
				rf.host[i] = global[h]
			}
		}
	}
	if p.at != n {
		copy(rf.line[n:], rf.line[p.at:p.at+p.n])
		copy(rf.Pages[n:], rf.Pages[p.at:p.at+p.n])
		copy(rf.host[n:], rf.host[p.at:p.at+p.n])
		copy(rf.hostSpan[n:], rf.hostSpan[p.at:p.at+p.n])
	}
}

// parallel calls fn(k) for k in [0, n) on up to GOMAXPROCS goroutines.
func parallel(n int, fn func(k int)) {
	var next atomic.Int32
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for k := int(next.Add(1)) - 1; k < n; k = int(next.Add(1)) - 1 {
				fn(k)
			}
		})
	}
	wg.Wait()
}

// parsePart parses the lines of piece p into its stretch of the arrays,
// with hosts numbered locally.
func (rf *Rates) parsePart(p *ratePart) {
	var last []byte // the last line's host, which the next line often shares
	lastH := int32(-1)
	data, i := rf.data, p.at
	for at := p.lo; at < p.hi; {
		end := at + bytes.IndexByte(data[at:p.hi], '\n')
		next := end + 1
		if end < at {
			end, next = p.hi, p.hi
		}
		line := data[at:end]
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		if len(line) > 0 && line[0] != '#' && len(bytes.TrimSpace(line)) > 0 {
			page, id, host, err := parseRateLine(line)
			if err != nil {
				p.errAt, p.err = at, err
				return
			}
			rf.line[i], rf.Pages[i] = at, page
			p.idWidth = max(p.idWidth, len(id))
			h := int32(-1)
			switch {
			case len(host) == 0:
			case bytes.Equal(host, last):
				h = lastH
			default:
				h = p.hosts.number(host)
				p.hostWidth = max(p.hostWidth, len(host))
				last, lastH = host, h
			}
			rf.host[i] = h
			// Where the host is in the line, for the output: host is a
			// slice of line, so their capacities differ by its offset.
			if off := cap(line) - cap(host); h >= 0 && off < 1<<24 && len(host) < 1<<8 {
				rf.hostSpan[i] = uint32(off)<<8 | uint32(len(host))
			}
			i++
		}
		at = next
	}
	p.n = i - p.at
}

// parseRateLine parses id<TAB>changes_per_day[<TAB>weight[<TAB>host]]
// into a page (rate in changes per second), its id and its host name.
func parseRateLine(line []byte) (page policy.Page, id, host []byte, err error) {
	var f [4][]byte
	n := 0
	for rest := line; ; n++ {
		tab := bytes.IndexByte(rest, '\t')
		if n == len(f) {
			return page, nil, nil, fmt.Errorf("want id<TAB>changes_per_day[<TAB>weight[<TAB>host]], got %d fields", n+1+bytes.Count(rest, []byte{'\t'}))
		}
		if tab < 0 {
			f[n] = rest
			n++
			break
		}
		f[n], rest = rest[:tab], rest[tab+1:]
	}
	if n < 2 || len(f[0]) == 0 {
		return page, nil, nil, fmt.Errorf("want id<TAB>changes_per_day[<TAB>weight[<TAB>host]], got %d fields", n)
	}
	rate, err := parseNumber(f[1])
	if err != nil || !(rate >= 0) || math.IsInf(rate, 1) {
		return page, nil, nil, fmt.Errorf("changes per day %q is not a number ≥ 0", f[1])
	}
	weight := 1.0
	if n >= 3 && len(bytes.TrimSpace(f[2])) > 0 {
		weight, err = parseNumber(f[2])
		if err != nil || !(weight > 0) || math.IsInf(weight, 1) {
			return page, nil, nil, fmt.Errorf("weight %q is not a number > 0", f[2])
		}
	}
	return policy.Page{Rate: rate / secondsPerDay, Weight: weight}, f[0], bytes.TrimSpace(f[3]), nil
}

// parseNumber parses a float field, spaces around it allowed.
func parseNumber(b []byte) (float64, error) {
	if len(b) > 0 && (b[0] <= ' ' || b[len(b)-1] <= ' ') {
		b = bytes.TrimSpace(b)
	}
	return parseFloat(b)
}
