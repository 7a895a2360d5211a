package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// formatBing writes rec in the dataset's layout, with shortest round-trip
// floats.
func formatBing(rec BingRecord) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d\t%s\t[", rec.URLID, strconv.FormatFloat(rec.FirstCrawl, 'g', -1, 64))
	for i, c := range rec.History {
		if i > 0 {
			b.WriteString(", ")
		}
		flag := 0
		if c.Changed {
			flag = 1
		}
		fmt.Fprintf(&b, "[%s, %d]", strconv.FormatFloat(c.Days, 'g', -1, 64), flag)
	}
	b.WriteString("]\n")
	return b.String()
}

// FuzzBingReader reads arbitrary bytes as a Bing history file. Nothing
// panics; every error wraps ErrBingSyntax and names a line; every record has
// finite non-negative numbers, and printing the records back and reading
// them again gives the same records.
func FuzzBingReader(f *testing.F) {
	f.Add([]byte("5\t5.5143055555555556\t[[1.10396990740741, 0], [1.47311342592593, 1]]\n"))
	f.Add([]byte("17 0 []\n\n42 12.25   [ [1,1],[ 2.5 ,0 ] ]\r\n"))
	f.Add([]byte("1 2 [[1, 2]]\n3 4 [[5, 1]]"))
	f.Add([]byte("18446744073709551615\t1e-3\t[[1E2,0]]"))
	f.Add(bingLines(3))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewBingReader(bytes.NewReader(data))
		var out strings.Builder
		var recs []BingRecord
		for range 1000 {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if !errors.Is(err, ErrBingSyntax) || !strings.Contains(err.Error(), "bing line ") {
					t.Fatalf("error %q", err)
				}
				continue
			}
			if !(rec.FirstCrawl >= 0) || math.IsInf(rec.FirstCrawl, 1) {
				t.Fatalf("offset %v", rec.FirstCrawl)
			}
			for _, c := range rec.History {
				if !(c.Days >= 0) || math.IsInf(c.Days, 1) {
					t.Fatalf("days %v", c.Days)
				}
			}
			rec.History = append([]BingCrawl(nil), rec.History...)
			recs = append(recs, rec)
			out.WriteString(formatBing(rec))
		}
		again, _, err := readRecords(NewBingReader(strings.NewReader(out.String())))
		if err != nil {
			t.Fatalf("reading printed records: %v", err)
		}
		for i := range again {
			if len(again[i].History) == 0 {
				again[i].History = nil
			}
			if len(recs[i].History) == 0 {
				recs[i].History = nil
			}
		}
		if len(recs) > 0 && !reflect.DeepEqual(again, recs) {
			t.Fatalf("round trip\n got %+v\nwant %+v", again, recs)
		}
	})
}
