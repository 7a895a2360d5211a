package urlx

import (
	"errors"
	neturl "net/url"
	"strings"
	"sync"
	"testing"
)

// TestRFC3986Examples resolves every reference of RFC 3986 §5.4.1 (normal)
// and §5.4.2 (abnormal) against the RFC's base. want is the RFC's result
// in canonical form: without the fragment, with the root path written "/".
// Where WHATWG and the strict RFC parser differ ("http:g"), WHATWG's answer
// is the one the RFC lists "for backward compatibility", which browsers use.
func TestRFC3986Examples(t *testing.T) {
	const base = "http://a/b/c/d;p?q"
	tests := []struct {
		ref, want string
		err       error
	}{
		// §5.4.1 Normal Examples
		{ref: "g:h", err: ErrScheme}, // RFC: "g:h", a scheme we do not crawl
		{ref: "g", want: "http://a/b/c/g"},
		{ref: "./g", want: "http://a/b/c/g"},
		{ref: "g/", want: "http://a/b/c/g/"},
		{ref: "/g", want: "http://a/g"},
		{ref: "//g", want: "http://g/"},
		{ref: "?y", want: "http://a/b/c/d;p?y"},
		{ref: "g?y", want: "http://a/b/c/g?y"},
		{ref: "#s", want: "http://a/b/c/d;p?q"},
		{ref: "g#s", want: "http://a/b/c/g"},
		{ref: "g?y#s", want: "http://a/b/c/g?y"},
		{ref: ";x", want: "http://a/b/c/;x"},
		{ref: "g;x", want: "http://a/b/c/g;x"},
		{ref: "g;x?y#s", want: "http://a/b/c/g;x?y"},
		{ref: "", want: "http://a/b/c/d;p?q"},
		{ref: ".", want: "http://a/b/c/"},
		{ref: "./", want: "http://a/b/c/"},
		{ref: "..", want: "http://a/b/"},
		{ref: "../", want: "http://a/b/"},
		{ref: "../g", want: "http://a/b/g"},
		{ref: "../..", want: "http://a/"},
		{ref: "../../", want: "http://a/"},
		{ref: "../../g", want: "http://a/g"},
		// §5.4.2 Abnormal Examples
		{ref: "../../../g", want: "http://a/g"},
		{ref: "../../../../g", want: "http://a/g"},
		{ref: "/./g", want: "http://a/g"},
		{ref: "/../g", want: "http://a/g"},
		{ref: "g.", want: "http://a/b/c/g."},
		{ref: ".g", want: "http://a/b/c/.g"},
		{ref: "g..", want: "http://a/b/c/g.."},
		{ref: "..g", want: "http://a/b/c/..g"},
		{ref: "./../g", want: "http://a/b/g"},
		{ref: "./g/.", want: "http://a/b/c/g/"},
		{ref: "g/./h", want: "http://a/b/c/g/h"},
		{ref: "g/../h", want: "http://a/b/c/h"},
		{ref: "g;x=1/./y", want: "http://a/b/c/g;x=1/y"},
		{ref: "g;x=1/../y", want: "http://a/b/c/y"},
		{ref: "g?y/./x", want: "http://a/b/c/g?y/./x"},
		{ref: "g?y/../x", want: "http://a/b/c/g?y/../x"},
		{ref: "g#s/./x", want: "http://a/b/c/g"},
		{ref: "g#s/../x", want: "http://a/b/c/g"},
		{ref: "http:g", want: "http://a/b/c/g"}, // RFC: "http:g" strict, "http://a/b/c/g" backward compatible
	}
	b, err := Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			u, err := b.Parse(tt.ref)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Parse(%q) error = %v, want %v", tt.ref, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.ref, err)
			}
			if u.String() != tt.want {
				t.Errorf("Parse(%q) = %q, want %q", tt.ref, u, tt.want)
			}
			got, err := Resolve(base, tt.ref)
			if err != nil || got != tt.want {
				t.Errorf("Resolve(%q, %q) = %q, %v; want %q", base, tt.ref, got, err, tt.want)
			}
			if w, err := oracle(base, tt.ref); err != nil || w != tt.want {
				t.Errorf("the WHATWG parser resolves %q to %q, %v", tt.ref, w, err)
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// case
		{"scheme and host case", "HTTP://Example.COM/Path", "http://example.com/Path"},
		{"path case kept", "http://a/ABC?DEF=GHI", "http://a/ABC?DEF=GHI"},
		// ports
		{"http default port", "http://a:80/", "http://a/"},
		{"https default port", "https://a:443/", "https://a/"},
		{"http on 443 kept", "http://a:443/", "http://a:443/"},
		{"other port kept", "http://a:8080/x", "http://a:8080/x"},
		{"leading zeros in port", "http://a:0080/", "http://a/"},
		{"empty port", "http://a:/", "http://a/"},
		// fragments
		{"fragment", "http://a/b#c", "http://a/b"},
		{"empty fragment", "http://a/b#", "http://a/b"},
		{"fragment after query", "http://a/b?c#d", "http://a/b?c"},
		// paths
		{"empty path", "http://a", "http://a/"},
		{"empty path with query", "http://a?x", "http://a/?x"},
		{"dot segments", "http://a/b/./c/../d", "http://a/b/d"},
		{"dot segments past root", "http://a/../../b", "http://a/b"},
		{"encoded dot segments", "http://a/b/%2e/c/%2E%2e/d", "http://a/b/d"},
		{"dot in name kept", "http://a/b./.c/..d", "http://a/b./.c/..d"},
		{"empty segments kept", "http://a//b//", "http://a//b//"},
		{"backslash is slash", `http://a\b\c`, "http://a/b/c"},
		// percent-encoding
		{"tilde decoded", "http://a/%7Euser", "http://a/~user"},
		{"lower-case tilde decoded", "http://a/%7euser", "http://a/~user"},
		{"unreserved decoded", "http://a/%41%62%2D%5F%2E%30", "http://a/Ab-_.0"},
		{"slash stays encoded", "http://a/a%2fb", "http://a/a%2Fb"},
		{"reserved stays encoded", "http://a/%3A%40%21%3d", "http://a/%3A%40%21%3D"},
		{"space encoded", "http://a/a b", "http://a/a%20b"},
		{"space in query encoded", "http://a/?q=a b", "http://a/?q=a%20b"},
		{"plus kept", "http://a/?q=a+b", "http://a/?q=a+b"},
		{"non-ASCII as UTF-8", "http://a/café", "http://a/caf%C3%A9"},
		{"invalid UTF-8", "http://a/\xe9", "http://a/%EF%BF%BD"},
		{"stray percent", "http://a/100%", "http://a/100%25"},
		{"stray percent before non-hex", "http://a/%zz", "http://a/%25zz"},
		{"encoded percent kept", "http://a/%25", "http://a/%25"},
		{"no double decoding", "http://a/%2541", "http://a/%2541"},
		{"characters RFC 3986 forbids", "http://a/<>\"^`{|}[]", "http://a/%3C%3E%22%5E%60%7B%7C%7D%5B%5D"},
		{"quote in query", "http://a/?q='x'", "http://a/?q=%27x%27"},
		{"quote in path kept", "http://a/it's", "http://a/it's"},
		{"query unreserved decoded", "http://a/?%61=%7e", "http://a/?a=~"},
		{"query delimiters stay encoded", "http://a/?a=%26%3D", "http://a/?a=%26%3D"},
		{"query slash and question mark", "http://a/?a=/b?c", "http://a/?a=/b?c"},
		{"tab and newline removed", "http://a/b\tc\nd", "http://a/bcd"},
		{"surrounding spaces trimmed", "  http://a/b  ", "http://a/b"},
		// query
		{"order kept", "http://a/?b=2&a=1", "http://a/?b=2&a=1"},
		{"empty query dropped", "http://a/b?", "http://a/b"},
		{"empty parameters kept", "http://a/?a&&b=", "http://a/?a&&b="},
		// hosts
		{"IDN to punycode", "http://Bücher.example/", "http://xn--bcher-kva.example/"},
		{"punycode kept", "http://xn--bcher-kva.example/", "http://xn--bcher-kva.example/"},
		{"IDN full-width dot", "http://a\uff0eexample/", "http://a.example/"},
		{"percent-encoded host", "http://exa%6Dple.com/", "http://example.com/"},
		{"IPv4", "http://192.168.0.1/", "http://192.168.0.1/"},
		{"IPv4 hex", "http://0xC0.0xA8.0.1/", "http://192.168.0.1/"},
		{"IPv4 number", "http://3232235521/", "http://192.168.0.1/"},
		{"IPv6", "http://[2001:DB8:0:0:0:0:0:1]:8080/", "http://[2001:db8::1]:8080/"},
		{"trailing dot kept", "http://example.com./", "http://example.com./"},
		{"underscore", "http://a_b.example/", "http://a_b.example/"},
		// userinfo
		{"user stripped", "http://user@a/", "http://a/"},
		{"user and password stripped", "https://user:pass@a:8443/x", "https://a:8443/x"},
		// scheme-relative slashes, as browsers read them
		{"extra slashes", "http:////a/b", "http://a/b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonical(tt.in)
			if err != nil {
				t.Fatalf("Canonical(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("Canonical(%q) = %q, want %q", tt.in, got, tt.want)
			}
			again, err := Canonical(got)
			if err != nil || again != got {
				t.Errorf("Canonical(%q) = %q, %v; not idempotent", got, again, err)
			}
			checkOracle(t, "", tt.in)
		})
	}
}

func TestCanonicalErrors(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{"javascript:alert(1)", ErrScheme},
		{"mailto:a@b.example", ErrScheme},
		{"data:text/html,hi", ErrScheme},
		{"ftp://a/b", ErrScheme},
		{"file:///etc/passwd", ErrScheme},
		{"ws://a/", ErrScheme},
		{"tel:+15551234", ErrScheme},
		{"/relative/path", ErrInvalid},
		{"//a/b", ErrInvalid},
		{"", ErrInvalid},
		{"http://", ErrInvalid},
		{"http://a:99999/", ErrInvalid},
		{"http://a b/", ErrInvalid},
		{"http://[::1/", ErrInvalid},
		{"http://a{b}.example/", ErrHost},
		{"http://a*b.example/", ErrHost},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Canonical(tt.in)
			if !errors.Is(err, tt.want) {
				t.Errorf("Canonical(%q) = %q, %v; want error %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestSortQuery(t *testing.T) {
	c := Canonicalizer{SortQuery: true}
	tests := []struct{ in, want string }{
		{"http://a/?b=2&a=1", "http://a/?a=1&b=2"},
		{"http://a/?b=1&a=2&b=0&a=1", "http://a/?a=2&a=1&b=1&b=0"}, // stable: repeated names keep their order
		{"http://a/?z&y=&x=1", "http://a/?x=1&y=&z"},
		{"http://a/?%62=1&a=2", "http://a/?a=2&b=1"}, // sorted after decoding unreserved escapes
		{"http://a/?only", "http://a/?only"},
	}
	for _, tt := range tests {
		got, err := c.Canonical(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	// A URL parsed by a sorting canonicalizer resolves references sorted too.
	b, err := c.Parse("http://a/x?b=1&a=1")
	if err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]string{"?d=1&c=2": "http://a/x?c=2&d=1", "#f": "http://a/x?a=1&b=1"} {
		u, err := b.Parse(ref)
		if err != nil || u.String() != want {
			t.Errorf("Parse(%q) = %v, %v; want %q", ref, u, err, want)
		}
	}
}

func TestURLParts(t *testing.T) {
	tests := []struct {
		in                                                 string
		scheme, host, port, authority, path, query, reqURI string
	}{
		{"HTTP://User@Example.COM:80/a/b?c=d#e", "http", "example.com", "", "example.com", "/a/b", "c=d", "/a/b?c=d"},
		{"https://a.example:8443", "https", "a.example", "8443", "a.example:8443", "/", "", "/"},
		{"http://[::1]:8080/x?", "http", "[::1]", "8080", "[::1]:8080", "/x", "", "/x"},
		{"http://[::1]/", "http", "[::1]", "", "[::1]", "/", "", "/"},
	}
	for _, tt := range tests {
		u, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.in, err)
		}
		got := []string{u.Scheme(), u.Host(), u.Port(), u.Authority(), u.Path(), u.Query(), u.RequestURI(), Host(u.String())}
		want := []string{tt.scheme, tt.host, tt.port, tt.authority, tt.path, tt.query, tt.reqURI, tt.host}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("Parse(%q) part %d = %q, want %q (all: %q)", tt.in, i, got[i], want[i], got)
			}
		}
		// net/url, an independent parser, reads the same parts.
		n, err := neturl.Parse(u.String())
		if err != nil {
			t.Fatalf("net/url cannot parse %q: %v", u, err)
		}
		if n.Scheme != tt.scheme || n.Host != tt.authority || n.EscapedPath() != tt.path || n.RawQuery != tt.query {
			t.Errorf("net/url reads %q as %q %q %q %q", u, n.Scheme, n.Host, n.EscapedPath(), n.RawQuery)
		}
	}
}

// TestResolveConcurrent resolves against one base from many goroutines;
// run with -race it checks that a URL is safe for concurrent use.
func TestResolveConcurrent(t *testing.T) {
	b, err := Parse("http://a.example/b/c?x=1&y=2")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Go(func() {
			for _, ref := range []string{"d", "?z=3", "", "#f", "../e?x=1"} {
				if _, err := b.Parse(ref); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if got := b.String(); got != "http://a.example/b/c?x=1&y=2" {
		t.Errorf("base changed to %q", got)
	}
}

// TestLongInputs checks the bounds on input and output, and the results
// for the long shapes that cost the WHATWG parser time quadratic in their
// length (see the package doc); BenchmarkHostile times some of them.
func TestLongInputs(t *testing.T) {
	long := strings.Repeat("a", MaxInput)
	tests := []struct {
		name, base, in string
		want           error
	}{
		{"at MaxInput", "", "http://a/" + long[:MaxInput-len("http://a/")], nil},
		{"over MaxInput", "", "http://a/" + long, ErrTooLong},
		{"over MaxInput after escaping", "", "http://a/" + strings.Repeat(" ", MaxInput/2) + "x", ErrTooLong},
		{"MaxSlashes", "", "http://a" + strings.Repeat("/", MaxSlashes-2), nil},
		{"over MaxSlashes", "", "http://a" + strings.Repeat("/", MaxSlashes), ErrTooLong},
		{"over MaxSlashes after resolution", "http://a/b/c/", strings.Repeat("x/", MaxSlashes-2), ErrTooLong},
		{"long userinfo", "", "http://" + strings.Repeat("u", 8000) + "@a/", nil},
		{"many at signs", "", "http://" + strings.Repeat("@", 8000) + "a/", nil},
		{"long non-plain host", "", "http://" + strings.Repeat("é", 600) + "/", ErrHost},
		{"long plain host", "", "http://" + strings.Repeat("a", 8000) + "/", nil},
		{"long query", "", "http://a/?" + strings.Repeat("[", 2000), nil},
		{"percent run resolved", "http://a/b", strings.Repeat("%", 2000), nil},
		{"long path", "", "http://a/" + strings.Repeat("%41", 2700), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.base == "" {
				_, err = Parse(tt.in)
			} else {
				_, err = Resolve(tt.base, tt.in)
			}
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestNumberLikeHost pins the standard's reading of hosts whose last
// label looks like a number to strconv but is not one to the IPv4 number
// parser of the WHATWG URL Standard (§3.5), which fails on any code point
// that is not a digit of the radix: such a host is a name, not an IPv4
// address. The library this package checks itself against differs here;
// see libraryNumberBug.
func TestNumberLikeHost(t *testing.T) {
	for in, want := range map[string]string{
		"http:-0":          "http://-0/",
		"http://a.-1/":     "http://a.-1/",
		"http://1.2.3.-4/": "http://1.2.3.-4/",
		"http:/100000000000000000000000000000000A": "http://100000000000000000000000000000000a/",
	} {
		if got, err := Canonical(in); err != nil || got != want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", in, got, err, want)
		}
		if !libraryNumberBug(Host(want)) {
			t.Errorf("%s: not a case of the library's bug", want)
		}
	}
	for _, h := range []string{"a.0x1f", "a.017", "a.b", "a.1", "a.0x", "a.bad", "a.08"} {
		if libraryNumberBug(h) {
			t.Errorf("libraryNumberBug(%q) = true", h)
		}
	}
}

func TestCanonicalAll(t *testing.T) {
	got, err := CanonicalAll([]string{" http://A.example ", "https://b.example/x/../y"})
	if err != nil || len(got) != 2 || got[0] != "http://a.example/" || got[1] != "https://b.example/y" {
		t.Errorf("CanonicalAll = %q, %v", got, err)
	}
	if _, err := CanonicalAll([]string{"http://a.example/", "ftp://b.example/"}); err == nil || !strings.Contains(err.Error(), `"ftp://b.example/"`) {
		t.Errorf("a bad URL: err %v, want one naming it", err)
	}
}
