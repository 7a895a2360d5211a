// Package dataset reads the data files freshcrawl is given: the crawl
// histories of Microsoft's public Bing freshness dataset that freshcrawl
// estimate reads. The command opens the files (standard input, gzip) and
// reports the errors, which name the line; the readers here parse bytes.
//
// The readers are built for files of 10⁷ lines: the Bing reader streams
// without an allocation per line, and parses its numbers with a fast
// decimal parser that gives strconv.ParseFloat's result bit for bit
// (float.go).
//
// # Bing crawl histories
//
// urlid_offset_history.txt of the Bing freshness dataset (Kolobov et al.,
// SIGIR 2019 and NeurIPS 2019), one URL a line (BingReader):
//
//	urlid <WS> first_crawl_offset <WS> [[days, changed], ...]
//
//	5	5.5143055555555556	[[1.10396990740741, 0], [1.47311342592593, 1]]
//
// urlid is a decimal uint64; first_crawl_offset is the days from the
// start of the collection to the URL's first crawl; each recrawl gives
// the days since the previous crawl and whether the page had changed
// since it, 0 or 1. Numbers are non-negative and finite. Fields are
// separated by tabs or spaces, whitespace inside the list is free, blank
// lines are skipped, and a malformed line is an error that wraps
// ErrBingSyntax and names the line and byte; reading goes on after it.
//
package dataset
