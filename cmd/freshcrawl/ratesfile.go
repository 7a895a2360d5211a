package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/schedule"
)

// rateFile is a parsed rates file. The ids are not copied out of the
// file's bytes: each page keeps the offset of its line, where its id runs
// to the first tab. For 10⁷ pages that saves as many strings.
type rateFile struct {
	data  []byte
	line  []int
	pages []policy.Page
	host  []int32   // per page, schedule.NoHost for none; nil if no page has one
	hosts hostTable // the host names, numbered
	// hostSpan is where page i's host is in its line, offset<<8 | length,
	// 0 if it does not fit, so that the output can copy it from the line
	// it is reading anyway rather than look it up (a cache miss a page).
	hostSpan []uint32
	// idWidth and hostWidth are the longest id and host name, in bytes.
	idWidth, hostWidth int
}

// id is page i's id.
func (rf *rateFile) id(i int) []byte {
	b := rf.data[rf.line[i]:]
	return b[:bytes.IndexByte(b, '\t')]
}

// hostName is page i's host, or nothing.
func (rf *rateFile) hostName(i int) []byte {
	if rf.host == nil || rf.host[i] < 0 {
		return nil
	}
	if sp := rf.hostSpan[i]; sp != 0 {
		at := rf.line[i] + int(sp>>8)
		return rf.data[at : at+int(sp&0xff)]
	}
	return rf.hosts.name(rf.host[i])
}

// readRatesFile reads and parses the rates file name.
func readRatesFile(name string) (*rateFile, error) {
	in, err := openInput(name)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	data, err := readAll(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	rf, err := parseRates(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return rf, nil
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
// its own stretch [at, at+n) of the rateFile's arrays, which has room for
// as many pages as the piece has lines.
type ratePart struct {
	lo, hi             int // the piece's bytes
	at, n              int // its pages
	hosts              hostTable
	idWidth, hostWidth int
	errAt              int // offset of the malformed line
	err                error
}

// parseRates parses a rates file held in memory. It is cut into pieces at
// line ends; the pieces' lines are counted, each piece is parsed in
// parallel into its own stretch of the arrays, and the stretches are closed
// up where comments and blank lines left room. A host is numbered where it
// first appears, so the result does not depend on the number of CPUs or
// pieces. A malformed line is reported with its line number.
func parseRates(data []byte) (*rateFile, error) {
	// Pieces of at least 1 MB, about four a CPU: each has its own table of
	// host names, which the pieces' joining then merges.
	piece := max(1<<20, len(data)/(4*runtime.GOMAXPROCS(0))+1)
	var parts []ratePart
	lines := 0
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
	rf := &rateFile{data: data, line: make([]int, lines), pages: make([]policy.Page, lines),
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
		// Number the hosts globally, in order of first appearance.
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
		if p.at != n { // close up
			copy(rf.line[n:], rf.line[p.at:p.at+p.n])
			copy(rf.pages[n:], rf.pages[p.at:p.at+p.n])
			copy(rf.host[n:], rf.host[p.at:p.at+p.n])
			copy(rf.hostSpan[n:], rf.hostSpan[p.at:p.at+p.n])
		}
		n += p.n
	}
	rf.line, rf.pages, rf.host, rf.hostSpan = rf.line[:n], rf.pages[:n], rf.host[:n], rf.hostSpan[:n]
	if !withHost {
		rf.host, rf.hostSpan = nil, nil
	}
	return rf, nil
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
func (rf *rateFile) parsePart(p *ratePart) {
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
			rf.line[i], rf.pages[i] = at, page
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

// hostTable numbers host names in order of first appearance: an open
// addressing table keyed by the names' 64-bit hashes, which also holds a
// name's first 16 bytes, so that looking up a host name of up to 16 bytes
// costs one cache line; the names are kept one after another. (A map of
// strings, whose keys lie all over the heap, took three cache misses a
// line on 10⁷ lines of 10⁵ hosts.)
type hostTable struct {
	slots []hostSlot // a power of two, at most half full
	names []byte
	at    []int // name k is names[at[k]:at[k+1]]
}

type hostSlot struct {
	hash   uint64
	id     int32 // −1: empty
	n      int32 // the name's length
	prefix [16]byte
}

// len is the number of names.
func (t *hostTable) len() int { return max(0, len(t.at)-1) }

// name is name number k.
func (t *hostTable) name(k int32) []byte { return t.names[t.at[k]:t.at[k+1]] }

// number returns name's number, numbering it if it is new.
func (t *hostTable) number(name []byte) int32 {
	if 2*(t.len()+1) > len(t.slots) {
		t.grow()
	}
	h := xxhash.Sum64(name)
	mask := uint64(len(t.slots) - 1)
	for k := h & mask; ; k = (k + 1) & mask {
		s := &t.slots[k]
		if s.id < 0 {
			s.hash, s.id, s.n = h, int32(t.len()), int32(len(name))
			copy(s.prefix[:], name)
			if t.at == nil {
				t.at = []int{0}
			}
			t.names = append(t.names, name...)
			t.at = append(t.at, len(t.names))
			return s.id
		}
		if s.hash == h && int(s.n) == len(name) && bytes.Equal(s.prefix[:min(16, len(name))], name[:min(16, len(name))]) &&
			(len(name) <= 16 || bytes.Equal(t.name(s.id), name)) {
			return s.id
		}
	}
}

// grow doubles the slots (to 1024 at first) and re-inserts the names.
func (t *hostTable) grow() {
	old := t.slots
	t.slots = make([]hostSlot, max(1024, 2*len(t.slots)))
	for k := range t.slots {
		t.slots[k].id = -1
	}
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s.id >= 0 {
			k := s.hash & mask
			for t.slots[k].id >= 0 {
				k = (k + 1) & mask
			}
			t.slots[k] = s
		}
	}
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

// limits reads the hosts file (if any) and turns the delays into the
// hosts' capacities in fetches per second. Without a host column in the
// rates file there are no limits, and a hosts file is a mistake.
func (rf *rateFile) limits(hostsFile string, delay time.Duration) (schedule.Hosts, error) {
	if rf.host == nil {
		if hostsFile != "" {
			return schedule.Hosts{}, fmt.Errorf("-hosts %s: the rates file names no hosts (a 4th column)", hostsFile)
		}
		return schedule.Hosts{}, nil
	}
	delays := map[string]float64{}
	if hostsFile != "" {
		var err error
		if delays, err = readHosts(hostsFile); err != nil {
			return schedule.Hosts{}, err
		}
	}
	caps := make([]float64, rf.hosts.len())
	for h := range caps {
		d, ok := delays[string(rf.hosts.name(int32(h)))]
		if !ok {
			d = delay.Seconds()
		}
		caps[h] = math.Inf(1)
		if d > 0 {
			caps[h] = 1 / d
		}
	}
	return schedule.Hosts{Of: rf.host, Capacity: caps}, nil
}

// readHosts reads a hosts file: host<TAB>delay a line, the delay in
// seconds or as a Go duration.
func readHosts(name string) (map[string]float64, error) {
	in, err := openInput(name)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	delays := map[string]float64{}
	seen := map[string]int{}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		host := strings.TrimSpace(f[0])
		if len(f) != 2 || host == "" {
			return nil, fmt.Errorf("%s: line %d: want host<TAB>delay, got %d fields", name, n, len(f))
		}
		d, err := parseDelay(strings.TrimSpace(f[1]))
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", name, n, err)
		}
		if first, dup := seen[host]; dup {
			return nil, fmt.Errorf("%s: line %d: host %s already on line %d", name, n, host, first)
		}
		seen[host], delays[host] = n, d
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return delays, nil
}

// parseDelay reads a delay in seconds ("2", "0.5") or a duration ("2s").
func parseDelay(s string) (float64, error) {
	d, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var dur time.Duration
		if dur, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("delay %q is neither seconds nor a duration", s)
		}
		d = dur.Seconds()
	}
	if !(d >= 0) || math.IsInf(d, 1) {
		return 0, fmt.Errorf("delay %q is not a number of seconds ≥ 0", s)
	}
	return d, nil
}

// parseFloat is strconv.ParseFloat(string(b), 64) without the string and,
// for a plain decimal of at most 15 digits and a small exponent, without
// the general algorithm: such a mantissa and power of ten are exact in a
// float64, so one multiplication or division rounds correctly (Clinger's
// fast path).
func parseFloat(b []byte) (float64, error) {
	var mant uint64
	digits, exp, i := 0, 0, 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		mant = mant*10 + uint64(b[i]-'0')
		digits++
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			mant = mant*10 + uint64(b[i]-'0')
			digits++
			exp--
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') && i+1 < len(b) {
		j, neg, x := i+1, false, 0
		if b[j] == '+' || b[j] == '-' {
			neg = b[j] == '-'
			j++
		}
		start := j
		for ; j < len(b) && b[j] >= '0' && b[j] <= '9' && x < 1000; j++ {
			x = x*10 + int(b[j]-'0')
		}
		if j > start {
			if neg {
				x = -x
			}
			exp += x
			i = j
		}
	}
	if i != len(b) || digits == 0 || digits > 15 || exp < -22 || exp > 22 {
		return strconv.ParseFloat(string(b), 64)
	}
	if exp < 0 {
		return float64(mant) / pow10[-exp], nil
	}
	return float64(mant) * pow10[exp], nil
}
