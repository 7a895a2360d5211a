// Package dataset reads the data files freshcrawl is given: the rates and
// hosts files of freshcrawl allocate, the crawl histories of Microsoft's
// public Bing freshness dataset that freshcrawl estimate reads, and the
// seeds and config files of freshcrawl crawl; and writes the largest file
// freshcrawl makes, allocate's table or JSON lines (WriteAllocation). The command opens the files (standard
// input, gzip) and reports the errors, which name the line; the readers
// here parse bytes.
//
// The readers are built for files of 10⁷ lines: the rates file is parsed
// in parallel pieces without a string per line, the Bing reader streams
// without an allocation per line, and both parse their numbers with one
// fast decimal parser that gives strconv.ParseFloat's result bit for bit
// (float.go). The same table of exact powers of ten formats the numbers
// of the largest file freshcrawl writes, allocate's table of 10⁷ rows, as
// strconv does but quicker (AppendG, format.go).
//
// # Rates file
//
// One page a line, fields separated by tabs (ReadRates, ParseRates):
//
//	id <TAB> changes_per_day [<TAB> weight [<TAB> host]]
//
//	a	9
//	b	1	0.5	example.org
//	c	0.25		example.org
//
// The id is any bytes but a tab, at least one; changes_per_day is the
// page's change rate, a decimal ≥ 0 (anything strconv.ParseFloat reads);
// weight is its importance, > 0, and 1 when the field is missing or empty
// (empty gives a host without a weight); host names the site the page is
// on, and pages with one share that host's politeness limit. Spaces
// around a number or a host are ignored, a CR before the LF is dropped,
// and blank lines and lines whose first byte is # are skipped. Any other
// line, including one of five or more fields, is an error that names it.
// Hosts are numbered in order of first appearance.
//
// # Hosts file
//
// One host a line, its least delay between two requests (ReadHosts):
//
//	host <TAB> delay
//
//	example.org	2
//	example.net	1500ms
//
// The delay is in seconds ("2", "0.5") or a Go duration ("1500ms",
// "1m"); 0 means no limit. Blank lines and lines starting with # are
// skipped; a host listed twice is an error.
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
// # Seeds file
//
// One URL a line (ReadSeeds); spaces around it are trimmed, and blank
// lines and lines starting with # are skipped.
//
// # Crawl config file
//
// TOML whose keys are freshcrawl crawl's flag names (ReadCrawlConfig), but
// for seeds, a list of URLs (the repeatable -seed), and seeds-file (the
// -seeds flag); durations are strings in Go's syntax:
//
//	seeds = ["https://example.org/"]
//	budget = 10.0
//	delay = "1s"
//	resolve = ["*.test=127.0.0.1:8080"]
//
// An unknown key, or a value of the wrong type, is an error that names
// the file and line. Settings gives each entry as the flag it stands for,
// relative paths taken from the file's directory.
package dataset
