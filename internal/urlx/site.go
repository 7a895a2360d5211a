package urlx

import (
	"math/bits"
	"net/netip"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// Authority returns the host and port (host[:port]) of a canonical URL
// string, as (*URL).Host does, without parsing it: it is for URLs read
// back from the frontier or a store, which are canonical already. For
// other strings the result is unspecified; parse them first. The crawler
// keys its politeness by it.
func Authority(canonical string) string {
	i := strings.Index(canonical, "://")
	if i < 0 {
		return ""
	}
	h := canonical[i+3:]
	if j := strings.IndexByte(h, '/'); j >= 0 {
		h = h[:j]
	}
	return h
}

// Host returns the host of a canonical URL string, its Authority without
// the port.
func Host(canonical string) string {
	h := Authority(canonical)
	if j := strings.LastIndexByte(h, ':'); j >= 0 && !strings.Contains(h[j:], "]") {
		h = h[:j]
	}
	return h
}

// SiteKey returns the site a host belongs to: its registered domain, one
// label more than its public suffix (eTLD+1) by the Public Suffix List
// (golang.org/x/net/publicsuffix). www.bbc.co.uk and news.bbc.co.uk are
// both bbc.co.uk; a.b.github.io is b.github.io, because github.io is a
// public suffix. Names under a TLD the list does not know take its default
// rule "*", so h17-com.test and www.h17-com.test are both h17-com.test.
//
// A host that has no registered domain is its own site: an IP literal, a
// single-label name (localhost), a public suffix itself (co.uk), or a name
// with empty labels. A trailing dot is ignored. The host should be as
// (*URL).Host returns it (lower-case ASCII).
func SiteKey(host string) string {
	if strings.HasPrefix(host, "[") {
		return host // IPv6 literal
	}
	name := strings.TrimSuffix(host, ".")
	if _, err := netip.ParseAddr(name); err == nil {
		return name // IPv4 (canonical URLs never hold other IPv4 spellings)
	}
	if !strings.Contains(name, ".") || strings.HasPrefix(name, ".") || strings.Contains(name, "..") {
		return name
	}
	// EffectiveTLDPlusOne, without building an error for the hosts that
	// have none.
	suffix, _ := publicsuffix.PublicSuffix(name)
	if len(name) <= len(suffix) {
		return name
	}
	i := len(name) - len(suffix) - 1
	if name[i] != '.' {
		return name
	}
	return name[strings.LastIndexByte(name[:i], '.')+1:]
}

// Partition maps a site key to one of n partitions, 0 ≤ p < n; it panics
// if n < 1. The map is stable across processes, machines and releases,
// because crawler nodes must agree on it: the key is hashed with 64-bit
// FNV-1a (http://www.isthe.com/chongo/tech/comp/fnv/), whose output is
// then mixed with MurmurHash3's fmix64 finaliser so that every bit of the
// key affects the high bits, and mapped to [0, n) by Lemire's multiply-shift
// reduction (floor(h·n / 2^64)), which is uniform to within n/2^64.
//
// hash/maphash is not used because its seeds are random per process;
// xxhash would need a dependency for no gain at these key lengths.
// Changing this function moves sites between partitions of a running
// cluster; the tests pin its values.
func Partition(siteKey string, n int) int {
	if n < 1 {
		panic("urlx: Partition with n < 1")
	}
	hi, _ := bits.Mul64(fmix64(fnv1a64(siteKey)), uint64(n))
	return int(hi)
}

// FNV-1a 64-bit parameters.
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

func fnv1a64(s string) uint64 {
	h := uint64(fnvOffset64)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime64
	}
	return h
}

// fmix64 is the 64-bit finaliser of MurmurHash3 (Austin Appleby, public
// domain): an invertible mix in which each input bit flips each output bit
// with probability close to 1/2.
func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
