package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/datadir"
	"github.com/freshcrawl/freshcrawl/internal/ui"
)

// statusFlags defines the status command's flags.
func statusFlags(dir, addr *string, asJSON *bool) *flag.FlagSet {
	fs := newFlagSet("status")
	fs.StringVar(dir, "data", defaultDataDir, "data `directory` of the crawl")
	fs.StringVar(addr, "addr", "", "read a running crawl through its -listen `ADDR` (host:port) instead of its data directory")
	fs.BoolVar(asJSON, "json", false, "print one JSON object instead of a table")
	return fs
}

func runStatus(args []string, stdout, stderr io.Writer) int {
	var dir, addr string
	var asJSON bool
	fs := statusFlags(&dir, &addr, &asJSON)
	if code, ok := parseArgs("status", fs, args, stdout, stderr); !ok {
		return code
	}
	if addr != "" {
		return statusAt(addr, asJSON, stdout, stderr)
	}
	if len(datadir.Partitions(dir)) > 0 {
		return clusterStatus(dir, asJSON, stdout, stderr)
	}
	st, err := datadir.ReadStatus(dir, time.Now())
	if err != nil {
		return readFailed("status", dir, err, stderr)
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

// statusAt prints the status of the crawl serving addr (crawl -listen):
// the whole /api/status document with -json, else the status table and
// the running figures.
func statusAt(addr string, asJSON bool, stdout, stderr io.Writer) int {
	doc, raw, err := ui.Fetch(addr, 30*time.Second)
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl status: %v\n", err)
		return 1
	}
	if asJSON {
		stdout.Write(raw)
		return 0
	}
	switch {
	case doc.Status != nil:
		doc.Status.WriteText(stdout, time.Now())
	case doc.StatusError != "":
		fmt.Fprintf(stdout, "the crawl could not read its state: %s\n", doc.StatusError)
	}
	doc.Live.WriteText(stdout)
	return 0
}

// clusterStatus prints the status of a cluster's data directory: each
// partition's figures and exchange counters.
func clusterStatus(dir string, asJSON bool, stdout, stderr io.Writer) int {
	cs, err := datadir.ReadClusterStatus(dir, time.Now())
	if err != nil {
		return readFailed("status", dir, err, stderr)
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(cs); err != nil {
			fmt.Fprintf(stderr, "freshcrawl status: %v\n", err)
			return 1
		}
		return 0
	}
	cs.WriteText(stdout)
	return 0
}
