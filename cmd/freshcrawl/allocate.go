package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
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

	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/schedule"
)

func allocateHelp(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, `Usage: freshcrawl allocate -rates FILE -budget F [-hosts FILE] [-delay D] [-objective NAME] [-policy NAME] [-json]

Divide a budget of fetches per day among pages that change at known rates,
and print how often to visit each page and how fresh and old its copy will
be on average. This is the refresh decision the crawler makes, run on rates
you supply (for example the output of 'freshcrawl estimate').

The rates file (-rates; "-" is standard input, a name ending in .gz is
gunzipped) has one page a line, fields separated by tabs:

  id <TAB> changes_per_day [<TAB> weight [<TAB> host]]

The id is any text without a tab; changes_per_day is the page's change rate
(0 or more); weight is its importance (more than 0, default 1; leave the
field empty to give a host without a weight), e.g. how often users look at
it; host names the site the page is on. Blank lines and lines starting
with # are skipped. A malformed line stops the command with its line
number.

Pages with a host are allocated politely: a host whose delay between
requests is d seconds gets at most 86400/d fetches a day, whatever the
budget, as the crawler would fetch it (Kolobov et al., SIGIR 2019, showed
how to optimise under such limits). The hosts file (-hosts) gives the
delays, one host a line:

  host <TAB> delay

with the delay in seconds ("2", "0.5") or as a duration ("1500ms", "1m");
0 means no limit. Hosts it does not list have the delay -delay, by
default the crawler's. If the budget is more than the hosts allow, every
host gets its limit and the command says how much of the budget is left
unspent.

-budget is the total number of fetches per day for all the pages.

Objectives (-objective; used by -policy optimal):
  freshness      maximise the weighted time-averaged freshness, the share of
                 time a copy is identical to the live page (Cho's
                 dissertation §5.5.4, §5.6). Pages that change too often for
                 their weight are given up (0 visits): a fetch keeps them
                 fresh for too short a time to pay for itself.
  age            minimise the weighted time-averaged age, how long a stale
                 copy has been stale (§5.5.4). Every page that changes is
                 visited, the fast ones somewhat more often.
  embarrassment  paper 002 (Wolf et al.): hand out whole fetches per day to
                 minimise the weighted expected staleness, i.e. with weights
                 = embarrassment weights, the rate of users clicking a stale
                 result. The budget is rounded to whole fetches per day, and
                 a host's limit to whole fetches per day.

Policies (-policy):
  optimal        the objective's optimum (the default)
  uniform        every page visited equally often
  proportional   visits in proportion to the change rate (a pitfall:
                 uniform beats it on both freshness and age, §5.5.2)
With host limits, uniform and proportional give a host that would exceed
its limit exactly its limit, and share the rest among the other hosts.

Pages are assumed to change as Poisson processes and to be visited at
evenly spaced times. Output: per page the id (and host), its rate and
weight, visits per day, the interval between visits, and the expected
time-averaged freshness and age under that frequency; then the
collection's weighted averages. -json prints one JSON object per page
instead (intervals and ages also in seconds; null where infinite; the
host when there is one).

Flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// allocateOptions are the allocate command's flags.
type allocateOptions struct {
	rates, hosts, objective, policy string
	budget                          float64
	delay                           time.Duration
	asJSON                          bool
}

func allocateFlags(o *allocateOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("allocate", flag.ContinueOnError)
	// Parse errors are reported by runAllocate in one line; -h by allocateHelp.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&o.rates, "rates", "", "rates `file` (id, changes per day, optional weight and host; - for stdin)")
	fs.Float64Var(&o.budget, "budget", 0, "total `fetches` per day")
	fs.StringVar(&o.hosts, "hosts", "", "hosts `file` (host, delay between requests)")
	fs.DurationVar(&o.delay, "delay", crawler.DefaultDelay, "delay of the hosts the -hosts file does not list (0: no limit)")
	fs.StringVar(&o.objective, "objective", "freshness", "freshness, age or embarrassment")
	fs.StringVar(&o.policy, "policy", "optimal", "optimal, uniform or proportional")
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object per page")
	return fs
}

// rule picks the capacity-aware allocation for the flags, or reports the
// embarrassment objective (ok false), which allocates whole fetches.
func rule(objective, pol string) (r schedule.Rule, ok bool, err error) {
	switch objective {
	case "freshness", "age", "embarrassment":
	default:
		return 0, false, fmt.Errorf("unknown -objective %q (want freshness, age or embarrassment)", objective)
	}
	switch pol {
	case "uniform":
		return schedule.Uniform, true, nil
	case "proportional":
		return schedule.Proportional, true, nil
	case "optimal":
	default:
		return 0, false, fmt.Errorf("unknown -policy %q (want optimal, uniform or proportional)", pol)
	}
	switch objective {
	case "age":
		return schedule.Age, true, nil
	case "embarrassment":
		return 0, false, nil
	}
	return schedule.Freshness, true, nil
}

const secondsPerDay = 86400.0

func runAllocate(args []string, stdout, stderr io.Writer) int {
	var o allocateOptions
	fs := allocateFlags(&o)
	if code, ok := parseArgs("allocate", fs, args, allocateHelp, stdout, stderr); !ok {
		return code
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "freshcrawl allocate: "+format+"\n", a...)
		return code
	}
	switch {
	case o.rates == "":
		return fail(2, "-rates is required (see -h)")
	case !(o.budget > 0) || math.IsInf(o.budget, 1):
		return fail(2, "-budget must be a positive number of fetches per day")
	case o.delay < 0:
		return fail(2, "-delay %v is negative", o.delay)
	}
	rl, continuous, err := rule(o.objective, o.policy)
	if err != nil {
		return fail(2, "%v", err)
	}
	rf, err := readRatesFile(o.rates)
	if err != nil {
		return fail(2, "%v", err)
	}
	if len(rf.pages) == 0 {
		return fail(2, "%s: no pages", o.rates)
	}
	hosts, err := rf.limits(o.hosts, o.delay)
	if err != nil {
		return fail(2, "%v", err)
	}
	freq := make([]float64, len(rf.pages))
	budget := o.budget / secondsPerDay
	spent := budget
	switch {
	case !continuous:
		spent, err = allocateCrawls(rf.pages, hosts, budget, freq)
	case hosts.Of == nil && rl == schedule.Uniform:
		err = policy.Uniform{}.Allocate(rf.pages, budget, freq)
	case hosts.Of == nil && rl == schedule.Proportional:
		err = policy.Proportional{}.Allocate(rf.pages, budget, freq)
	default:
		var sol schedule.Solution
		sol, err = schedule.Capped{Rule: rl, Hosts: hosts}.Solve(rf.pages, budget, freq)
		spent = sol.Spent
	}
	if err != nil {
		return fail(1, "%v", err)
	}
	if !continuous {
		budget = math.Round(o.budget) / secondsPerDay // whole fetches
	}
	if spent < budget*(1-1e-9) {
		fmt.Fprintf(stderr, "freshcrawl allocate: the hosts allow %.6g fetches/day in all; %.6g of the budget is not spent\n",
			spent*secondsPerDay, (budget-spent)*secondsPerDay)
	}
	w := bufio.NewWriterSize(stdout, 1<<16)
	sum := writeAllocation(w, rf, freq, o.asJSON)
	if !o.asJSON {
		fresh, age := sum.averages()
		fmt.Fprintf(w, "%d pages, %.6g fetches/day (%s, %s): expected freshness %.4f, age %s (weighted time averages)\n",
			len(rf.pages), sum.fetches*secondsPerDay, o.policy, o.objective, fresh, humanSeconds(age))
	}
	if err := w.Flush(); err != nil {
		return fail(1, "%v", err)
	}
	return 0
}

// allocateCrawls is paper 002's discrete allocation (-objective
// embarrassment): whole fetches per day, and with hosts, whole fetches
// per day per host (policy.GreedyCapped). It returns the frequencies'
// sum.
func allocateCrawls(pages []policy.Page, hosts schedule.Hosts, budget float64, freq []float64) (float64, error) {
	e := policy.Embarrassment{Period: secondsPerDay}
	if hosts.Of == nil {
		if err := e.Allocate(pages, budget, freq); err != nil {
			return 0, err
		}
	} else {
		p, err := e.Problem(pages, budget)
		if err != nil {
			return 0, err
		}
		caps := make([]int, len(hosts.Capacity))
		for h, c := range hosts.Capacity {
			caps[h] = int(min(math.Floor(c*secondsPerDay+1e-9), float64(p.Total)))
		}
		x, err := policy.GreedyCapped(p, hosts.Of, caps)
		if err != nil {
			return 0, err
		}
		for i, v := range x {
			freq[i] = float64(v) / secondsPerDay
		}
	}
	var sum float64
	for _, f := range freq {
		sum += f
	}
	return sum, nil
}

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

// jsonAllocation is one page in -json output. Infinite intervals (never
// visited) and ages (never visited but changing) are null. The output is
// written by appendJSON, which must produce what encoding/json would for
// this type (TestAllocateJSONEncoding).
type jsonAllocation struct {
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

// allocationSum accumulates the collection's weighted averages.
type allocationSum struct {
	fetches, weight, fresh, age float64
}

// averages are the weighted time-averaged freshness and age (Definition
// 5.4: Σ w_i F̄_i/Σ w_i, as policy.Collection).
func (s allocationSum) averages() (fresh, age float64) {
	if s.weight == 0 {
		return 1, 0
	}
	return s.fresh / s.weight, s.age / s.weight
}

// Text columns: the numbers are right-aligned in widths that fit any value
// their format can produce (%.4g of a positive finite float is at most
// 10 bytes, humanSeconds 9 runes), so the table streams without a first
// pass; ids and hosts are left-aligned to the longest, up to a limit.
var allocationColumns = []struct {
	name  string
	width int
}{{"changes/day", 11}, {"weight", 10}, {"visits/day", 10}, {"every", 9}, {"freshness", 9}, {"age", 9}}

const maxNameWidth = 48

// writeAllocation writes the allocation, a table or JSON lines, and
// returns the collection's sums. Pieces of the output are formatted in
// parallel and written in order, with a bounded number in flight.
func writeAllocation(w io.Writer, rf *rateFile, freq []float64, asJSON bool) allocationSum {
	idW, hostW := min(max(rf.idWidth, 2), maxNameWidth), 0
	if rf.host != nil {
		hostW = min(max(rf.hostWidth, 4), maxNameWidth)
	}
	if !asJSON {
		var b []byte
		b = appendLeft(b, "id", idW)
		if rf.host != nil {
			b = appendLeft(append(b, "  "...), "host", hostW)
		}
		for _, c := range allocationColumns {
			b = appendRight(b, c.name, c.width)
		}
		w.Write(append(b, '\n'))
	}
	const piece = 1 << 14 // pages
	n := len(rf.pages)
	pieces := (n + piece - 1) / piece
	workers := min(runtime.GOMAXPROCS(0), pieces)
	type result struct {
		buf []byte
		sum allocationSum
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
				var s allocationSum
				buf = buf[:0]
				for i := k * piece; i < min(n, (k+1)*piece); i++ {
					buf = appendPage(buf, rf, i, freq[i], asJSON, idW, hostW, &s)
				}
				done[k] <- result{buf, s}
			}
		})
	}
	var total allocationSum
	for k := range pieces {
		r := <-done[k]
		w.Write(r.buf)
		free <- r.buf
		total.fetches += r.sum.fetches
		total.weight += r.sum.weight
		total.fresh += r.sum.fresh
		total.age += r.sum.age
	}
	wg.Wait()
	return total
}

// appendPage appends page i's line and adds it to s.
func appendPage(b []byte, rf *rateFile, i int, f float64, asJSON bool, idW, hostW int, s *allocationSum) []byte {
	p := rf.pages[i]
	w := weightOf(p)
	fresh := policy.Freshness(policy.FixedOrder, p.Rate, f)
	age := policy.Age(policy.FixedOrder, p.Rate, f)
	s.fetches += f
	s.weight += w
	s.fresh += w * fresh
	s.age += w * age
	if asJSON {
		return appendJSON(b, rf, i, f, fresh, age)
	}
	b = appendLeft(b, rf.id(i), idW)
	if hostW > 0 {
		b = appendLeft(append(b, "  "...), rf.hostName(i), hostW)
	}
	var num [40]byte
	col := allocationColumns
	b = appendRight(b, appendG(num[:0], p.Rate*secondsPerDay, 4), col[0].width)
	b = appendRight(b, appendG(num[:0], w, 4), col[1].width)
	b = appendRight(b, appendG(num[:0], f*secondsPerDay, 4), col[2].width)
	b = appendRight(b, appendEvery(num[:0], f), col[3].width)
	b = appendRight(b, appendF4(num[:0], fresh), col[4].width)
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
// jsonAllocation, newline included.
func appendJSON(b []byte, rf *rateFile, i int, f, fresh, age float64) []byte {
	p := rf.pages[i]
	b = append(b, `{"id":`...)
	b = appendJSONString(b, rf.id(i))
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
	if h := rf.hostName(i); len(h) > 0 {
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

// humanSeconds formats a duration in seconds as "45s", "12m", "7.2h",
// "3.5d" or "∞".
func humanSeconds(s float64) string { return string(appendHuman(nil, s)) }

// appendHuman appends humanSeconds(s).
func appendHuman(b []byte, s float64) []byte {
	switch {
	case math.IsInf(s, 1) || math.IsNaN(s):
		return append(b, "∞"...)
	case s < 60:
		return append(appendG(b, s, 3), 's')
	case s < 3600:
		return append(appendG(b, s/60, 3), 'm')
	case s < 2*secondsPerDay:
		return append(appendG(b, s/3600, 3), 'h')
	}
	return append(appendG(b, s/secondsPerDay, 3), 'd')
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

// The table and the rates file of 10⁷ pages hold some 10⁸ numbers, and
// strconv's general algorithms (Ryu for fixed precision, Eisel–Lemire for
// parsing) were most of the command's time. The numbers here are short,
// so the functions below take exact shortcuts (one correctly rounded
// multiplication by a power of ten that is itself exact) and hand anything
// else, including the ties where the shortcut's rounding could differ,
// to strconv: the output is strconv's, byte for byte (TestNumberText).

// pow10 holds the powers of ten that are exact in a float64.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// appendG appends v as strconv.AppendFloat(b, v, 'g', prec, 64) does, for
// prec from 1 to 15.
func appendG(b []byte, v float64, prec int) []byte {
	if !(v > 0) || v < 1e-15 || v >= 1e15 {
		return strconv.AppendFloat(b, v, 'g', prec, 64)
	}
	// e = ⌊log₁₀ v⌋: from the binary exponent, v = f·2^e2 with f in
	// [1, 2), it is ⌊e2·log₁₀ 2⌋ or one more. (v is normal here.)
	e2 := int(math.Float64bits(v)>>52) - 1023
	e := (e2 * 78913) >> 18 // ⌊e2·log₁₀ 2⌋ for |e2| < 1650, as in Ryu
	lo, hi := pow10[prec-1], pow10[prec]
	var m float64
	for range 2 {
		// m = v·10^scale has prec digits before the point.
		switch scale := prec - 1 - e; {
		case scale >= 0 && scale <= 22:
			m = v * pow10[scale]
		case scale < 0 && scale >= -22:
			m = v / pow10[-scale]
		default:
			return strconv.AppendFloat(b, v, 'g', prec, 64)
		}
		if m < hi {
			break
		}
		e++
	}
	if m < lo || m >= hi {
		return strconv.AppendFloat(b, v, 'g', prec, 64)
	}
	// m is within one rounding (2⁻⁵² relative) of the exact v·10^scale, so
	// rounding it gives the exact value's rounding unless that is a near tie.
	r := math.Floor(m)
	switch frac := m - r; {
	case math.Abs(frac-0.5) < 1e-9:
		return strconv.AppendFloat(b, v, 'g', prec, 64)
	case frac > 0.5:
		r++
	}
	if r >= hi { // 9.995 → 10.0
		r /= 10
		e++
	}
	var d [16]byte
	u := uint64(r)
	for k := prec - 1; k >= 0; k-- {
		d[k] = byte('0' + u%10)
		u /= 10
	}
	nd := prec
	for nd > 1 && d[nd-1] == '0' {
		nd--
	}
	return formatG(b, d[:nd], e+1, prec)
}

// formatG is strconv's %g layout of the digits d (no trailing zeros) with
// the decimal point dp places from their start, at precision prec.
func formatG(b, d []byte, dp, prec int) []byte {
	nd := len(d)
	eprec := prec
	if eprec > nd && nd >= dp {
		eprec = nd
	}
	if exp := dp - 1; exp < -4 || exp >= eprec {
		prec = min(prec, nd)
		b = append(b, d[0])
		if prec > 1 {
			b = append(b, '.')
			b = append(b, d[1:prec]...)
		}
		b = append(b, 'e')
		if exp < 0 {
			b = append(b, '-')
			exp = -exp
		} else {
			b = append(b, '+')
		}
		if exp < 10 {
			b = append(b, '0')
		}
		return strconv.AppendInt(b, int64(exp), 10)
	}
	// strconv's %f of the digits with prec > dp → all of them after the
	// point, else none: written out for the three places of the point.
	switch {
	case dp <= 0:
		b = append(b, '0', '.')
		for range -dp {
			b = append(b, '0')
		}
		return append(b, d...)
	case dp >= nd:
		b = append(b, d...)
		for range dp - nd {
			b = append(b, '0')
		}
		return b
	}
	b = append(b, d[:dp]...)
	b = append(b, '.')
	return append(b, d[dp:]...)
}

// appendF4 appends v as strconv.AppendFloat(b, v, 'f', 4, 64) does.
func appendF4(b []byte, v float64) []byte {
	m := v * 1e4
	if !(v >= 0) || m >= 1e15 || math.Abs(m-math.Floor(m)-0.5) < 1e-9 {
		return strconv.AppendFloat(b, v, 'f', 4, 64)
	}
	r := uint64(math.Floor(m + 0.5))
	b = strconv.AppendUint(b, r/10000, 10)
	f := r % 10000
	return append(b, '.', byte('0'+f/1000), byte('0'+f/100%10), byte('0'+f/10%10), byte('0'+f%10))
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
