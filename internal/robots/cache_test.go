package robots

import (
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	hour = time.Hour
	day  = 24 * time.Hour
)

var privateRobots = []byte("User-agent: *\nDisallow: /private\n")

// fetch is one answer to a robots.txt request, at t0+at.
type fetch struct {
	at     time.Duration
	status int
}

// state is what a crawler may do at t0+at after the fetches.
type state struct {
	at               time.Duration
	fresh            bool
	private, public  bool          // allowed?
	unreachableSince time.Duration // since t0; -1 for none
}

// TestCacheRecord plays sequences of answers through a Cache with the
// default config and checks the rules of RFC 9309 §2.3.1 and §2.4: a file
// is trusted 24 h; an unreachable file disallows all and is retried within
// the hour; after 30 days unreachable the last good copy, or if none "allow
// all", takes over (§2.3.1.4).
func TestCacheRecord(t *testing.T) {
	tests := []struct {
		name    string
		fetches []fetch
		want    state
	}{
		{"200 fresh before 24 h", []fetch{{0, 200}}, state{23*hour + 59*time.Minute, true, false, true, -1}},
		{"200 stale at 24 h", []fetch{{0, 200}}, state{day, false, false, true, -1}},
		{"404 allows all for 24 h", []fetch{{0, 404}}, state{23 * hour, true, true, true, -1}},
		{"404 stale at 24 h", []fetch{{0, 404}}, state{day, false, true, true, -1}},
		{"503 disallows all", []fetch{{0, 503}}, state{59 * time.Minute, true, false, false, 0}},
		{"503 retried after an hour", []fetch{{0, 503}}, state{hour, false, false, false, 0}},
		{"network error disallows all", []fetch{{0, 0}}, state{0, true, false, false, 0}},
		{"429 disallows all", []fetch{{0, 429}}, state{0, true, false, false, 0}},
		{"5xx replaces a stale good copy", []fetch{{0, 200}, {25 * hour, 500}}, state{25 * hour, true, false, false, 25 * hour}},
		{"the unreachable run keeps its start",
			[]fetch{{0, 200}, {day, 500}, {day + hour, 0}, {day + 2*hour, 503}},
			state{day + 2*hour, true, false, false, day}},
		{"unreachable 29 days: still disallow all",
			[]fetch{{0, 200}, {day, 500}, {30 * day, 500}},
			state{30 * day, true, false, false, day}},
		{"unreachable 30 days: the last good copy",
			[]fetch{{0, 200}, {day, 500}, {31 * day, 500}},
			state{31 * day, true, false, true, day}},
		{"unreachable 30 days, no copy: allow all",
			[]fetch{{0, 500}, {30 * day, 500}},
			state{30 * day, true, true, true, 0}},
		{"a 404 forgets the good copy",
			[]fetch{{0, 200}, {day, 404}, {2 * day, 500}, {32 * day, 500}},
			state{32 * day, true, true, true, 2 * day}},
		{"a 200 ends the unreachable run",
			[]fetch{{0, 500}, {40 * day, 500}, {40*day + hour, 200}},
			state{40*day + hour, true, false, true, -1}},
		{"304 confirms the copy for 24 h",
			[]fetch{{0, 200}, {day, 304}},
			state{day + 23*hour, true, false, true, -1}},
		{"304 confirms the copy after an unreachable run",
			[]fetch{{0, 200}, {day, 503}, {day + hour, 304}},
			state{day + hour, true, false, true, -1}},
		{"304 without a copy is unreachable",
			[]fetch{{0, 304}},
			state{0, true, false, false, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCache(CacheConfig{})
			const key = "https://example.com:443"
			var last Entry
			for _, f := range tt.fetches {
				last = c.Record(key, f.status, privateRobots, t0.Add(f.at))
			}
			e, fresh := c.Get(key, t0.Add(tt.want.at))
			if e != last {
				t.Errorf("Get returned %+v, Record %+v", e, last)
			}
			if fresh != tt.want.fresh {
				t.Errorf("fresh = %v, want %v (expires %v)", fresh, tt.want.fresh, e.Expires.Sub(t0))
			}
			g := e.File.Group("freshcrawl/0.1")
			if got := g.Allowed("/private"); got != tt.want.private {
				t.Errorf("/private allowed %v, want %v", got, tt.want.private)
			}
			if got := g.Allowed("/public"); got != tt.want.public {
				t.Errorf("/public allowed %v, want %v", got, tt.want.public)
			}
			wantSince := time.Time{}
			if tt.want.unreachableSince >= 0 {
				wantSince = t0.Add(tt.want.unreachableSince)
			}
			if !e.UnreachableSince.Equal(wantSince) {
				t.Errorf("UnreachableSince = %v, want %v", e.UnreachableSince, wantSince)
			}
			if f := tt.fetches[len(tt.fetches)-1]; e.Status != f.status || !e.Fetched.Equal(t0.Add(f.at)) {
				t.Errorf("Status, Fetched = %d, %v; want %d, %v", e.Status, e.Fetched, f.status, t0.Add(f.at))
			}
		})
	}
}

func TestCacheConfig(t *testing.T) {
	c := NewCache(CacheConfig{TTL: 2 * hour, ErrorTTL: time.Minute, UnreachableLimit: day})
	if _, fresh := c.Get("k", t0); fresh {
		t.Error("empty cache: fresh")
	}
	if e, _ := c.Get("k", t0); e.File != nil {
		t.Error("empty cache: a File")
	}
	c.Record("k", 200, privateRobots, t0)
	if _, fresh := c.Get("k", t0.Add(2*hour-1)); !fresh {
		t.Error("stale before TTL")
	}
	if _, fresh := c.Get("k", t0.Add(2*hour)); fresh {
		t.Error("fresh at TTL")
	}
	c.Record("k", 500, nil, t0.Add(3*hour))
	if _, fresh := c.Get("k", t0.Add(3*hour+time.Minute)); fresh {
		t.Error("fresh at ErrorTTL")
	}
	e := c.Record("k", 500, nil, t0.Add(3*hour+day))
	if !e.File.Group("x").Allowed("/public") {
		t.Error("UnreachableLimit of a day not applied")
	}
}

// TestCacheEviction: the least recently used entry goes first, and Get
// counts as a use.
func TestCacheEviction(t *testing.T) {
	c := NewCache(CacheConfig{MaxEntries: 3})
	for _, k := range []string{"a", "b", "c"} {
		c.Record(k, 404, nil, t0)
	}
	c.Get("a", t0)              // a is now the most recent: b is the oldest
	c.Record("d", 404, nil, t0) // evicts b
	c.Record("c", 200, nil, t0) // an update is a use: a is the oldest
	c.Record("e", 404, nil, t0) // evicts a
	if n := c.Len(); n != 3 {
		t.Errorf("Len() = %d, want 3", n)
	}
	for k, want := range map[string]bool{"a": false, "b": false, "c": true, "d": true, "e": true} {
		if e, _ := c.Get(k, t0); (e.File != nil) != want {
			t.Errorf("%s present %v, want %v", k, e.File != nil, want)
		}
	}
}

// TestCacheConcurrent is for the race detector.
func TestCacheConcurrent(t *testing.T) {
	c := NewCache(CacheConfig{MaxEntries: 8})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				k := fmt.Sprint((w + i) % 16)
				now := t0.Add(time.Duration(i) * time.Minute)
				if i%3 == 0 {
					c.Record(k, []int{200, 404, 503}[i%3], privateRobots, now)
				} else if e, _ := c.Get(k, now); e.File != nil {
					e.File.Group("x").Allowed("/private/a")
				}
			}
		}()
	}
	wg.Wait()
	if n := c.Len(); n > 8 {
		t.Errorf("Len() = %d beyond MaxEntries", n)
	}
}

func TestKey(t *testing.T) {
	tests := []struct{ url, want string }{
		{"http://example.com/a", "http://example.com:80"},
		{"HTTP://Example.COM:80/b?c", "http://example.com:80"},
		{"https://example.com", "https://example.com:443"},
		{"https://example.com:8443/x", "https://example.com:8443"},
		{"http://[::1]:8080/", "http://[::1]:8080"},
		{"http://[::1]/", "http://[::1]:80"},
		{"http://user:pw@example.com/", "http://example.com:80"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			u, err := url.Parse(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			if got := Key(u); got != tt.want {
				t.Errorf("Key(%s) = %q, want %q", tt.url, got, tt.want)
			}
		})
	}
}
