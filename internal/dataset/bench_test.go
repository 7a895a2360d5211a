package dataset

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

// bingLines returns n lines in the dataset's format with 98 recrawls each
// (14 weeks of daily crawls), printed as the dataset prints them.
func bingLines(n int) []byte {
	rng := rand.New(rand.NewPCG(14, 98))
	var buf bytes.Buffer
	for id := range n {
		fmt.Fprintf(&buf, "%d\t%s\t[", id, strconv.FormatFloat(rng.Float64()*10, 'g', 17, 64))
		for j := range 98 {
			if j > 0 {
				buf.WriteString(", ")
			}
			fmt.Fprintf(&buf, "[%s, %d]", strconv.FormatFloat(0.5+rng.Float64(), 'g', 15, 64), rng.IntN(2))
		}
		buf.WriteString("]\n")
	}
	return buf.Bytes()
}

// BenchmarkBingReader measures parsing throughput on dataset-like lines.
func BenchmarkBingReader(b *testing.B) {
	data := bingLines(2000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewBingReader(bytes.NewReader(data))
		n := 0
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			n += len(rec.History)
		}
		if n != 2000*98 {
			b.Fatalf("parsed %d crawls", n)
		}
	}
}
