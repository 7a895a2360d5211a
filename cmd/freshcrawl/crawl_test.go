package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/datadir"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

// Every flag of every command is explained by its -h.
func TestHelpListsEveryFlag(t *testing.T) {
	tests := []struct {
		command string
		flags   *flag.FlagSet
	}{
		{"crawl", crawlFlags(&crawlOptions{})},
		{"status", statusFlags(new(string), new(string), new(bool))},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run([]string{tt.command, "-h"}, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d", code)
			}
			help := stdout.String()
			tt.flags.VisitAll(func(f *flag.Flag) {
				if !regexp.MustCompile(`(?m)^  -` + regexp.QuoteMeta(f.Name) + `\b`).MatchString(help) {
					t.Errorf("-h does not list -%s", f.Name)
				}
			})
			if stderr.Len() > 0 {
				t.Errorf("stderr: %s", stderr.String())
			}
		})
	}
}

// Mistakes in what the user asked for exit with status 2 and one line on
// stderr, and create no data directory.
func TestCrawlUsageErrors(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	unknownKey := writeFile(t, "unknown.toml", "budget = 2\nbudjet = 3\n")
	badType := writeFile(t, "type.toml", "workers = \"many\"\n")
	badDuration := writeFile(t, "duration.toml", "delay = \"1 sec\"\n")
	badSyntax := writeFile(t, "syntax.toml", "seeds = [\n")
	unreadable := writeFile(t, "unreadable.toml", "budget = 2\n")
	if err := os.Chmod(unreadable, 0); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		contains string
	}{
		{"bad seed", []string{"-seed", "http://exa mple.com/"}, `seed "http://exa mple.com/"`},
		{"bad seed scheme", []string{"-seed", "mailto:a@b.example"}, "invalid crawl configuration"},
		{"unknown flag", []string{"-nope"}, "flag provided but not defined: -nope"},
		{"bad flag value", []string{"-budget", "fast"}, `invalid value "fast" for flag -budget`},
		{"bad resolve", []string{"-resolve", "*.test"}, "want NAME=HOST:PORT"},
		{"bad scope", []string{"-scope", "web"}, "want host, site or any"},
		{"bad log level", []string{"-log-level", "loud"}, "-log-level"},
		{"bad log format", []string{"-seed", "http://a.example/", "-log-format", "xml"}, `-log-format "xml": want one of [text json]`},
		{"negative budget", []string{"-seed", "http://a.example/", "-budget", "-1"}, "-budget -1 is negative"},
		{"no workers", []string{"-seed", "http://a.example/", "-workers", "0"}, "-workers 0"},
		{"bad policy", []string{"-seed", "http://a.example/", "-policy", "fastest"}, `-policy "fastest": want one of`},
		{"bad objective", []string{"-seed", "http://a.example/", "-objective", "speed"}, `-objective "speed": want one of`},
		{"zero crawl cost", []string{"-seed", "http://a.example/", "-crawl-cost", "0s"}, "-crawl-cost 0s is not positive"},
		{"stray argument", []string{"http://a.example/"}, "unexpected arguments"},
		{"loopback seed", []string{"-seed", "http://127.0.0.1:9/"}, "127.0.0.1 is a private or loopback address, which the crawler refuses; -allow-private crawls it"},
		{"seed resolved to a private address", []string{"-seed", "http://a.test/", "-resolve", "a.test=10.1.2.3:80"}, "seed http://a.test/: 10.1.2.3 is a private"},
		{"no seeds, fresh directory", nil, "give -seed"},
		{"missing seeds file", []string{"-seeds", filepath.Join(dir, "none.txt")}, "no such file"},
		{"missing config", []string{"-config", filepath.Join(dir, "none.toml")}, "no such file"},
		{"unreadable config", []string{"-config", unreadable}, "permission denied"},
		{"config is a directory", []string{"-config", dir}, "is a directory"},
		{"unknown config key", []string{"-config", unknownKey}, `unknown.toml:2: unknown key "budjet"`},
		{"config value of the wrong type", []string{"-config", badType}, "type.toml:1:11: workers: cannot decode TOML string into int"},
		{"config duration", []string{"-config", badDuration}, `delay = "1 sec": not a duration`},
		{"config syntax", []string{"-config", badSyntax}, "syntax.toml:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "unreadable config" && os.Geteuid() == 0 {
				t.Skip("root reads any file")
			}
			var stdout, stderr bytes.Buffer
			args := append([]string{"crawl", "-data", data, "-progress", "0"}, tt.args...)
			code := run(args, &stdout, &stderr)
			lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			if code != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], "freshcrawl crawl: ") || !strings.Contains(lines[0], tt.contains) {
				t.Errorf("exit %d, want 2 and one line containing %q; stderr:\n%s", code, tt.contains, stderr.String())
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout: %s", stdout.String())
			}
			if _, err := os.Stat(data); err == nil {
				t.Errorf("%s was created", data)
			}
		})
	}
}

// testWeb serves a small simweb on loopback and returns the crawl flags
// that reach it and the flags that name its hosts as seeds.
func testWeb(t *testing.T) (net, seeds []string) {
	t.Helper()
	sc := simweb.DefaultConfig()
	sc.Hosts, sc.PagesPerHost = 3, 20
	web, err := simweb.New(sc, simweb.NewWallClock(1))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(web)
	t.Cleanup(srv.Close)
	net = []string{"-resolve", "*.test=" + srv.Listener.Addr().String(), "-allow-private", "-scope", "any", "-delay", "10ms", "-log-level", "warn"}
	for _, h := range web.Hosts() {
		seeds = append(seeds, "-seed", "http://"+h.Name+"/")
	}
	return net, seeds
}

// summaryRE reads the summary line's numbers.
var summaryRE = regexp.MustCompile(`^freshcrawl crawl: (stopped|interrupted|finished) after \S+: (\d+) requests \((\d+) robots.txt, (\d+) failed\), (\d+) fetches \((\d+) changed, (\d+) not modified\), (\d+) pages held, (\d+) URLs seen \((\d+) disallowed by robots.txt\), (\d+) hosts, .* received\n$`)

func summaryNumbers(t *testing.T, out string) (how string, n []int64) {
	t.Helper()
	m := summaryRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no summary line in stdout:\n%s", out)
	}
	for _, s := range m[2:] {
		v, _ := strconv.ParseInt(s, 10, 64)
		n = append(n, v)
	}
	return m[1], n
}

// A crawl of a small web for 2 s exits 0 with a summary; status then
// reports the same numbers from the data directory, in both forms; a
// second run resumes without seeds and stops promptly on SIGINT.
func TestCrawlThenStatus(t *testing.T) {
	netArgs, seedArgs := testWeb(t)
	data := filepath.Join(t.TempDir(), "data")
	var stdout, stderr syncBuffer
	args := append(append([]string{"crawl", "-data", data, "-for", "2s", "-progress", "500ms"}, netArgs...), seedArgs...)
	start := time.Now()
	code := run(args, &stdout, &stderr)
	t.Logf("crawl took %v; stderr:\n%s", time.Since(start), stderr.String())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	how, n := summaryNumbers(t, stdout.String())
	fetches, changed, held, seen := n[3], n[4], n[6], n[7]
	if how != "stopped" || held == 0 || seen < held {
		t.Errorf("summary: %s", stdout.String())
	}
	if !regexp.MustCompile(`(?m)^ +\d+s  held \d+  [\d.]+ fetches/s  requests \d+  failures \d+  queued \d+  seen \d+  hosts \d+  in flight \d+  budget used [\d.]+% \([\d.]+% since start\)$`).MatchString(stderr.String()) {
		t.Errorf("no progress line on stderr")
	}

	// The summary counts from the crawler's memory, status from the
	// rows on disk; a fresh crawl's two must agree exactly.
	var out, errOut bytes.Buffer
	if code := run([]string{"status", "-data", data, "-json"}, &out, &errOut); code != 0 {
		t.Fatalf("status -json: exit %d: %s", code, errOut.String())
	}
	var st datadir.Status
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatalf("status -json: %v\n%s", err, out.String())
	}
	c := st.ByClass
	switch {
	case st.Held != held || st.HeldRows != held:
		t.Errorf("status: %d held, %d rows held; the crawl said %d", st.Held, st.HeldRows, held)
	case int64(st.Seen) != seen:
		t.Errorf("status: %d URLs seen; the crawl said %d", st.Seen, seen)
	case int64(st.Fetches) != fetches || int64(st.Changes) != changed:
		t.Errorf("status: %d fetches, %d changes; the crawl said %d, %d", st.Fetches, st.Changes, fetches, changed)
	case c.Success+c.NotModified+c.Redirect+c.ClientError+c.ServerError+c.Network+c.Other != st.Rows ||
		st.Rows+st.SitemapRows > int64(st.Seen):
		t.Errorf("status: %d page rows, by class %+v, %d seen", st.Rows, c, st.Seen)
	case st.Scheduled < held || st.DueHosts == 0 || st.NextDue.IsZero():
		t.Errorf("status: %d revisits scheduled on %d hosts (next %v) for %d pages held", st.Scheduled, st.DueHosts, st.NextDue, held)
	case st.WARC.Files < 1 || st.WARC.Bytes == 0 || st.WARC.Newest == "":
		t.Errorf("status: WARC %+v", st.WARC)
	case len(st.ScopeHosts) != 3 || len(st.ScopeSites) != 3:
		t.Errorf("status: scope %q, %q", st.ScopeHosts, st.ScopeSites)
	case st.LastFetch.Before(start) || st.LastFetch.After(time.Now()):
		t.Errorf("status: last fetch %v", st.LastFetch)
	case st.LastRun == nil || st.LastRun.Requests != n[0] || st.LastRun.Budget != 10 || st.LastRun.SinceStart <= 0:
		t.Errorf("status: last run %+v; the crawl made %d requests at 10/s", st.LastRun, n[0])
	}

	out.Reset()
	if code := run([]string{"status", "-data", data}, &out, &errOut); code != 0 {
		t.Fatalf("status: exit %d: %s", code, errOut.String())
	}
	t.Logf("status:\n%s", out.String())
	for _, want := range []string{
		"URLs seen       " + strconv.FormatInt(seen, 10) + "\n",
		"pages held      " + strconv.FormatInt(held, 10) + "\n",
		"WARC files      " + strconv.Itoa(st.WARC.Files) + ", ",
		"scope           3 hosts (",
		"budget used     ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status does not say %q", want)
		}
	}

	// estimate reads the same held pages, and the crawler's own rule gives
	// every one a rate (the prior's, before any revisit).
	out.Reset()
	if code := run([]string{"estimate", "-data", data, "-json"}, &out, &errOut); code != 0 {
		t.Fatalf("estimate: exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if int64(len(lines)) != held {
		t.Errorf("estimate: %d pages, want the %d held", len(lines), held)
	}
	for _, l := range lines {
		var p jsonPage
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatalf("estimate -json: %v: %s", err, l)
		}
		if len(p.Estimates) != 1 || p.Estimates[0].Estimator != "auto" || p.Estimates[0].Rate == nil || !(*p.Estimates[0].Rate > 0) {
			t.Errorf("estimate -json: %s", l)
			break
		}
	}

	t.Run("resume and SIGINT", func(t *testing.T) {
		var stdout, stderr syncBuffer
		done := make(chan int)
		// Without -scope: the crawl keeps its own, any.
		resume := slices.DeleteFunc(slices.Clone(netArgs), func(a string) bool { return a == "-scope" || a == "any" })
		go func() {
			done <- run(append([]string{"crawl", "-data", data, "-progress", "0"}, resume...), &stdout, &stderr)
		}()
		// The start line comes after the signal handler is in place.
		for deadline := time.Now().Add(5 * time.Second); !strings.Contains(stderr.String(), "0 seeds, scope any,"); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no start line with the crawl's own scope; stderr:\n%s", stderr.String())
			}
		}
		time.Sleep(300 * time.Millisecond)
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		sent := time.Now()
		select {
		case code := <-done:
			took := time.Since(sent)
			t.Logf("stopped %v after SIGINT", took)
			if took > 2*time.Second {
				t.Errorf("took %v to stop, want at most 2 s", took)
			}
			if code != 0 {
				t.Errorf("exit %d; stderr:\n%s", code, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no exit within 10 s of SIGINT")
		}
		how, n := summaryNumbers(t, stdout.String())
		if how != "interrupted" || n[6] == 0 {
			t.Errorf("summary: %s", stdout.String())
		}
	})
}

// A crawl without seeds on a data directory whose store is empty has
// nothing to resume.
func TestCrawlNoSeedsEmptyStore(t *testing.T) {
	dir := newStore(t)
	var stdout, stderr bytes.Buffer
	code := run([]string{"crawl", "-data", dir, "-progress", "0"}, &stdout, &stderr)
	want := "freshcrawl crawl: no seeds, and " + dir + " holds no crawl to resume: give -seed URL or -seeds FILE\n"
	if code != 2 || stderr.String() != want || stdout.Len() > 0 {
		t.Errorf("exit %d, stderr %q, stdout %q; want 2, %q", code, stderr.String(), stdout.String(), want)
	}
}

// TestCrawlLogJSON crawls a seed nobody answers with -log-format json:
// the crawl's log lines on stderr are JSON objects, the failed fetch one
// of them at level WARN.
func TestCrawlLogJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"crawl", "-data", filepath.Join(t.TempDir(), "data"), "-seed", "http://127.0.0.1:9/", "-allow-private",
		"-for", "1500ms", "-progress", "0", "-log-format", "json", "-log-level", "warn"}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	warned := false
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if strings.HasPrefix(line, "freshcrawl crawl: ") {
			continue // the start line
		}
		var rec struct{ Level, Msg string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("log line not JSON: %q (%v)", line, err)
		}
		warned = warned || rec.Level == "WARN" && rec.Msg == "fetch failed"
	}
	if !warned {
		t.Errorf("no WARN fetch failed record; stderr:\n%s", stderr.String())
	}
}
