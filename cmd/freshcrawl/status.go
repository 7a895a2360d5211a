package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/datadir"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// statusFlags defines the status command's flags.
func statusFlags(dir *string, asJSON *bool) *flag.FlagSet {
	fs := newFlagSet("status")
	fs.StringVar(dir, "data", defaultDataDir, "data `directory` of the crawl")
	fs.BoolVar(asJSON, "json", false, "print one JSON object instead of a table")
	return fs
}

func runStatus(args []string, stdout, stderr io.Writer) int {
	var dir string
	var asJSON bool
	fs := statusFlags(&dir, &asJSON)
	if code, ok := parseArgs("status", fs, args, stdout, stderr); !ok {
		return code
	}
	st, err := datadir.ReadStatus(dir, time.Now())
	switch {
	case errors.Is(err, datadir.ErrNoCrawl):
		fmt.Fprintf(stderr, "freshcrawl status: %v\n", err)
		return 2
	case errors.Is(err, store.ErrLocked):
		fmt.Fprintf(stderr, "freshcrawl status: %v\n", errInUse(dir))
		return 1
	case err != nil:
		fmt.Fprintf(stderr, "freshcrawl status: %v\n", err)
		return 1
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(st); err != nil {
			fmt.Fprintf(stderr, "freshcrawl status: %v\n", err)
			return 1
		}
		return 0
	}
	st.WriteText(stdout, time.Now())
	return 0
}
