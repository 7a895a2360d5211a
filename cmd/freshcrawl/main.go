// Command freshcrawl is an incremental web crawler that keeps a collection
// of important pages as fresh as possible under a fetch budget. This binary
// holds all of its subcommands.
package main

import (
	"fmt"
	"io"
	"os"
)

type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"demo", "crawl an in-process synthetic web and show its true freshness live", runDemo},
		{"crawl", "crawl the web from seeds and keep the pages found fresh", runCrawl},
		{"cluster", "run a crawl cluster on this machine: NATS and N crawl processes", runCluster},
		{"status", "show what a crawl's data directory holds", runStatus},
		{"report", "plot a stopped crawl's data directory as PNG and SVG, with an index.html", runReport},
		{"estimate", "estimate how often each page changes, from a crawl or a Bing history file", runEstimate},
		{"accuracy", "measure the change-rate estimators' accuracy on synthetic pages", runAccuracy},
		{"allocate", "divide a fetch budget among pages for freshness, age or embarrassment", runAllocate},
		{"simulate", "compare refresh policies in the simulator", runSimulate},
		{"rank", "compute PageRank and backlinks over a link graph (SNAP edge list)", runRank},
		{"reproduce", "run the papers' experiments and print paper against measured", runReproduce},
		{"simweb", "serve a synthetic web with known truth on loopback", runSimweb},
		{"version", "print which freshcrawl this is: version, commit, Go release", runVersion},
	}
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 {
			return run([]string{args[1], "-h"}, stdout, stderr)
		}
		usage(stdout)
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "freshcrawl: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "freshcrawl keeps a collection of web pages fresh under a fetch budget.\n\nUsage:\n  freshcrawl <command> [flags]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'freshcrawl <command> -h' for the flags of a command.\n")
}
