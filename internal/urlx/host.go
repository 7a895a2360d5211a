package urlx

import (
	"fmt"
	"strconv"
	"strings"

	wurl "github.com/nlnwa/whatwg-url/url"
)

// maxAuthority bounds the authorities handed to the WHATWG host parser,
// which takes about 100 ns a byte. A DNS name has at most 253 bytes, and
// even spelled in Unicode or percent-escapes a usable host fits well
// within the bound.
const maxAuthority = 1 << 10

// hostParser parses hosts the WHATWG way. It holds no mutable state.
var hostParser = wurl.NewParser()

// parseAuthority parses the authority of a special URL (the text between
// the slashes and the path) into a canonical host and port (the port ""
// when it is the scheme's default). Userinfo, up to the last '@', is
// dropped: the canonical form has none, and the WHATWG parser would spend
// time quadratic in its length building it.
//
// Plain host names and decimal ports, nearly all hosts, are handled here;
// anything else (IDNs, IP addresses, percent-escapes, odd ports) is handed
// to github.com/nlnwa/whatwg-url as the URL scheme://authority/, which
// parses the same host as the full URL would: the host state ends at the
// first '/', '?', '#' or '\', and the authority holds none of them. (The
// library reads a last label that is a number with a sign, "0x-1", as an
// IPv4 number, which the standard does not; plain hosts such as "a.-1"
// never reach it, and the rest are rare enough to leave.)
func parseAuthority(scheme, auth string) (host, port string, err error) {
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		auth = auth[at+1:]
	}
	if auth == "" {
		return "", "", fmt.Errorf("%w: no host", ErrInvalid)
	}
	host, port, hasPort := auth, "", false
	if i := strings.IndexByte(auth, ':'); i >= 0 {
		host, port, hasPort = auth[:i], auth[i+1:], true
	}
	ok := true
	if hasPort {
		port, ok = plainPort(scheme, port)
	}
	if ok {
		if h, ok := plainHost(host); ok {
			return h, port, nil
		}
		if dottedQuad(host) {
			return host, port, nil
		}
	}
	if len(auth) > maxAuthority {
		return "", "", fmt.Errorf("%w: %d bytes > %d", ErrHost, len(auth), maxAuthority)
	}
	w, err := hostParser.Parse(scheme + "://" + auth + "/")
	if err != nil {
		return "", "", fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	host = w.Hostname()
	if !validHost(host) {
		return "", "", fmt.Errorf("%w: %q", ErrHost, host)
	}
	return host, w.Port(), nil // WHATWG drops default ports
}

// plainHost lower-cases a host name made of ASCII letters, digits, '-' and
// '_' in non-empty labels (a trailing dot allowed), and reports false for
// anything the WHATWG host parser might change otherwise: IPv4 forms (the
// last label a number, or hex), punycode labels, empty labels, other
// characters.
func plainHost(h string) (string, bool) {
	name := strings.TrimSuffix(h, ".")
	if name == "" {
		return "", false
	}
	upper := false
	labelStart := 0
	for i := 0; i <= len(name); i++ {
		if i == len(name) || name[i] == '.' {
			label := name[labelStart:i]
			if label == "" || hasPrefixFold(label, "xn--") {
				return "", false
			}
			labelStart = i + 1
			continue
		}
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_':
		case 'A' <= c && c <= 'Z':
			upper = true
		default:
			return "", false
		}
	}
	last := name[strings.LastIndexByte(name, '.')+1:]
	if strings.Trim(last, "0123456789") == "" || len(last) >= 2 && last[0] == '0' && last[1]|0x20 == 'x' {
		return "", false // the host "ends in a number": an IPv4 form
	}
	if upper {
		h = strings.ToLower(h)
	}
	return h, true
}

// dottedQuad reports whether h is an IPv4 address as the WHATWG host
// parser writes one: four decimal numbers up to 255, without leading
// zeros. The parser would return it unchanged, and costs microseconds to
// say so; a crawl of a server on 127.0.0.1 spent a tenth of its link
// extraction there, parsing each page's URL.
func dottedQuad(h string) bool {
	dots, n, digits := 0, 0, 0
	for i := 0; i <= len(h); i++ {
		if i == len(h) || h[i] == '.' {
			if digits == 0 || n > 255 {
				return false
			}
			if i < len(h) {
				dots++
			}
			n, digits = 0, 0
			continue
		}
		c := h[i]
		if c < '0' || c > '9' || digits == 3 || digits > 0 && n == 0 {
			return false // not a digit, more than three, or a leading zero
		}
		n = n*10 + int(c-'0')
		digits++
	}
	return dots == 3
}

// plainPort returns a port in canonical form ("" for the scheme's
// default), and false unless it is 1 to 5 decimal digits of a value up to
// 65535.
func plainPort(scheme, p string) (string, bool) {
	if p == "" || len(p) > 5 || strings.Trim(p, "0123456789") != "" {
		return "", false
	}
	n, err := strconv.Atoi(p)
	if err != nil || n > 65535 {
		return "", false
	}
	if scheme == "http" && n == 80 || scheme == "https" && n == 443 {
		return "", true
	}
	return strconv.Itoa(n), true
}

// validHost reports whether a WHATWG-parsed host is an IP literal or a name
// made of letters, digits, '-', '_' and '.' (WHATWG lowercases names and
// turns IDNs into punycode; it lets through other ASCII such as '!' or '{',
// which no DNS name holds and net/url refuses).
func validHost(h string) bool {
	if h == "" {
		return false
	}
	if h[0] == '[' {
		return true // WHATWG serialised an IPv6 address
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
