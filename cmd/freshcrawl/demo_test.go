package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestDemo runs the demo on 4 hosts × 30 pages for three seconds: it says
// what it runs, prints a live line a second with the held pages out of
// those robots.txt allows, then the summary and the mean of the lines
// after the warm-up, and exits 0.
func TestDemo(t *testing.T) {
	var out, errOut bytes.Buffer
	code := runDemo([]string{"-hosts", "4", "-pages", "30", "-for", "3s", "-progress", "1s", "-delay", "10ms",
		"-budget", "200", "-warmup", "1s", "-policy", "uniform"}, &out, &errOut)
	if code != 0 || errOut.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	text := out.String()
	allowed := regexp.MustCompile(`(?m)^demo: simweb of 4 hosts × 30 pages \((\d+) that robots.txt allows\) on 127\.0\.0\.1:\d+, simulated time ×3600$`).FindStringSubmatch(text)
	if allowed == nil {
		t.Fatalf("no first line:\n%s", text)
	}
	for _, want := range []string{"demo: refresh policy uniform; crawl data in ", "rate within 2×\n", " requests, ", "demo: mean of "} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if live := regexp.MustCompile(`(?m)^ +\d+s +\d+[hd]\d\d[mh] +\d+/`+allowed[1]+` `).FindAllString(text, -1); len(live) < 3 {
		t.Errorf("%d live lines, want at least 3:\n%s", len(live), text)
	}
}

// TestDemoBursty crawls a small generated history for three seconds at
// 30 history days a second: the summary gives the budget used and the
// discovery of the pages born during the crawl.
func TestDemoBursty(t *testing.T) {
	var out, errOut bytes.Buffer
	code := runDemo([]string{"-bursty", "-bursty-config", "sites=2,pages=20,growth=2,batches=12", "-group", "10", "-speed", "2592000",
		"-for", "3s", "-progress", "1s", "-delay", "10ms", "-budget", "200", "-warmup", "1s"}, &out, &errOut)
	if code != 0 || errOut.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	text := out.String()
	for _, re := range []string{
		`(?m)^demo: replay of \d+ pages on \d+ hosts \(\d+ that robots.txt allows\) on 127\.0\.0\.1:\d+, simulated time ×2\.592e\+06$`,
		`(?m)^demo: mean of \d+ lines after 1s: fresh [0-9.]+ held [0-9.]+ age\(held\) \S+ budget used [0-9.]+$`,
		`(?m)^demo: discovery: [1-9]\d* pages created during the crawl, \d+ fetched, median lag [0-9.]+ days, \d+ never fetched$`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("output lacks %s:\n%s", re, text)
		}
	}
}

// TestDemoFlags checks that mistakes in the flags exit 2 with one line on
// stderr naming the flag, as every command's do, and that -h prints the
// usage and the flags on stdout.
func TestDemoFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"extra"}, `freshcrawl demo: unexpected arguments ["extra"]`},
		{[]string{"-nope"}, "freshcrawl demo: flag provided but not defined: -nope (see -h)"},
		{[]string{"-log-level", "loud"}, `freshcrawl demo: invalid value "loud" for flag -log-level`},
		{[]string{"-log-format", "xml"}, `freshcrawl demo: -log-format "xml": want one of [text json]`},
		{[]string{"-budget", "-5"}, "freshcrawl demo: -budget -5 is not positive"},
		{[]string{"-progress", "0s"}, "freshcrawl demo: -progress 0s is not positive"},
		{[]string{"-warmup", "-1s"}, "freshcrawl demo: -warmup -1s is negative"},
		{[]string{"-policy", "random"}, `freshcrawl demo: -policy "random": want one of [optimal uniform proportional nutch stormcrawler roundrobin lambdacrawl binary-poisson]`},
		{[]string{"-sitemap-wrong", "0.9"}, "sitemap shares add to more than 1"},
		{[]string{"-objective", "speed"}, `-objective "speed": want one of`},
		{[]string{"-hosts", "0"}, "hosts must be at least 1"},
		{[]string{"-replay", "testdata/no-such.tsv"}, "freshcrawl demo: -replay: open testdata/no-such.tsv"},
		{[]string{"-bursty", "-bursty-config", "speed=2"}, `freshcrawl demo: -bursty-config: bursty "speed=2": unknown name`},
		{[]string{"-bursty", "-from", "soon"}, `freshcrawl demo: -from "soon": want YYYY-MM-DD or RFC 3339`},
		{[]string{"-bursty", "-replay", "x.tsv"}, "-replay and -bursty: choose one"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runDemo(tt.args, &out, &errOut)
			checkUsageError(t, code, errOut.String(), tt.want)
		})
	}
	var out, errOut bytes.Buffer
	if code := runDemo([]string{"-h"}, &out, &errOut); code != 0 || errOut.Len() != 0 ||
		!strings.HasPrefix(out.String(), "Usage: freshcrawl demo [flags]") || !strings.Contains(out.String(), "-warmup duration") {
		t.Errorf("-h: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}
