package dataset

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// ReadHosts reads a hosts file and returns each host's delay in seconds.
// An error names the line.
func ReadHosts(r io.Reader) (map[string]float64, error) {
	delays := map[string]float64{}
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		host := strings.TrimSpace(f[0])
		if len(f) != 2 || host == "" {
			return nil, fmt.Errorf("line %d: want host<TAB>delay, got %d fields", n, len(f))
		}
		d, err := parseDelay(strings.TrimSpace(f[1]))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if first, dup := seen[host]; dup {
			return nil, fmt.Errorf("line %d: host %s already on line %d", n, host, first)
		}
		seen[host], delays[host] = n, d
	}
	if err := sc.Err(); err != nil {
		return nil, err
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
