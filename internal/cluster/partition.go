package cluster

import (
	"fmt"

	"golang.org/x/net/publicsuffix"

	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// Scheme is how URLs are split into partitions (dissertation §3.3).
type Scheme uint8

// Partitioning schemes.
const (
	// BySite hashes the site (the registered domain): a site's pages, and
	// the nine in ten links that stay within a site, stay in one
	// partition. It is the default, and the only scheme under which a
	// host has one owner, so politeness holds without coordination.
	BySite Scheme = iota + 1
	// ByURL hashes the whole URL: a site's pages scatter over every
	// partition and most links cross partitions. It is there to measure
	// how much more that costs (ch. 3, Fig. 3.7).
	ByURL
	// ByTLD is the hierarchical scheme: the public suffix (com, net,
	// co.uk, ...) decides. Partitions are as uneven as the suffixes are;
	// a crawl of one suffix lands in one partition.
	ByTLD
)

var schemeNames = [...]string{BySite: "site", ByURL: "url", ByTLD: "tld"}

// String returns the scheme's flag name.
func (s Scheme) String() string {
	if int(s) < len(schemeNames) && schemeNames[s] != "" {
		return schemeNames[s]
	}
	return fmt.Sprintf("Scheme(%d)", s)
}

// ParseScheme reads a scheme by its flag name: site, url or tld.
func ParseScheme(name string) (Scheme, error) {
	for s, n := range schemeNames {
		if n != "" && n == name {
			return Scheme(s), nil
		}
	}
	return 0, fmt.Errorf("unknown partitioning %q (want site, url or tld)", name)
}

// Partitioner maps canonical URLs to partitions 0 … N−1. Every node of a
// cluster must use the same one: urlx.Partition's hash is pinned by its
// tests for that reason.
type Partitioner struct {
	Scheme Scheme
	N      int
}

// Of returns the partition of a canonical URL.
func (p Partitioner) Of(canonical string) int {
	if p.N <= 1 {
		return 0
	}
	return urlx.Partition(p.Key(canonical), p.N)
}

// Key returns what the scheme hashes: the site key, the URL, or the
// public suffix of the host.
func (p Partitioner) Key(canonical string) string {
	switch p.Scheme {
	case ByURL:
		return canonical
	case ByTLD:
		suffix, _ := publicsuffix.PublicSuffix(urlx.Host(canonical))
		return suffix
	default:
		return urlx.SiteKey(urlx.Host(canonical))
	}
}

// Mode is what a node does with a link to another partition (§3.3).
type Mode uint8

// Crawl modes.
const (
	// ModeFirewall drops links to other partitions: no overlap and no
	// messages, but pages reachable only through such links are never
	// crawled.
	ModeFirewall Mode = iota + 1
	// ModeCrossOver follows links to other partitions itself, but only once
	// its own partition has nothing left: coverage at the price of
	// fetching pages their owner fetches too.
	ModeCrossOver
	// ModeExchange sends links to other partitions to their owners, in
	// batches: no overlap and full coverage, for about one URL a page.
	ModeExchange
)

var modeNames = [...]string{ModeFirewall: "firewall", ModeCrossOver: "cross-over", ModeExchange: "exchange"}

// String returns the mode's flag name.
func (m Mode) String() string {
	if int(m) < len(modeNames) && modeNames[m] != "" {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", m)
}

// ParseMode reads a mode by its flag name: firewall, cross-over or
// exchange.
func ParseMode(name string) (Mode, error) {
	for m, n := range modeNames {
		if n != "" && n == name {
			return Mode(m), nil
		}
	}
	return 0, fmt.Errorf("unknown cluster mode %q (want firewall, cross-over or exchange)", name)
}
