package simweb

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/freshcrawl/freshcrawl/internal/simweb/trap"
	"github.com/freshcrawl/freshcrawl/internal/simweb/words"
)

// serverTestNet is a web served over real HTTP by an httptest server, with
// a client whose transport reaches every virtual host through it.
type serverTestNet struct {
	web       *Web
	clock     *ManualClock
	transport *http.Transport
	client    *http.Client // follows no redirects and asks for no gzip
}

func newServerTestNet(t *testing.T, cfg Config) *serverTestNet {
	t.Helper()
	clock := &ManualClock{}
	web, err := New(cfg, clock)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(web)
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	var d net.Dialer
	tr := &http.Transport{
		// Every host of the .test zone lives at the test server.
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
		// Without this the transport would ask for gzip and inflate bodies
		// itself, hiding what the server sent.
		DisableCompression: true,
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &serverTestNet{
		web: web, clock: clock, transport: tr,
		client: &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}},
	}
}

// serverTestConfig returns the default web shrunk to hosts × pages.
func serverTestConfig(hosts, pages int) Config {
	cfg := DefaultConfig()
	cfg.Hosts, cfg.PagesPerHost = hosts, pages
	return cfg
}

// withFaults returns cfg with the fault rates of spec set (ParseFaults syntax).
func withFaults(t *testing.T, cfg Config, spec string) Config {
	t.Helper()
	f, err := ParseFaults(spec, cfg.Faults)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Faults = f
	return cfg
}

// get fetches a URL and returns the response (body closed) and the body.
func (n *serverTestNet) get(t *testing.T, rawURL string) (*http.Response, []byte) {
	t.Helper()
	resp, err := n.client.Get(rawURL)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading body: %v", rawURL, err)
	}
	return resp, body
}

// getOK fetches a URL that must answer 200 and returns its body.
func (n *serverTestNet) getOK(t *testing.T, rawURL string) (*http.Response, []byte) {
	t.Helper()
	resp, body := n.get(t, rawURL)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d, want 200", rawURL, resp.StatusCode)
	}
	return resp, body
}

var errTooManyHops = errors.New("too many redirects")

// follow fetches a URL following at most limit redirects, and returns the
// final response (body closed), the redirects followed and the error.
func (n *serverTestNet) follow(rawURL string, limit int) (resp *http.Response, hops int, err error) {
	c := &http.Client{Transport: n.transport, CheckRedirect: func(*http.Request, []*http.Request) error {
		hops++
		if hops > limit {
			return errTooManyHops
		}
		return nil
	}}
	resp, err = c.Get(rawURL)
	if resp != nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return resp, hops, err
}

func hostURL(host, path string) string { return "http://" + host + path }

// hrefRE matches the target of a link, quoted or not, in any letter case.
var hrefRE = regexp.MustCompile(`(?i)<a\s+href=(?:"([^"]*)"|([^\s">]+))`)

// pageLinks returns the link targets of an HTML page, in order.
func pageLinks(body []byte) []string {
	var out []string
	for _, m := range hrefRE.FindAllSubmatch(body, -1) {
		out = append(out, string(m[1])+string(m[2]))
	}
	return out
}

// linkWithPrefix returns the first link of a page that starts with prefix.
func linkWithPrefix(t *testing.T, body []byte, prefix string) string {
	t.Helper()
	for _, l := range pageLinks(body) {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	t.Fatalf("no link starting with %q in a page with links %q", prefix, pageLinks(body))
	return ""
}

// robotsGroup is the rules of one User-agent group of a robots.txt.
type robotsGroup struct {
	allow, disallow, crawlDelay []string
}

// robotsFile is a robots.txt as RFC 9309 reads it, plus its Sitemap lines.
type robotsFile struct {
	groups   map[string]*robotsGroup // by lower-case user agent
	sitemaps []string
}

func parseRobots(body string) robotsFile {
	rf := robotsFile{groups: map[string]*robotsGroup{}}
	var cur []*robotsGroup
	inRules := false
	for _, line := range strings.Split(body, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		switch k {
		case "user-agent":
			if inRules {
				cur, inRules = nil, false
			}
			g := &robotsGroup{}
			rf.groups[strings.ToLower(v)] = g
			cur = append(cur, g)
		case "allow", "disallow", "crawl-delay":
			inRules = true
			for _, g := range cur {
				switch k {
				case "allow":
					g.allow = append(g.allow, v)
				case "disallow":
					g.disallow = append(g.disallow, v)
				default:
					g.crawlDelay = append(g.crawlDelay, v)
				}
			}
		case "sitemap":
			rf.sitemaps = append(rf.sitemaps, v)
		}
	}
	return rf
}

// allows applies a group to a path: the longest matching rule wins, Allow
// on a tie (RFC 9309 §2.2.2).
func (g *robotsGroup) allows(path string) bool {
	best, allow := -1, true
	for _, p := range g.disallow {
		if p != "" && strings.HasPrefix(path, p) && len(p) > best {
			best, allow = len(p), false
		}
	}
	for _, p := range g.allow {
		if p != "" && strings.HasPrefix(path, p) && len(p) >= best {
			best, allow = len(p), true
		}
	}
	return allow
}

// privateDirRE matches the directory heads under /private/ that a root
// page links to.
var privateDirRE = regexp.MustCompile(`^/private/[^/]+/$`)

func TestServerRobots(t *testing.T) {
	tests := []struct {
		name   string
		robots RobotsMix
		status int
	}{
		{"200", RobotsMix{CrawlDelay: 0.5, MaxCrawlDelay: 5}, http.StatusOK},
		{"404", RobotsMix{NotFound: 1}, http.StatusNotFound},
		{"500", RobotsMix{ServerError: 1}, http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// 300 pages make three directories, so some hosts have private ones.
			cfg := serverTestConfig(20, 300)
			cfg.Robots = tt.robots
			cfg.Sitemaps = SitemapMix{None: 0.3, Text: 1.0 / 3}
			n := newServerTestNet(t, cfg)
			var delay, noDelay, allow, noAllow, sitemap, noSitemap int
			for _, h := range n.web.Hosts() {
				if h.Robots != tt.name {
					t.Errorf("%s: robots mode %q, want %q (the config forces it)", h.Name, h.Robots, tt.name)
				}
				resp, body := n.get(t, hostURL(h.Name, "/robots.txt"))
				if resp.StatusCode != tt.status {
					t.Errorf("%s/robots.txt: status %d, want %d", h.Name, resp.StatusCode, tt.status)
					continue
				}
				if tt.status != http.StatusOK {
					continue
				}
				if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
					t.Errorf("%s/robots.txt: Content-Type %q, want text/plain", h.Name, ct)
				}
				rf := parseRobots(string(body))
				star := rf.groups["*"]
				if star == nil {
					t.Errorf("%s/robots.txt has no User-agent: * group:\n%s", h.Name, body)
					continue
				}
				if !slices.Contains(star.disallow, "/private/") {
					t.Errorf("%s/robots.txt: Disallow %q, want /private/ among them", h.Name, star.disallow)
				}
				if bad := rf.groups[badBot]; bad == nil || !slices.Contains(bad.disallow, "/") {
					t.Errorf("%s/robots.txt: no group shutting %s out with Disallow: /", h.Name, badBot)
				}

				// The root links to every directory head. With two or more
				// private directories the first one is allowed back.
				_, root := n.getOK(t, hostURL(h.Name, "/"))
				var private []string
				for _, l := range pageLinks(root) {
					if privateDirRE.MatchString(l) {
						private = append(private, l)
					}
				}
				var wantAllow []string
				if len(private) >= 2 {
					wantAllow = private[:1]
					allow++
				} else {
					noAllow++
				}
				if !slices.Equal(star.allow, wantAllow) {
					t.Errorf("%s/robots.txt: Allow %q, want %q (private directories %q)", h.Name, star.allow, wantAllow, private)
				}

				var wantDelay []string
				if h.CrawlDelay > 0 {
					wantDelay = []string{strconv.Itoa(h.CrawlDelay)}
					delay++
					if h.CrawlDelay > cfg.Robots.MaxCrawlDelay {
						t.Errorf("%s: crawl delay %d above the maximum %d", h.Name, h.CrawlDelay, cfg.Robots.MaxCrawlDelay)
					}
				} else {
					noDelay++
				}
				if !slices.Equal(star.crawlDelay, wantDelay) {
					t.Errorf("%s/robots.txt: Crawl-delay %q, want %q", h.Name, star.crawlDelay, wantDelay)
				}

				var wantSitemaps []string
				if h.Sitemap != "none" {
					wantSitemaps = []string{h.SitemapURL}
					sitemap++
				} else {
					noSitemap++
				}
				if !slices.Equal(rf.sitemaps, wantSitemaps) {
					t.Errorf("%s/robots.txt: Sitemap %q, want %q (sitemap mode %s)", h.Name, rf.sitemaps, wantSitemaps, h.Sitemap)
				}
			}
			// Every variant must occur, or the checks above prove little.
			if tt.status == http.StatusOK && min(delay, noDelay, allow, noAllow, sitemap, noSitemap) == 0 {
				t.Errorf("hosts with/without crawl-delay %d/%d, Allow %d/%d, sitemap %d/%d: want each at least 1",
					delay, noDelay, allow, noAllow, sitemap, noSitemap)
			}
		})
	}
}

const sitemapNS = "http://www.sitemaps.org/schemas/sitemap/0.9"

// sitemapDoc is a sitemap as a crawler reads it, children included.
type sitemapDoc struct {
	format   string   // urlset, index or text
	children []string // the child sitemaps of an index
	entries  []sitemapEntry
}

type sitemapEntry struct{ loc, lastmod string }

type xmlSitemap struct {
	XMLName xml.Name
	URLs    []struct {
		Loc     string `xml:"loc"`
		LastMod string `xml:"lastmod"`
	} `xml:"url"`
	Sitemaps []struct {
		Loc string `xml:"loc"`
	} `xml:"sitemap"`
}

func parseSitemapXML(t *testing.T, rawURL string, body []byte) xmlSitemap {
	t.Helper()
	var x xmlSitemap
	if err := xml.Unmarshal(body, &x); err != nil {
		t.Fatalf("%s: %v", rawURL, err)
	}
	if x.XMLName.Space != sitemapNS {
		t.Errorf("%s: namespace %q, want %q", rawURL, x.XMLName.Space, sitemapNS)
	}
	return x
}

// readSitemap fetches and parses a sitemap, and the children of an index.
func (n *serverTestNet) readSitemap(t *testing.T, rawURL string) sitemapDoc {
	t.Helper()
	_, body := n.getOK(t, rawURL)
	if strings.HasSuffix(rawURL, ".txt") {
		doc := sitemapDoc{format: "text"}
		for _, line := range strings.Split(string(body), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				doc.entries = append(doc.entries, sitemapEntry{loc: line})
			}
		}
		return doc
	}
	x := parseSitemapXML(t, rawURL, body)
	switch x.XMLName.Local {
	case "urlset":
		doc := sitemapDoc{format: "urlset"}
		for _, u := range x.URLs {
			doc.entries = append(doc.entries, sitemapEntry{u.Loc, u.LastMod})
		}
		return doc
	case "sitemapindex":
		doc := sitemapDoc{format: "index"}
		for _, sm := range x.Sitemaps {
			doc.children = append(doc.children, sm.Loc)
			_, gz := n.getOK(t, sm.Loc)
			zr, err := gzip.NewReader(bytes.NewReader(gz))
			if err != nil {
				t.Fatalf("%s: not gzip: %v", sm.Loc, err)
			}
			raw, err := io.ReadAll(zr)
			if err != nil {
				t.Fatalf("%s: inflating: %v", sm.Loc, err)
			}
			c := parseSitemapXML(t, sm.Loc, raw)
			if c.XMLName.Local != "urlset" {
				t.Fatalf("%s: root element <%s>, want <urlset>", sm.Loc, c.XMLName.Local)
			}
			for _, u := range c.URLs {
				doc.entries = append(doc.entries, sitemapEntry{u.Loc, u.LastMod})
			}
		}
		return doc
	}
	t.Fatalf("%s: root element <%s>, want <urlset> or <sitemapindex>", rawURL, x.XMLName.Local)
	return sitemapDoc{}
}

func TestServerSitemaps(t *testing.T) {
	// 1,100 pages give an index two children (1,000 URLs each at most).
	cfg := serverTestConfig(20, 1100)
	cfg.Validators = ValidatorMix{}                                 // honest Last-Modified everywhere
	cfg.Robots = RobotsMix{}                                        // every robots.txt answers 200
	cfg.Sitemaps = SitemapMix{None: 0.2, Wrong: 0.2, Text: 1.0 / 3} // all three sitemap modes and formats
	n := newServerTestNet(t, cfg)
	// A month in, some slots hold a later generation of their page, so the
	// sitemaps must list URLs as they are now, not as they were at first.
	n.clock.Set(30 * 24 * time.Hour)
	const pagesPerChild = 1000

	honest := map[string]HostInfo{} // the first honest host of each format
	var none []HostInfo
	var wrong *HostInfo
	for _, h := range n.web.Hosts() {
		switch h.Sitemap {
		case "none":
			none = append(none, h)
		case "honest":
			if f := n.readSitemap(t, h.SitemapURL).format; honest[f].Name == "" {
				honest[f] = h
			}
		case "wrong":
			if wrong == nil && strings.HasSuffix(h.SitemapURL, ".xml") {
				wrong = &h
			}
		}
	}

	// live lists the URLs of a host's live pages, from the truth API.
	live := func(host string) []string {
		var out []string
		n.web.Snapshot(n.clock.Now(), func(u string, _ Version) {
			if strings.HasPrefix(u, hostURL(host, "/")) {
				out = append(out, u)
			}
		})
		return out
	}

	tests := []struct {
		format   string
		children int      // child sitemaps of an index
		notFound []string // sitemap paths of the other formats
	}{
		{"urlset", 0, []string{"/sitemap.txt", "/sitemap-1.xml.gz"}},
		{"index", (cfg.PagesPerHost + pagesPerChild - 1) / pagesPerChild, []string{"/sitemap.txt", "/sitemap-3.xml.gz", "/sitemap-0.xml.gz"}},
		{"text", 0, []string{"/sitemap.xml", "/sitemap-1.xml.gz"}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			h, ok := honest[tt.format]
			if !ok {
				t.Fatalf("no host with an honest %s sitemap among %d; pick another seed", tt.format, cfg.Hosts)
			}
			doc := n.readSitemap(t, h.SitemapURL)
			if len(doc.children) != tt.children {
				t.Errorf("%s: %d child sitemaps, want %d", h.SitemapURL, len(doc.children), tt.children)
			}
			for i, c := range doc.children {
				if want := hostURL(h.Name, fmt.Sprintf("/sitemap-%d.xml.gz", i+1)); c != want {
					t.Errorf("child %d is %s, want %s", i, c, want)
				}
			}
			for _, p := range tt.notFound {
				if resp, _ := n.get(t, hostURL(h.Name, p)); resp.StatusCode != http.StatusNotFound {
					t.Errorf("%s%s: status %d, want 404", h.Name, p, resp.StatusCode)
				}
			}

			// The sitemap lists exactly the live pages robots.txt allows.
			_, rb := n.getOK(t, hostURL(h.Name, "/robots.txt"))
			rules := parseRobots(string(rb)).groups["*"]
			if rules == nil {
				t.Fatalf("%s/robots.txt has no User-agent: * group", h.Name)
			}
			var want []string
			for _, u := range live(h.Name) {
				if rules.allows(strings.TrimPrefix(u, hostURL(h.Name, ""))) {
					want = append(want, u)
				}
			}
			if len(want) == cfg.PagesPerHost {
				t.Fatalf("%s: robots.txt disallows no page, so the private-URL check proves nothing", h.Name)
			}
			var got []string
			reborn := 0
			for _, e := range doc.entries {
				got = append(got, e.loc)
				if _, _, gen, err := n.web.Lookup(e.loc); err == nil && gen > 0 {
					reborn++
				}
				if !rules.allows(strings.TrimPrefix(e.loc, hostURL(h.Name, ""))) {
					t.Errorf("sitemap lists %s, which robots.txt disallows", e.loc)
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("sitemap lists %d URLs, want the %d live allowed pages", len(got), len(want))
			}
			if reborn == 0 {
				t.Errorf("no listed URL is of a page born after the epoch; the check of live URLs proves little")
			}

			// Every URL serves 200; honest lastmod is the page's Last-Modified.
			for _, e := range doc.entries {
				resp, _ := n.getOK(t, e.loc)
				if tt.format == "text" {
					continue
				}
				lm, err := time.Parse(time.RFC3339, e.lastmod)
				if err != nil {
					t.Fatalf("%s: lastmod %q: %v", e.loc, e.lastmod, err)
				}
				hdr, err := http.ParseTime(resp.Header.Get("Last-Modified"))
				if err != nil {
					t.Fatalf("%s: Last-Modified %q: %v", e.loc, resp.Header.Get("Last-Modified"), err)
				}
				if !lm.Equal(hdr) {
					t.Errorf("%s: lastmod %v, Last-Modified %v", e.loc, lm, hdr)
				}
			}
		})
	}

	t.Run("wrong", func(t *testing.T) {
		if wrong == nil {
			t.Fatal("no host with a wrong XML sitemap; pick another seed")
		}
		doc := n.readSitemap(t, wrong.SitemapURL)
		// Wrong lastmod is the last deploy: one date for every page, while
		// the pages themselves changed at different times.
		differs := 0
		for _, e := range doc.entries {
			if e.lastmod != doc.entries[0].lastmod {
				t.Fatalf("%s: lastmod %s and %s differ, want the deploy date on every URL", wrong.SitemapURL, doc.entries[0].lastmod, e.lastmod)
			}
			resp, _ := n.getOK(t, e.loc)
			lm, _ := time.Parse(time.RFC3339, e.lastmod)
			if hdr, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil && !hdr.Equal(lm) {
				differs++
			}
		}
		if len(doc.entries) == 0 || differs == 0 {
			t.Errorf("%s: %d URLs, %d with lastmod unlike Last-Modified; want a wrong lastmod", wrong.SitemapURL, len(doc.entries), differs)
		}
	})

	t.Run("none", func(t *testing.T) {
		if len(none) == 0 {
			t.Fatal("no host without a sitemap; pick another seed")
		}
		for _, h := range none {
			for _, p := range []string{"/sitemap.xml", "/sitemap.txt", "/sitemap-1.xml.gz"} {
				if resp, _ := n.get(t, hostURL(h.Name, p)); resp.StatusCode != http.StatusNotFound {
					t.Errorf("%s%s: status %d, want 404", h.Name, p, resp.StatusCode)
				}
			}
		}
	})
}

func TestServerTransientFaults(t *testing.T) {
	tests := []struct {
		name  string
		spec  string        // ParseFaults rates
		edit  func(*Faults) // sizes and delays
		check func(t *testing.T, n *serverTestNet, host string)
	}{
		{
			name: "5xx",
			spec: "5xx=1",
			check: func(t *testing.T, n *serverTestNet, host string) {
				seen := map[int]int{}
				for i := range 60 {
					path := []string{"/", "/robots.txt", "/sitemap.xml"}[i%3]
					resp, _ := n.get(t, hostURL(host, path))
					seen[resp.StatusCode]++
				}
				for code := range seen {
					if code != 500 && code != 502 && code != 503 {
						t.Errorf("statuses %v, want only 500, 502 and 503", seen)
					}
				}
				if len(seen) != 3 {
					t.Errorf("statuses %v in 60 requests, want all of 500, 502 and 503", seen)
				}
			},
		},
		{
			name: "429 whole seconds",
			spec: "429=1",
			edit: func(f *Faults) { f.RetryAfter = 5 * time.Second },
			check: func(t *testing.T, n *serverTestNet, host string) {
				checkRetryAfter(t, n, host, "5")
			},
		},
		{
			name: "429 rounds up",
			spec: "429=1",
			edit: func(f *Faults) { f.RetryAfter = 1500 * time.Millisecond },
			check: func(t *testing.T, n *serverTestNet, host string) {
				checkRetryAfter(t, n, host, "2")
			},
		},
		{
			name: "429 one nanosecond",
			spec: "429=1",
			edit: func(f *Faults) { f.RetryAfter = time.Nanosecond },
			check: func(t *testing.T, n *serverTestNet, host string) {
				checkRetryAfter(t, n, host, "1")
			},
		},
		{
			name: "slow",
			spec: "slow=1",
			edit: func(f *Faults) { f.SlowDelay = 50 * time.Millisecond },
			check: func(t *testing.T, n *serverTestNet, host string) {
				for range 3 {
					start := time.Now()
					n.getOK(t, hostURL(host, "/"))
					// A lower bound only: the delay is the server's floor.
					if d := time.Since(start); d < 50*time.Millisecond {
						t.Errorf("response after %v, want at least 50ms", d)
					}
				}
			},
		},
		{
			name: "reset",
			spec: "reset=1",
			check: func(t *testing.T, n *serverTestNet, host string) {
				for _, p := range []string{"/", "/robots.txt"} {
					resp, err := n.client.Get(hostURL(host, p))
					if err == nil {
						resp.Body.Close()
						t.Errorf("GET %s: status %d, want a connection error", p, resp.StatusCode)
					}
				}
			},
		},
		{
			name: "none",
			spec: "",
			check: func(t *testing.T, n *serverTestNet, host string) {
				for range 20 {
					n.getOK(t, hostURL(host, "/"))
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := withFaults(t, serverTestConfig(3, 20), tt.spec)
			if tt.edit != nil {
				tt.edit(&cfg.Faults)
			}
			n := newServerTestNet(t, cfg)
			tt.check(t, n, n.web.SiteName(0))
		})
	}
}

func checkRetryAfter(t *testing.T, n *serverTestNet, host, want string) {
	t.Helper()
	for _, p := range []string{"/", "/robots.txt"} {
		resp, _ := n.get(t, hostURL(host, p))
		if resp.StatusCode != http.StatusTooManyRequests {
			t.Errorf("GET %s: status %d, want 429", p, resp.StatusCode)
		}
		if got := resp.Header.Get("Retry-After"); got != want {
			t.Errorf("GET %s: Retry-After %q, want %q", p, got, want)
		}
	}
}

func TestServerRedirects(t *testing.T) {
	const hops = 3
	cfg := withFaults(t, serverTestConfig(3, 50), "redirect=1,loop=1")
	cfg.Faults.RedirectHops = hops
	n := newServerTestNet(t, cfg)
	host := n.web.SiteName(0)
	_, root := n.getOK(t, hostURL(host, "/"))
	page := linkWithPrefix(t, root, "/") // a directory head, linked from the root
	_, pageBody := n.getOK(t, hostURL(host, page))

	t.Run("chain links", func(t *testing.T) {
		// Every page links to a chain that ends at the page itself.
		for _, p := range []struct {
			path string
			body []byte
		}{{"/", root}, {page, pageBody}} {
			link := linkWithPrefix(t, p.body, "/go/")
			if want := "/go/" + strconv.Itoa(hops) + p.path; link != want {
				t.Errorf("page %s links to %s, want %s", p.path, link, want)
			}
			resp, got, err := n.follow(hostURL(host, link), trap.MaxHops)
			if err != nil {
				t.Fatalf("GET %s: %v", link, err)
			}
			if got != hops || resp.StatusCode != http.StatusOK || resp.Request.URL.Path != p.path {
				t.Errorf("GET %s: %d hops to %s (status %d), want %d hops to %s (200)",
					link, got, resp.Request.URL.Path, resp.StatusCode, hops, p.path)
			}
		}
	})

	t.Run("chain lengths", func(t *testing.T) {
		tests := []struct {
			n      int
			status int // of /go/n/...; 0 means it redirects n times to a 200
		}{{1, 0}, {7, 0}, {trap.MaxHops, 0}, {0, http.StatusNotFound}, {trap.MaxHops + 1, http.StatusNotFound}}
		for _, tt := range tests {
			link := fmt.Sprintf("/go/%d%s", tt.n, page)
			resp, got, err := n.follow(hostURL(host, link), trap.MaxHops)
			if err != nil {
				t.Fatalf("GET %s: %v", link, err)
			}
			switch {
			case tt.status != 0 && (resp.StatusCode != tt.status || got != 0):
				t.Errorf("GET %s: %d hops, status %d; want no redirect, status %d", link, got, resp.StatusCode, tt.status)
			case tt.status == 0 && (got != tt.n || resp.StatusCode != http.StatusOK || resp.Request.URL.Path != page):
				t.Errorf("GET %s: %d hops to %s (status %d), want %d hops to %s (200)",
					link, got, resp.Request.URL.Path, resp.StatusCode, tt.n, page)
			}
		}
	})

	t.Run("loop", func(t *testing.T) {
		link := linkWithPrefix(t, root, "/loop/")
		if link != "/loop/a/0" {
			t.Errorf("root links to loop %s, want /loop/a/0", link)
		}
		// The two ends redirect to each other.
		for _, p := range [][2]string{{"/loop/a/0", "/loop/b/0"}, {"/loop/b/0", "/loop/a/0"}} {
			resp, _ := n.get(t, hostURL(host, p[0]))
			if loc := resp.Header.Get("Location"); !isRedirect(resp.StatusCode) || loc != p[1] {
				t.Errorf("GET %s: status %d to %q, want a redirect to %s", p[0], resp.StatusCode, loc, p[1])
			}
		}
		const limit = 10
		_, got, err := n.follow(hostURL(host, link), limit)
		if !errors.Is(err, errTooManyHops) || got != limit+1 {
			t.Errorf("GET %s with a limit of %d hops: %d hops, error %v; want the limit hit", link, limit, got, err)
		}
	})
}

func isRedirect(status int) bool { return status >= 300 && status < 400 }

func TestServerLargeBodies(t *testing.T) {
	t.Run("oversize", func(t *testing.T) {
		const size = 100000
		tests := []struct {
			spec   string
			status int
		}{{"oversize=1", http.StatusOK}, {"", http.StatusNotFound}}
		for _, tt := range tests {
			cfg := withFaults(t, serverTestConfig(3, 20), tt.spec)
			cfg.Faults.OversizeBytes = size
			n := newServerTestNet(t, cfg)
			host := n.web.SiteName(0)
			_, root := n.getOK(t, hostURL(host, "/"))
			link := "/big/0.html"
			if tt.status == http.StatusOK {
				link = linkWithPrefix(t, root, "/big/")
			}
			resp, body := n.get(t, hostURL(host, link))
			if resp.StatusCode != tt.status {
				t.Fatalf("%q: GET %s: status %d, want %d", tt.spec, link, resp.StatusCode, tt.status)
			}
			if tt.status != http.StatusOK {
				continue
			}
			if len(body) != size {
				t.Errorf("GET %s: %d bytes, want %d", link, len(body), size)
			}
			if cl := resp.Header.Get("Content-Length"); cl != "" || resp.ContentLength != -1 {
				t.Errorf("GET %s: Content-Length %q (%d), want none", link, cl, resp.ContentLength)
			}
		}
	})

	t.Run("gzip bomb", func(t *testing.T) {
		tests := []struct {
			name  string
			bytes int64
		}{
			{"4MiB", 4 << 20},
			{"3.5MiB", 7 << 19},
			{"300KiB", 300 << 10},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				cfg := withFaults(t, serverTestConfig(3, 20), "bomb=1")
				cfg.Faults.BombBytes = tt.bytes
				n := newServerTestNet(t, cfg)
				host := n.web.SiteName(0)
				_, root := n.getOK(t, hostURL(host, "/"))
				link := linkWithPrefix(t, root, "/bomb/")
				resp, body := n.getOK(t, hostURL(host, link))
				if ce := resp.Header.Get("Content-Encoding"); ce != "gzip" {
					t.Errorf("GET %s: Content-Encoding %q, want gzip", link, ce)
				}
				// A bomb: the wire size is tiny next to what it inflates to.
				if int64(len(body)) > tt.bytes/100 {
					t.Errorf("GET %s: %d bytes on the wire, want at most %d", link, len(body), tt.bytes/100)
				}
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				inflated, err := io.Copy(io.Discard, io.LimitReader(zr, tt.bytes+1))
				if err != nil {
					t.Fatal(err)
				}
				if inflated != tt.bytes {
					t.Errorf("GET %s inflates to %d bytes, want %d", link, inflated, tt.bytes)
				}
			})
		}
	})
}

func TestServerCalendarTrap(t *testing.T) {
	n := newServerTestNet(t, withFaults(t, serverTestConfig(3, 20), "trap=1"))
	host := n.web.SiteName(0)
	calendar := func(d time.Time) string { return "/calendar/" + d.Format(time.DateOnly) + ".html" }

	t.Run("walk from the root", func(t *testing.T) {
		_, root := n.getOK(t, hostURL(host, "/"))
		link := linkWithPrefix(t, root, "/calendar/")
		day := n.web.Config().Epoch // the clock stands at the epoch
		if want := calendar(day); link != want {
			t.Fatalf("root links to %s, want %s", link, want)
		}
		// Next-day links go on and on: 60 days from the root is enough to
		// show a crawler never runs out.
		for range 60 {
			_, body := n.getOK(t, hostURL(host, link))
			next := calendar(day.AddDate(0, 0, 1))
			if !slices.Contains(pageLinks(body), next) {
				t.Fatalf("%s links to %q, want %s among them", link, pageLinks(body), next)
			}
			link, day = next, day.AddDate(0, 0, 1)
		}
	})

	t.Run("any date", func(t *testing.T) {
		tests := []struct {
			date   string
			status int
		}{
			{"1999-12-31", http.StatusOK},
			{"2024-02-28", http.StatusOK},
			{"2400-02-29", http.StatusOK},
			{"9998-12-31", http.StatusOK},
			{"2026-02-30", http.StatusNotFound},
			{"tomorrow", http.StatusNotFound},
		}
		for _, tt := range tests {
			path := "/calendar/" + tt.date + ".html"
			resp, body := n.get(t, hostURL(host, path))
			if resp.StatusCode != tt.status {
				t.Errorf("GET %s: status %d, want %d", path, resp.StatusCode, tt.status)
				continue
			}
			if tt.status != http.StatusOK {
				continue
			}
			d, _ := time.Parse(time.DateOnly, tt.date)
			links := pageLinks(body)
			for _, want := range []string{calendar(d.AddDate(0, 0, -1)), calendar(d.AddDate(0, 0, 1)), calendar(d.AddDate(0, 1, 0)), calendar(d.AddDate(1, 0, 0))} {
				if !slices.Contains(links, want) {
					t.Errorf("%s links to %q, want %s among them", path, links, want)
				}
			}
		}
	})

	t.Run("no trap", func(t *testing.T) {
		plain := newServerTestNet(t, serverTestConfig(3, 20))
		host := plain.web.SiteName(0)
		_, root := plain.getOK(t, hostURL(host, "/"))
		for _, l := range pageLinks(root) {
			if strings.HasPrefix(l, "/calendar/") {
				t.Errorf("root of a host without a trap links to %s", l)
			}
		}
		if resp, _ := plain.get(t, hostURL(host, "/calendar/2026-01-01.html")); resp.StatusCode != http.StatusNotFound {
			t.Errorf("calendar on a host without a trap: status %d, want 404", resp.StatusCode)
		}
	})
}

// samePages returns the paths of the root of host 0 and the same-site
// pages it links to: pages every web built with the same seed shares.
func samePages(t *testing.T, n *serverTestNet) []string {
	t.Helper()
	_, root := n.getOK(t, hostURL(n.web.SiteName(0), "/"))
	paths := []string{"/"}
	for _, l := range pageLinks(root) {
		if strings.HasPrefix(l, "/") && len(paths) < 12 {
			paths = append(paths, l)
		}
	}
	return paths
}

func TestServerMalformedHTML(t *testing.T) {
	// The same seed with and without the fault: the links must not change.
	cfg := serverTestConfig(5, 300)
	plain := newServerTestNet(t, cfg)
	broken := newServerTestNet(t, withFaults(t, cfg, "malformed=1"))
	host := plain.web.SiteName(0)
	paths := samePages(t, plain)
	if len(paths) < 4 {
		t.Fatalf("only %d pages to compare", len(paths))
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			_, good := plain.getOK(t, hostURL(host, p))
			_, bad := broken.getOK(t, hostURL(host, p))
			if !bytes.Contains(bad, []byte("<A HREF=")) || bytes.Contains(bad, []byte(`<A HREF="`)) {
				t.Errorf("malformed page has no unquoted upper-case <A HREF=...>")
			}
			if bytes.Contains(good, []byte("<A HREF=")) {
				t.Errorf("well-formed page has upper-case <A HREF=...>")
			}
			want, got := pageLinks(good), pageLinks(bad)
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("malformed page links to %q, the well-formed one to %q", got, want)
			}
		})
	}
}

func TestServerCharset(t *testing.T) {
	tests := []struct {
		spec string
		utf8 bool
	}{{"", true}, {"charset=1", false}}
	for _, tt := range tests {
		t.Run(strconv.Quote(tt.spec), func(t *testing.T) {
			n := newServerTestNet(t, withFaults(t, serverTestConfig(3, 300), tt.spec))
			host := n.web.SiteName(0)
			for _, p := range samePages(t, n) {
				resp, body := n.getOK(t, hostURL(host, p))
				ct := resp.Header.Get("Content-Type")
				if tt.utf8 {
					if !utf8.Valid(body) || ct != "text/html; charset=utf-8" {
						t.Errorf("%s: Content-Type %q, valid UTF-8 %v; want charset=utf-8 and valid", p, ct, utf8.Valid(body))
					}
					continue
				}
				if utf8.Valid(body) {
					t.Errorf("%s: body is valid UTF-8, want windows-1252 text", p)
				}
				if strings.Contains(strings.ToLower(ct), "charset") || !strings.HasPrefix(ct, "text/html") {
					t.Errorf("%s: Content-Type %q, want text/html with no charset", p, ct)
				}
				if !bytes.Contains(body, []byte(`<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">`)) {
					t.Errorf("%s: no meta tag declaring windows-1252", p)
				}
				// Decoded as windows-1252 (Latin-1 for these letters), the
				// page carries its accented words intact.
				if text := decodeLatin1(body); !containsAny(text, words.Latin) {
					t.Errorf("%s: no accented word of %q in the decoded page", p, words.Latin)
				}
			}
		})
	}
}

func decodeLatin1(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func TestServerStatus(t *testing.T) {
	n := newServerTestNet(t, serverTestConfig(3, 50))
	host := n.web.SiteName(0)
	tests := []struct {
		method, host, path string
		status             int
		allow              string
	}{
		{http.MethodGet, host, "/", http.StatusOK, ""},
		{http.MethodHead, host, "/", http.StatusOK, ""},
		{http.MethodPost, host, "/", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodDelete, host, "/robots.txt", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodGet, "nosuch.test", "/", http.StatusMisdirectedRequest, ""},
		{http.MethodGet, "h0-com.example", "/", http.StatusMisdirectedRequest, ""},
		{http.MethodGet, host, "/no/such/page.html", http.StatusNotFound, ""},
		{http.MethodGet, host, "/1.html", http.StatusNotFound, ""},
		{http.MethodGet, host, "/favicon.ico", http.StatusNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.host+tt.path, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, hostURL(tt.host, tt.path), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := n.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if got := resp.Header.Get("Allow"); got != tt.allow {
				t.Errorf("Allow %q, want %q", got, tt.allow)
			}
		})
	}
}

func TestServerDeadPages(t *testing.T) {
	n := newServerTestNet(t, serverTestConfig(3, 50))
	const si = 0
	// The mortal slot of site 0 that dies first.
	slot, v := int32(-1), Version{}
	for s := int32(1); s < int32(n.web.PagesPerSite()); s++ {
		if vs := n.web.VersionAt(si, s, 0); vs.Died != math.MaxInt64 && (slot < 0 || vs.Died < v.Died) {
			slot, v = s, vs
		}
	}
	if slot < 0 {
		t.Fatal("no page of site 0 ever dies")
	}
	cur, next := n.web.URL(si, slot, v.Gen), n.web.URL(si, slot, v.Gen+1)

	// The steps share the clock, so they run in order.
	steps := []struct {
		name   string
		at     time.Duration
		status map[string]int
	}{
		{"before the death", 0, map[string]int{cur: http.StatusOK, next: http.StatusNotFound}},
		{"just before the death", time.Duration(v.Died) - 1, map[string]int{cur: http.StatusOK, next: http.StatusNotFound}},
		{"at the death", time.Duration(v.Died), map[string]int{cur: http.StatusNotFound, next: http.StatusOK}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			n.clock.Set(st.at)
			for u, status := range st.status {
				resp, _ := n.get(t, u)
				if resp.StatusCode != status {
					t.Errorf("GET %s at %v: status %d, want %d", u, st.at, resp.StatusCode, status)
				}
				truth, err := n.web.Truth(u, st.at)
				if err != nil {
					t.Fatal(err)
				}
				if truth.Alive != (status == http.StatusOK) {
					t.Errorf("Truth(%s, %v).Alive = %v, but the server says %d", u, st.at, truth.Alive, status)
				}
			}
		})
	}
	if truth, _ := n.web.Truth(cur, time.Duration(v.Died)); truth.Replaced != next {
		t.Errorf("Truth(%s) after its death: replaced by %q, want %s", cur, truth.Replaced, next)
	}
}
