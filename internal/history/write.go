package history

import (
	"bufio"
	"io"
	"strconv"
)

// WriteTSV writes h in the dataset format that Parse reads: the header
// lines, then a line per page.
func WriteTSV(w io.Writer, h *History) error {
	bw := bufio.NewWriter(w)
	for _, hd := range h.Headers {
		bw.WriteString("# ")
		if hd.Name != "" {
			bw.WriteString(hd.Name)
			bw.WriteString(": ")
		}
		bw.WriteString(hd.Value)
		bw.WriteByte('\n')
	}
	var buf []byte
	for i := range h.Pages {
		p := &h.Pages[i]
		buf = append(buf[:0], p.Key...)
		for j, e := range p.Events {
			if j == 0 {
				buf = append(buf, '\t')
			} else {
				buf = append(buf, ' ')
			}
			if e.Deleted {
				buf = append(buf, 'd')
			}
			buf = strconv.AppendInt(buf, e.Time, 10)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}
