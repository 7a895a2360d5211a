package rank

import (
	"bufio"
	"cmp"
	"fmt"
	"os"
	"slices"
	"strconv"
)

// TopK returns the k nodes of highest rank, best first, ties by id.
func TopK(r []float64, k int) []int {
	k = min(k, len(r))
	if k <= 0 {
		return nil
	}
	better := func(a, b int) int {
		if c := cmp.Compare(r[b], r[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	}
	// A bounded selection: keep the best k seen, sorted, replacing the
	// worst when a better one comes.
	top := make([]int, 0, k)
	for v := range r {
		if len(top) == k && better(v, top[k-1]) >= 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, v, better)
		if len(top) == k {
			top = top[:k-1]
		}
		top = slices.Insert(top, i, v)
	}
	return top
}

// WriteRanks writes the file name: every node's name (id or URL, as
// nodeName gives it), pagerank, IR and backlinks, a line each.
func WriteRanks(name string, g *Graph, res *Result, nodeName func(int) string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(bw, "# node\tpagerank\tIR\tbacklinks\n")
	n := float64(len(res.Rank))
	var line []byte
	for v, x := range res.Rank {
		line = append(line[:0], nodeName(v)...)
		line = append(line, '\t')
		line = strconv.AppendFloat(line, x/n, 'g', 17, 64)
		line = append(line, '\t')
		line = strconv.AppendFloat(line, x, 'g', 17, 64)
		line = append(line, '\t')
		line = strconv.AppendInt(line, int64(g.InDegree(uint32(v))), 10)
		line = append(line, '\n')
		bw.Write(line)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
