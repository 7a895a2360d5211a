package dataset

import (
	"bufio"
	"errors"
	"io"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/change"
)

// readRecords returns the records of r with the line each came from, stopping
// at the first error.
func readRecords(r *BingReader) ([]BingRecord, []int, error) {
	var recs []BingRecord
	var lines []int
	for {
		rec, err := r.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return recs, lines, err
		}
		rec.History = append([]BingCrawl(nil), rec.History...)
		recs = append(recs, rec)
		lines = append(lines, r.Line())
	}
}

// TestBingReaderFixture reads testdata/urlid_offset_history.txt: the line
// of the dataset's README, an empty history, a blank line, spaces instead of
// tabs and inside the list, CRLF, exponents, the largest id and a last line
// without a newline.
func TestBingReaderFixture(t *testing.T) {
	f, err := os.Open("testdata/urlid_offset_history.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, lines, err := readRecords(NewBingReader(f))
	if err != nil {
		t.Fatal(err)
	}
	want := []BingRecord{
		{5, 5.5143055555555556, []BingCrawl{{1.10396990740741, false}, {1.47311342592593, true}, {0.98, true}, {3.25, false}}},
		{17, 0, nil},
		{42, 12.25, []BingCrawl{{1, true}, {2.5, false}, {0.5, true}}},
		{7, 0.1, []BingCrawl{{1, false}}},
		{math.MaxUint64, 98, []BingCrawl{{0, true}, {97.99999999999999, false}}},
	}
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("records\n got %+v\nwant %+v", recs, want)
	}
	if !reflect.DeepEqual(lines, []int{1, 2, 4, 5, 6}) {
		t.Errorf("lines %v, want [1 2 4 5 6]", lines)
	}
}

// TestBingReaderErrors checks that malformed lines are refused with the
// line number and what was wrong, and that reading resumes on the next line.
func TestBingReaderErrors(t *testing.T) {
	tests := []struct {
		name, line, msg string
	}{
		{"no id", "x 1 []", "want a decimal URL id"},
		{"negative id", "-1 1 []", "want a decimal URL id"},
		{"id overflow", "18446744073709551616 1 []", "overflows"},
		{"no offset", "1 []", "want a number"},
		{"no separator", "1\t2[]", "want whitespace after the first-crawl offset"},
		{"id glued", "1.5 2 []", "want whitespace after the URL id"},
		{"negative offset", "1 -2 []", "non-negative finite"},
		{"huge offset", "1 1e400 []", "non-negative finite"},
		{"bad number", "1 1.2.3 []", "non-negative finite"},
		{"inf", "1 inf []", "want a number"},
		{"no list", "1 2 ", "want '['"},
		{"nothing after the offset", "1 2", "want whitespace after the first-crawl offset"},
		{"unclosed list", "1 2 [[1, 0]", "want ',' or ']'"},
		{"flag 2", "1 2 [[1, 2]]", "not 0 or 1"},
		{"flag 1.0", "1 2 [[1, 1.0]]", "not 0 or 1"},
		{"flag missing", "1 2 [[1]]", "want ','"},
		{"negative days", "1 2 [[-1, 0]]", "non-negative finite"},
		{"NaN days", "1 2 [[nan, 0]]", "want a number"},
		{"trailing comma", "1 2 [[1, 0],]", "want '['"},
		{"trailing text", "1 2 [[1, 0]] x", "trailing characters"},
		{"extra field", "1 2 [[1, 0, 1]]", "want ']'"},
		{"truncated before a flag", "1 2 [[1, 0], [3,", "the line ends early (truncated?): want the change flag, 0 or 1"},
		{"truncated after an entry", "1 2 [[1, 0]", "the line ends early (truncated?): want ',' or ']'"},
		{"no flag", "1 2 [[1, ]]", "byte 10: want the change flag, 0 or 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewBingReader(strings.NewReader("9 0 [[1, 1]]\n\n" + tt.line + "\n10 0 []\n"))
			if rec, err := r.Next(); err != nil || rec.URLID != 9 {
				t.Fatalf("first line: %v, %v", rec, err)
			}
			_, err := r.Next()
			if !errors.Is(err, ErrBingSyntax) {
				t.Fatalf("error %v, want ErrBingSyntax", err)
			}
			if !strings.Contains(err.Error(), "bing line 3") || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q, want line 3 and %q", err, tt.msg)
			}
			if rec, err := r.Next(); err != nil || rec.URLID != 10 || r.Line() != 4 {
				t.Errorf("after the error: %v, %v at line %d; want id 10 at line 4", rec, err, r.Line())
			}
		})
	}
}

// TestBingLongLines checks lines longer than the read buffer, and the limit
// on a line's length, with a 16-byte buffer and a 100-byte limit.
func TestBingLongLines(t *testing.T) {
	long := "1 0 [" + strings.Repeat("[1, 0], ", 5) + "[1, 1]]"     // 47 bytes
	tooLong := "2 0 [" + strings.Repeat("[1, 0], ", 40) + "[1, 1]]" // 327 bytes
	r := NewBingReader(nil)
	r.br = bufio.NewReaderSize(strings.NewReader(long+"\n"+tooLong+"\n3 0 []\n"+long), 16)
	r.maxLine = 100
	rec, err := r.Next()
	if err != nil || rec.URLID != 1 || len(rec.History) != 6 {
		t.Fatalf("long line: %+v, %v", rec, err)
	}
	if _, err := r.Next(); !errors.Is(err, ErrBingSyntax) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("too long: %v, want a syntax error on line 2", err)
	}
	if rec, err := r.Next(); err != nil || rec.URLID != 3 {
		t.Errorf("after the long line: %+v, %v", rec, err)
	}
	if rec, err := r.Next(); err != nil || rec.URLID != 1 || r.Line() != 4 {
		t.Errorf("long last line without newline: %+v, %v", rec, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("end: %v, want io.EOF", err)
	}
}

// TestBingAddTo checks that a record becomes observations in seconds at
// the crawl times since the start of the collection, written out here by
// hand: the first crawl at 2.5 days sets the baseline, and the 0-day
// recrawl is passed on (Stats.Add ignores it).
func TestBingAddTo(t *testing.T) {
	r := NewBingReader(strings.NewReader("5\t2.5\t[[1, 1], [0.5, 0], [2, 1], [1, 0], [0, 1], [1.5, 0]]\n"))
	rec, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	var got change.Stats
	rec.AddTo(&got)
	const day = 86400
	var want change.Stats
	for _, o := range []struct {
		interval, at float64
		changed      bool
	}{{1 * day, 3.5 * day, true}, {0.5 * day, 4 * day, false}, {2 * day, 6 * day, true}, {1 * day, 7 * day, false}, {0, 7 * day, true}, {1.5 * day, 8.5 * day, false}} {
		want.Add(change.Observation{Interval: o.interval, Changed: o.changed, SinceModified: -1}, o.at)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stats\n got %+v\nwant %+v", got, want)
	}
	if got.Count() != 5 || got.Last() != 8.5*day {
		t.Errorf("%d observations, last at %g s; want 5 at %g s", got.Count(), got.Last(), 8.5*day)
	}
}
