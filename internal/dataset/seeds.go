package dataset

import (
	"bufio"
	"io"
	"strings"
)

// ReadSeeds reads a seeds file and returns its URLs in file order, as
// written: checking them is the crawler's job.
func ReadSeeds(r io.Reader) ([]string, error) {
	var seeds []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		seeds = append(seeds, line)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return seeds, nil
}
