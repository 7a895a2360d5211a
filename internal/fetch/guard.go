package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"
)

// ErrPrivate is returned when a host resolves to an address the crawler
// must not visit (loopback, private, link-local, ...) and private
// addresses are not allowed.
var ErrPrivate = errors.New("address is private, loopback or link-local")

// blocked are the address ranges refused unless AllowPrivate is set: the
// "this network", loopback, private (RFC 1918, RFC 4193), shared (RFC 6598),
// link-local, multicast, benchmarking and reserved ranges, for IPv4 and IPv6.
var blocked = func() []netip.Prefix {
	var ps []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
		"172.16.0.0/12", "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4",
		"::/128", "::1/128", "fc00::/7", "fe80::/10", "ff00::/8", "64:ff9b:1::/48",
	} {
		ps = append(ps, netip.MustParsePrefix(s))
	}
	return ps
}()

// Public reports whether a crawler may connect to addr without
// AllowPrivate. IPv4-mapped IPv6 addresses are judged as IPv4.
func Public(addr netip.Addr) bool {
	addr = addr.Unmap()
	if !addr.IsValid() {
		return false
	}
	for _, p := range blocked {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}

// ResolveRule maps host names to a fixed address, as curl's --resolve and
// --connect-to do: Pattern is a host name or "*.zone"; Addr is host:port.
type ResolveRule struct {
	Pattern string
	Addr    string
}

// ParseResolve reads a NAME=ADDR rule; NAME may be "*.zone", ADDR is
// host:port.
func ParseResolve(s string) (ResolveRule, error) {
	name, addr, ok := strings.Cut(s, "=")
	if !ok || name == "" || addr == "" {
		return ResolveRule{}, fmt.Errorf("resolve rule %q: want NAME=HOST:PORT", s)
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return ResolveRule{}, fmt.Errorf("resolve rule %q: %w", s, err)
	}
	if strings.Contains(strings.TrimPrefix(name, "*."), "*") {
		return ResolveRule{}, fmt.Errorf("resolve rule %q: only a leading *. wildcard is allowed", s)
	}
	return ResolveRule{Pattern: strings.ToLower(name), Addr: addr}, nil
}

func (r ResolveRule) match(host string) bool {
	if zone, ok := strings.CutPrefix(r.Pattern, "*."); ok {
		return strings.HasSuffix(host, "."+zone)
	}
	return host == r.Pattern
}

// dialer dials with the resolve overrides and refuses non-public
// addresses after resolution, so a name that resolves to a private
// address is caught as well as a literal one.
type dialer struct {
	net          net.Dialer
	resolver     *net.Resolver
	rules        []ResolveRule
	allowPrivate bool
	dial         func(ctx context.Context, network, address string) (net.Conn, error)
}

// lookup returns the addresses a connection to host:port tries, and the
// port: a resolve rule's, else host itself if it is an address, else what
// resolver returns.
func lookup(ctx context.Context, resolver *net.Resolver, rules []ResolveRule, host, port string) ([]netip.Addr, string, error) {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, r := range rules {
		if r.match(host) {
			host, port, _ = net.SplitHostPort(r.Addr)
			break
		}
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, port, nil
	}
	ips, err := resolver.LookupNetIP(ctx, "ip", host)
	return ips, port, err
}

// Addresses returns the addresses the crawler would try for host under
// the configuration's resolve rules and resolver, whether or not it may
// connect to them (Public).
func (c Config) Addresses(ctx context.Context, host string) ([]netip.Addr, error) {
	c.defaults()
	addrs, _, err := lookup(ctx, c.Resolver, c.Resolve, host, "")
	return addrs, err
}

// Refused returns the first of urls whose host resolves only to addresses
// the configuration refuses (AllowPrivate unset: loopback, private,
// link-local), and its first address; a URL whose host does not resolve
// (within 10 s for them all) is passed over.
func (c Config) Refused(ctx context.Context, urls []string) (string, netip.Addr, bool) {
	if c.AllowPrivate {
		return "", netip.Addr{}, false
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for _, s := range urls {
		u, err := url.Parse(s)
		if err != nil || u.Hostname() == "" {
			continue
		}
		addrs, err := c.Addresses(ctx, u.Hostname())
		if err == nil && len(addrs) > 0 && !slices.ContainsFunc(addrs, Public) {
			return s, addrs[0], true
		}
	}
	return "", netip.Addr{}, false
}

func (d *dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	addrs, port, err := lookup(ctx, d.resolver, d.rules, host, port)
	if err != nil {
		return nil, err
	}
	var firstErr error
	for _, a := range addrs {
		if !d.allowPrivate && !Public(a) {
			if firstErr == nil {
				firstErr = fmt.Errorf("dial %s (%s): %w", host, a, ErrPrivate)
			}
			continue
		}
		conn, err := d.dial(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("dial %s: no addresses", address)
	}
	return nil, firstErr
}
