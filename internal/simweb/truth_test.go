package simweb

import (
	"io"
	"testing"
	"time"
)

func TestVersionOf(t *testing.T) {
	web, clock := newTestWeb(t, nil)
	clock.Set(30 * 24 * time.Hour) // a month in: pages have changed
	// Every page's body carries the version the truth says is live.
	checked, changed := 0, 0
	for slot := int32(0); slot < 40; slot++ {
		tr, err := web.Truth(web.URL(0, slot, 0), clock.Now())
		if err != nil || !tr.Alive {
			continue
		}
		resp := get(web, tr.URL)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			continue
		}
		v, ok := VersionOf(body)
		if !ok || v != tr.Version {
			t.Errorf("%s: VersionOf = %d, %v; truth %d", tr.URL, v, ok, tr.Version)
		}
		checked++
		if v > 0 {
			changed++
		}
	}
	if checked < 20 || changed == 0 {
		t.Errorf("checked %d pages, %d changed: the test saw too little", checked, changed)
	}
	for _, body := range []string{"", "User-agent: *\n", `<meta name="simweb" content="site=1 version=">`,
		`<meta name="simweb" content="version=12`, `<meta name="other" content="version=3">`} {
		if v, ok := VersionOf([]byte(body)); ok {
			t.Errorf("VersionOf(%q) = %d, true", body, v)
		}
	}
}

func TestAllowed(t *testing.T) {
	// Sites of 200 pages have private directories; smaller ones may not.
	web, _ := newTestWeb(t, func(c *Config) { c.Hosts, c.PagesPerHost = 50, 200 })
	var allowed, denied int
	for _, h := range web.Hosts() {
		root := "http://" + h.Name + "/"
		if got, want := web.Allowed(root, "freshcrawl"), h.Robots != RobotsServerError.String(); got != want {
			t.Errorf("%s (robots %s): Allowed = %v", root, h.Robots, got)
		}
		if h.Robots == RobotsNotFound.String() || h.Robots == RobotsServerError.String() {
			continue
		}
		if web.Allowed(root, "badbot/1.0") {
			t.Errorf("%s allowed to badbot", root)
		}
		if web.Allowed("http://"+h.Name+"/private/x.html", "freshcrawl") {
			t.Errorf("%s: /private/ allowed", h.Name)
		}
	}
	// Across the pages, robots.txt keeps some out, not most.
	web.Snapshot(0, func(u string, _ Version) {
		if web.Allowed(u, "freshcrawl") {
			allowed++
		} else {
			denied++
		}
	})
	if denied == 0 || allowed < denied {
		t.Errorf("%d pages allowed, %d denied", allowed, denied)
	}
	if web.Allowed("http://unknown.test/", "x") || web.Allowed("https://h0-edu.test/", "x") {
		t.Error("an unknown host or scheme is allowed")
	}
}
