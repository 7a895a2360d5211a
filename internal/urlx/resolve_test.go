package urlx

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// checkResolve checks the fast path of Resolve against the full parser:
// where resolvePath takes a reference, Parse must give the same string,
// and Resolve must always give what Parse gives. It reports whether the
// fast path took the reference.
func checkResolve(t *testing.T, base *URL, ref string) bool {
	t.Helper()
	var want string
	u, werr := base.Parse(ref)
	if werr == nil {
		want = u.String()
	}
	fast, ok := base.resolvePath(ref)
	if ok && (werr != nil || fast != want) {
		t.Fatalf("base %q, ref %q: fast path %q; Parse %q, %v", base, ref, fast, want, werr)
	}
	got, err := base.Resolve(ref)
	if got != want || (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
		t.Fatalf("base %q, ref %q: Resolve %q, %v; Parse %q, %v", base, ref, got, err, want, werr)
	}
	return ok
}

// TestResolveFast compares Resolve with Parse on 50,000 references built
// at random from path segments of every kind the fast path must treat as
// withPath does (dot segments in all their spellings, empty segments,
// escapes good and bad, bytes to escape) and from pieces that must send a
// reference to the full parser (schemes, authorities, backslashes,
// spaces, non-ASCII), against bases with and without query sorting.
func TestResolveFast(t *testing.T) {
	segs := []string{"a", "b.html", ".", "..", "%2e", "%2E", ".%2e", "%2E.", "%2e%2E", "", "...", ".a", "a.",
		"%41", "%7e", "%2f", "%zz", "%", "%4", "<>", `"`, "{|}", "^`", "a;p", "a:b", ":", "x'y", "@", "!$&()*+,=",
		"g:h", "é", "a b", `a\b`, "\t", "//h"}
	queries := []string{"", "", "?", "?a=1&b=2", "?b=2&a=1", "?q='<>\"", "?%7e%zz", "?a/../b", "?é", "? "}
	frags := []string{"", "", "#", "#f", "#a/../b", "#?x", `#\`, "#é"}
	bases := []string{"http://a/", "http://a/b/c/d;p?q", "https://h17-com.test:8443//x//y/", "http://a/%7E/%2F/z?x=1"}
	var parsed []*URL
	for _, s := range bases {
		for _, c := range []Canonicalizer{{}, {SortQuery: true}} {
			u, err := c.Parse(s)
			if err != nil {
				t.Fatal(err)
			}
			parsed = append(parsed, u)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	fast, n := 0, 50000
	for range n {
		var b strings.Builder
		if r.IntN(4) == 0 {
			b.WriteByte('/')
		}
		for k := r.IntN(6); k >= 0; k-- {
			b.WriteString(segs[r.IntN(len(segs))])
			if k > 0 {
				b.WriteByte('/')
			}
		}
		b.WriteString(queries[r.IntN(len(queries))])
		b.WriteString(frags[r.IntN(len(frags))])
		if checkResolve(t, parsed[r.IntN(len(parsed))], b.String()) {
			fast++
		}
	}
	// The generator is seeded; a fast path that took few references
	// would leave the comparison hollow.
	if fast < n/4 {
		t.Errorf("fast path took %d of %d references", fast, n)
	}
	t.Logf("fast path took %d of %d references", fast, n)
}

// TestResolveBounds checks the fast path at the bounds parse enforces:
// references and results too long or with too many slashes must fail as
// Parse fails.
func TestResolveBounds(t *testing.T) {
	base, err := Parse("http://a.example/" + strings.Repeat("d/", 100) + "p")
	if err != nil {
		t.Fatal(err)
	}
	refs := []string{
		strings.Repeat("x", MaxInput), strings.Repeat("x", MaxInput+1), strings.Repeat("x", MaxInput-len(base.String())),
		strings.Repeat("a/", MaxSlashes), strings.Repeat("a/", MaxSlashes-100), strings.Repeat("a/", MaxSlashes-101),
		strings.Repeat("<", MaxInput/3), "/" + strings.Repeat("a/", MaxSlashes-1), strings.Repeat("../", 150) + "x",
	}
	for _, ref := range refs {
		checkResolve(t, base, ref)
	}
}

func FuzzResolve(f *testing.F) {
	for _, s := range corpus {
		f.Add(s)
	}
	base, err := Canonicalizer{SortQuery: true}.Parse("http://a.example/b/c/d;p?q=1&r")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		checkResolve(t, base, ref)
	})
}
