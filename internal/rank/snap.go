package rank

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
)

// EdgeList is a graph read from an edge-list file: the edges over dense
// ids, and the file's own id of each dense node.
type EdgeList struct {
	Builder
	// IDs[v] is the file's id of dense node v. Dense ids follow the
	// file's ids in increasing order, so a file whose ids are already
	// 0..n-1 keeps them.
	IDs []uint64
}

// ReadEdgeList reads a graph in SNAP's edge-list format: one directed edge
// a line, "FROM TO", the two non-negative integer ids separated by tabs or
// spaces; lines starting with # are comments; blank lines and trailing
// carriage returns are ignored. Ids may be sparse and need not start at 0:
// they are mapped to dense ids (see EdgeList.IDs). name is used in error
// messages, which give the line.
func ReadEdgeList(r io.Reader, name string) (*EdgeList, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var raw Builder // file ids while they fit in uint32
	var wide []uint64
	maxID := uint64(0)
	for line := 1; ; line++ {
		text, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", name, line, br.Size())
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if len(text) > 0 {
			u, v, ok, perr := parseEdge(text)
			if perr != "" {
				return nil, fmt.Errorf("%s:%d: %s: %q", name, line, perr, bytes.TrimRight(text, "\r\n"))
			}
			if ok {
				maxID = max(maxID, u, v)
				if wide == nil && maxID <= math.MaxUint32 {
					raw.src = append(raw.src, uint32(u))
					raw.dst = append(raw.dst, uint32(v))
				} else {
					if wide == nil { // switch to 64-bit ids for the rest
						wide = make([]uint64, 0, 2*len(raw.src)+2)
						for i := range raw.src {
							wide = append(wide, uint64(raw.src[i]), uint64(raw.dst[i]))
						}
						raw = Builder{}
					}
					wide = append(wide, u, v)
				}
			}
		}
		if err == io.EOF {
			break
		}
	}
	if wide != nil {
		return densify64(wide)
	}
	return densify32(&raw, maxID)
}

// parseEdge reads "FROM TO" from a line. ok is false for a comment or
// blank line; msg says what is wrong with a bad one.
func parseEdge(line []byte) (u, v uint64, ok bool, msg string) {
	i := 0
	skip := func() {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n') {
			i++
		}
	}
	num := func() (uint64, string) {
		start := i
		x := uint64(0)
		for i < len(line) && line[i] >= '0' && line[i] <= '9' {
			d := uint64(line[i] - '0')
			if x > (math.MaxUint64-d)/10 {
				return 0, "node id out of range"
			}
			x = x*10 + d
			i++
		}
		if i == start {
			return 0, "want two non-negative integer node ids"
		}
		if i < len(line) && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' && line[i] != '\n' {
			return 0, "want two non-negative integer node ids"
		}
		return x, ""
	}
	skip()
	if i == len(line) || line[i] == '#' {
		return 0, 0, false, ""
	}
	if u, msg = num(); msg != "" {
		return
	}
	skip()
	if v, msg = num(); msg != "" {
		return
	}
	skip()
	if i != len(line) {
		return 0, 0, false, "more than two fields"
	}
	return u, v, true, ""
}

// densify32 maps the file ids of raw (at most maxID) to dense ids in
// increasing order, in place.
func densify32(raw *Builder, maxID uint64) (*EdgeList, error) {
	el := &EdgeList{}
	if len(raw.src) == 0 {
		return el, nil
	}
	// With ids no sparser than a few per edge, a table indexed by id is
	// smaller and much faster than a map.
	if maxID < 4*uint64(len(raw.src))+1<<20 {
		dense := make([]uint32, maxID+1) // id → dense id + 1
		for i := range raw.src {
			dense[raw.src[i]], dense[raw.dst[i]] = 1, 1
		}
		n := uint32(0)
		for id, used := range dense {
			if used != 0 {
				dense[id] = n + 1
				n++
			}
		}
		el.IDs = make([]uint64, 0, n)
		for id, d := range dense {
			if d != 0 {
				el.IDs = append(el.IDs, uint64(id))
			}
		}
		for i := range raw.src {
			raw.src[i], raw.dst[i] = dense[raw.src[i]]-1, dense[raw.dst[i]]-1
		}
		el.Builder = Builder{src: raw.src, dst: raw.dst, nodes: int(n)}
		return el, nil
	}
	ids := make([]uint64, 0, len(raw.src))
	seen := make(map[uint32]struct{})
	for i := range raw.src {
		for _, id := range [2]uint32{raw.src[i], raw.dst[i]} {
			if _, ok := seen[id]; !ok {
				seen[id] = struct{}{}
				ids = append(ids, uint64(id))
			}
		}
	}
	slices.Sort(ids)
	dense := make(map[uint32]uint32, len(ids))
	for d, id := range ids {
		dense[uint32(id)] = uint32(d)
	}
	for i := range raw.src {
		raw.src[i], raw.dst[i] = dense[raw.src[i]], dense[raw.dst[i]]
	}
	el.IDs = ids
	el.Builder = Builder{src: raw.src, dst: raw.dst, nodes: len(ids)}
	return el, nil
}

// densify64 maps 64-bit file ids, given as pairs, to dense ids.
func densify64(pairs []uint64) (*EdgeList, error) {
	ids := slices.Clone(pairs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) > MaxNodes {
		return nil, fmt.Errorf("rank: %d nodes, more than %d", len(ids), MaxNodes)
	}
	dense := make(map[uint64]uint32, len(ids))
	for d, id := range ids {
		dense[id] = uint32(d)
	}
	el := &EdgeList{IDs: ids}
	el.Grow(len(pairs) / 2)
	for i := 0; i < len(pairs); i += 2 {
		el.AddEdge(dense[pairs[i]], dense[pairs[i+1]])
	}
	return el, nil
}

// WriteEdgeList writes b's edges in SNAP's edge-list format, dense ids,
// after a comment line saying how many nodes and edges there are.
func WriteEdgeList(w io.Writer, b *Builder) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintf(bw, "# Directed graph: %d nodes, %d edges\n# FromNodeId\tToNodeId\n", b.Nodes(), b.Edges())
	var line []byte
	for i := range b.src {
		line = strconv.AppendUint(line[:0], uint64(b.src[i]), 10)
		line = append(line, '\t')
		line = strconv.AppendUint(line, uint64(b.dst[i]), 10)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}
