package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/policy"
	"github.com/freshcrawl/freshcrawl/internal/schedule"
)

// TestParseRates parses small files of every shape the format allows and
// checks each page's id, host, rate (given per day, kept per second) and
// weight.
func TestParseRates(t *testing.T) {
	type page struct {
		id, host     string
		rate, weight float64 // rate per day in the table, per second in Pages
	}
	tests := []struct {
		name, data string
		want       []page
	}{
		{"README example", "a\t9\nb\t1\nc\t0.5\t2\n", []page{{"a", "", 9, 1}, {"b", "", 1, 1}, {"c", "", 0.5, 2}}},
		{"comments, blank lines, CRLF, no last newline", "# id\trate\r\n\r\n  \t \na\t1\r\n#b\t2\nc\t3", []page{{"a", "", 1, 1}, {"c", "", 3, 1}}},
		{"hosts, an empty weight, spaces", "a\t 1.5 \t 2 \t h1 \nb\t.5\t\th1\nc\t5.\t1e-3\th2\nd\t0\n",
			[]page{{"a", "h1", 1.5, 2}, {"b", "h1", 0.5, 1}, {"c", "h2", 5, 0.001}, {"d", "", 0, 1}}},
		{"what strconv reads", "a\t+2\nb\t0x1p-2\nc\t1_0\nd\t1e-400\ne\t123456789012345678901234567890\n",
			[]page{{"a", "", 2, 1}, {"b", "", 0.25, 1}, {"c", "", 10, 1}, {"d", "", 0, 1}, {"e", "", 123456789012345678901234567890, 1}}},
		{"ids with spaces and #", "a b\t1\n x#\t2\n", []page{{"a b", "", 1, 1}, {" x#", "", 2, 1}}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rf, err := ParseRates([]byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			var got, want []page
			for i, p := range rf.Pages {
				got = append(got, page{string(rf.ID(i)), string(rf.Host(i)), p.Rate, p.Weight})
			}
			for _, p := range tt.want {
				want = append(want, page{p.id, p.host, p.rate / 86400, p.weight})
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("pages\n got %+v\nwant %+v", got, want)
			}
			anyHost := false
			for _, p := range tt.want {
				anyHost = anyHost || p.host != ""
			}
			if rf.HasHosts() != anyHost {
				t.Errorf("HasHosts %v, want %v", rf.HasHosts(), anyHost)
			}
		})
	}
}

// TestParseRatesErrors checks that a malformed line is refused with its
// line number and what is wrong with it.
func TestParseRatesErrors(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"one field", "a\t1\nb\n", "line 2: want id<TAB>changes_per_day[<TAB>weight[<TAB>host]], got 1 fields"},
		{"no id", "a\t1\n\t1\n", "line 2: want id"},
		{"five fields", "a\t1\t1\th\tx\n", "line 1: want id<TAB>changes_per_day[<TAB>weight[<TAB>host]], got 5 fields"},
		{"bad rate", "a\t1\n\nb\tfast\n", `line 3: changes per day "fast" is not a number ≥ 0`},
		{"negative rate", "a\t-1\n", `line 1: changes per day "-1"`},
		{"infinite rate", "a\t1e400\n", `line 1: changes per day "1e400"`},
		{"NaN rate", "a\tNaN\n", `line 1: changes per day "NaN"`},
		{"zero weight", "a\t1\t0\n", `line 1: weight "0" is not a number > 0`},
		{"bad weight with host", "a\t1\tx\th\n", `line 1: weight "x"`},
		{"infinite weight", "a\t1\tinf\n", `line 1: weight "inf"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRates([]byte(tt.data))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestReadRates reads a rates file from a regular file, which is read in
// one allocation of its size, and from a reader that is not a file.
func TestReadRates(t *testing.T) {
	const data = "a\t1\t2\th\nb\t3\n"
	path := filepath.Join(t.TempDir(), "rates.tsv")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, r := range []interface{ Read([]byte) (int, error) }{f, strings.NewReader(data)} {
		rf, err := ReadRates(r)
		if err != nil || len(rf.Pages) != 2 || string(rf.ID(1)) != "b" || string(rf.Host(0)) != "h" || rf.IDWidth() != 1 || rf.HostWidth() != 1 {
			t.Errorf("%T: %+v, %v", r, rf, err)
		}
	}
}

// TestReadHosts reads delays in seconds and as durations, and refuses
// malformed lines with their number.
func TestReadHosts(t *testing.T) {
	got, err := ReadHosts(strings.NewReader("hostA\t60\n# a comment\n\nhostB\t2m\r\n hostC \t 1500ms\nhostD\t0\nhostE\t0.25\n"))
	want := map[string]float64{"hostA": 60, "hostB": 120, "hostC": 1.5, "hostD": 0, "hostE": 0.25}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ReadHosts = %v, %v; want %v", got, err, want)
	}
	tests := []struct{ name, data, want string }{
		{"one field", "hostA\t1\nhostB\n", "line 2: want host<TAB>delay, got 1 fields"},
		{"three fields", "hostA\t1\t2\n", "line 1: want host<TAB>delay, got 3 fields"},
		{"no host", " \t1\n", "line 1: want host<TAB>delay, got 2 fields"},
		{"bad delay", "\nhostA\tsoon\n", `line 2: delay "soon" is neither seconds nor a duration`},
		{"negative delay", "hostA\t-1\n", `line 1: delay "-1" is not a number of seconds ≥ 0`},
		{"negative duration", "hostA\t-1s\n", `line 1: delay "-1s" is not a number of seconds ≥ 0`},
		{"infinite delay", "hostA\tinf\n", `line 1: delay "inf" is not a number of seconds ≥ 0`},
		{"duplicate", "hostA\t1\nhostA\t2\n", "line 2: host hostA already on line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ReadHosts(strings.NewReader(tt.data)); err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestHostLimits checks each host's capacity, 1/delay: from the hosts
// file, else the default, with 0 for no limit; and no limits at all
// without a host column.
func TestHostLimits(t *testing.T) {
	rf, err := ParseRates([]byte("a\t1\t\thA\nb\t1\nc\t1\t1\thB\nd\t1\t1\thC\ne\t1\t1\thA\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := rf.HostLimits(map[string]float64{"hA": 2, "hC": 0, "elsewhere": 1}, (5 * time.Second).Seconds())
	want := schedule.Hosts{Of: []int32{0, schedule.NoHost, 1, 2, 0}, Capacity: []float64{0.5, 0.2, math.Inf(1)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("limits %+v, want %+v", got, want)
	}
	if got := rf.HostLimits(nil, 0); !reflect.DeepEqual(got.Capacity, []float64{math.Inf(1), math.Inf(1), math.Inf(1)}) {
		t.Errorf("no delays: %+v", got)
	}
	plain, err := ParseRates([]byte("a\t1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := plain.HostLimits(map[string]float64{"a": 1}, 1); got.Of != nil || got.Capacity != nil {
		t.Errorf("without hosts: %+v", got)
	}
	if rf.Pages[1] != (policy.Page{Rate: 1.0 / 86400, Weight: 1}) {
		t.Errorf("page b: %+v", rf.Pages[1])
	}
}

// TestParseRatesPieces parses a file big enough to be cut into several
// pieces (1 MB at least), parsed in parallel: hosts are numbered where
// they first appear, the pages come out in file order, and an error deep
// in the file reports its line.
func TestParseRatesPieces(t *testing.T) {
	var b strings.Builder
	const n = 400_000 // about 10 MB
	for i := range n {
		fmt.Fprintf(&b, "page-%07d\t%d\t1\thost%d\n", i, i%7, (n-i)%1000)
		if i%100_000 == 0 {
			b.WriteString("# a comment\n\n")
		}
	}
	data := b.String()
	rf, err := ParseRates([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(rf.Pages) != n {
		t.Fatalf("%d pages, want %d", len(rf.Pages), n)
	}
	for _, i := range []int{0, 1, 123_456, n - 1} {
		if id := string(rf.ID(i)); id != fmt.Sprintf("page-%07d", i) || string(rf.Host(i)) != fmt.Sprintf("host%d", (n-i)%1000) ||
			rf.Pages[i].Rate != float64(i%7)/secondsPerDay {
			t.Errorf("page %d: id %s host %s rate %g", i, id, rf.Host(i), rf.Pages[i].Rate)
		}
	}
	if string(rf.Host(0)) != "host0" || string(rf.Host(1)) != "host999" || rf.hosts.len() != 1000 || rf.host[0] != 0 || rf.host[1] != 1 {
		t.Errorf("hosts numbered %d, %d, %d in all", rf.host[0], rf.host[1], rf.hosts.len())
	}
	bad := data + "page-x\tnope\n"
	_, err = ParseRates([]byte(bad))
	if want := fmt.Sprintf("line %d: changes per day", strings.Count(data, "\n")+1); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestHostTable numbers 50 000 lookups of 5 000 names, many longer than
// the 16 bytes kept in a slot and sharing those 16 bytes, against a map.
func TestHostTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 18))
	names := make([]string, 5000)
	for k := range names {
		switch k % 3 {
		case 0:
			names[k] = fmt.Sprintf("h%d", k)
		case 1:
			names[k] = fmt.Sprintf("www.a-long-common-prefix.example/%d", k)
		default:
			names[k] = strings.Repeat("x", k%40+1)
		}
	}
	var tab hostTable
	want := map[string]int32{}
	for range 50_000 {
		name := names[rng.IntN(len(names))]
		id, ok := want[name]
		if !ok {
			id = int32(len(want))
			want[name] = id
		}
		if got := tab.number([]byte(name)); got != id {
			t.Fatalf("%q numbered %d, want %d", name, got, id)
		}
	}
	for name, id := range want {
		if string(tab.name(id)) != name {
			t.Errorf("name %d is %q, want %q", id, tab.name(id), name)
		}
	}
}
