package main

import (
	"fmt"
	"io"

	"github.com/freshcrawl/freshcrawl/internal/datadir"
	"github.com/freshcrawl/freshcrawl/internal/report"
)

// runReport plots a stopped crawl's data directory (internal/report) and
// prints the files it wrote.
func runReport(args []string, stdout, stderr io.Writer) int {
	var dir, out string
	fs := newFlagSet("report")
	fs.StringVar(&dir, "data", defaultDataDir, "data `directory` of the crawl")
	fs.StringVar(&out, "out", "report", "`directory` to write the plots and index.html into (created if missing)")
	if code, ok := parseArgs("report", fs, args, stdout, stderr); !ok {
		return code
	}
	if err := empty("out", out); err != nil {
		fmt.Fprintf(stderr, "freshcrawl report: %v\n", err)
		return 2
	}
	a, err := datadir.ReadActivity(dir)
	if err != nil {
		return readFailed("report", dir, err, stderr)
	}
	files, err := report.New(a).WriteDir(out)
	for _, f := range files {
		fmt.Fprintln(stdout, f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl report: %v\n", err)
		return 1
	}
	return 0
}
