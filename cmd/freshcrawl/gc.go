package main

import (
	"os"
	"runtime/debug"
)

// The collector's settings for long crawls, unless GOGC or GOMEMLIMIT says
// otherwise: a crawler's heap is mostly short-lived page buffers, so
// collecting at 5× the live heap rather than 2× spends less CPU on GC (bench/crawl-throughput.sh:
// 1.53 M instead of 1.70 M instructions per page), and the 1 GiB soft limit
// makes the collector work harder before the process grows past it (the
// live heap of a crawl of 10^7 URLs is a few hundred MB).
const (
	crawlGCPercent   = 400
	crawlMemoryLimit = 1 << 30
)

// tuneGC applies the crawl's collector settings where the environment sets
// none.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(crawlGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(crawlMemoryLimit)
	}
}
