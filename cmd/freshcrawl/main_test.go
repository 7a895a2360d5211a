package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/simweb"
	"github.com/freshcrawl/freshcrawl/internal/world"
)

func TestCommandLine(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		contains string // in stdout+stderr
	}{
		{"no arguments", nil, 2, "Commands:"},
		{"help", []string{"help"}, 0, "simweb"},
		{"unknown command", []string{"fly"}, 2, `unknown command "fly"`},
		{"simweb -h", []string{"simweb", "-h"}, 0, "-speed"},
		{"help simweb", []string{"help", "simweb"}, 0, "-faults"},
		{"bad flag", []string{"simweb", "-nope"}, 2, "flag provided but not defined"},
		{"bad faults", []string{"simweb", "-faults", "5xx=3"}, 2, "rate must be a number in [0, 1]"},
		{"bad config", []string{"simweb", "-hosts", "0"}, 2, "hosts must be at least 1"},
		{"bad epoch", []string{"simweb", "-epoch", "yesterday"}, 2, "-epoch"},
		{"stray argument", []string{"simweb", "extra"}, 2, "unexpected arguments"},
		{"describe", []string{"simweb", "-describe", "-hosts", "5", "-pages", "40"}, 0, "simweb: 5 hosts, 200 pages"},
		{"describe json", []string{"simweb", "-describe", "-json", "-hosts", "3", "-pages", "10"}, 0, `"IntraShare"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			code := run(tt.args, &out, &out)
			if code != tt.code || !strings.Contains(out.String(), tt.contains) {
				t.Errorf("exit %d, want %d; output does not contain %q:\n%s", code, tt.code, tt.contains, out.String())
			}
		})
	}
}

// TestHelp asks every command for -h: each answers with its usage line and
// its flags, and exits 0 (the long help of most is a text file, which
// must be there).
func TestHelp(t *testing.T) {
	for _, c := range commands() {
		var out bytes.Buffer
		code := run([]string{c.name, "-h"}, &out, &out)
		if code != 0 || !strings.Contains(out.String(), "Usage: freshcrawl "+c.name) || !strings.Contains(out.String(), "  -") {
			t.Errorf("%s -h: exit %d, output:\n%s", c.name, code, out.String())
		}
	}
}

// TestFlagErrorsOneLine gives every command a flag it does not know: each
// answers in the same style, one line on stderr naming the command and
// the flag, nothing on stdout, exit 2 (demo and simweb printed their whole
// help).
func TestFlagErrorsOneLine(t *testing.T) {
	for _, c := range commands() {
		var out, errOut bytes.Buffer
		code := run([]string{c.name, "-nope"}, &out, &errOut)
		checkUsageError(t, code, errOut.String(), "freshcrawl "+c.name+": flag provided but not defined: -nope")
		if out.Len() > 0 {
			t.Errorf("%s -nope: stdout %q", c.name, out.String())
		}
	}
}

// checkUsageError fails t unless a command exited with status 2 and one
// line on stderr that contains want, as every mistake in a command line
// does.
func checkUsageError(t *testing.T, code int, stderr, want string) {
	t.Helper()
	if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q: want 2 and one line with %q", code, stderr, want)
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serve answers on both listeners, reaches hosts as a proxy, and stops
// promptly when its context ends.
func TestServe(t *testing.T) {
	cfg := simweb.DefaultConfig()
	cfg.Hosts, cfg.PagesPerHost = 3, 20
	web, err := simweb.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan int)
	banner := func(a net.Addr) string { return "simweb: web on http://" + a.String() + " (test)" }
	go func() {
		done <- serve(ctx, world.PoissonWorld{Web: web}, "127.0.0.1:0", "127.0.0.1:0", banner, &out, &out)
	}()
	re := regexp.MustCompile(`web on http://(\S+) .*\n.*control on http://(\S+) `)
	var m []string
	for deadline := time.Now().Add(5 * time.Second); m == nil && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		m = re.FindStringSubmatch(out.String())
	}
	if m == nil {
		cancel()
		t.Fatalf("no addresses printed:\n%s", out.String())
	}
	proxy, _ := url.Parse("http://" + m[1])
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}
	resp, err := c.Get("http://" + web.SiteName(1) + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), "<title>H1-") {
		t.Errorf("root page via proxy: %d %.80q", resp.StatusCode, b)
	}
	resp, err = http.Get("http://" + m[2] + "/audit")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("control /audit: %d", resp.StatusCode)
	}
	start := time.Now()
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not stop within 5 s of cancellation")
	}
	t.Logf("stopped in %v", time.Since(start))
}
