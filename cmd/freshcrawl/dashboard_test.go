package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/testtool"
	"github.com/freshcrawl/freshcrawl/internal/ui"
)

// TestDashboard loads the demo's dashboard in headless Chromium during the
// crawl (acceptance 2 of issue 16): every chart has drawn data, the hosts
// table has rows, and the numbers shown lie between what /api/status said
// just before and just after the page was read. It saves a screenshot,
// whose path it logs (FRESHCRAWL_SCREENSHOT names it; by default
// freshcrawl-dashboard.png in the system's temporary directory).
func TestDashboard(t *testing.T) {
	chromium := testtool.Require(t, "chromium")
	url := demoDashboard(t, "-hosts", "10", "-pages", "60", "-budget", "40", "-for", "120s", "-progress", "1s")

	// Wait for a few samples, rate estimates and hosts to draw.
	deadline := time.Now().Add(60 * time.Second)
	for {
		doc, _, err := ui.Fetch(url, 5*time.Second)
		if err == nil && len(doc.Series) >= 5 && len(doc.Rates) > 0 && len(doc.Hosts) > 0 && doc.Live.Held > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo's status did not fill in a minute (last error %v)", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	before, _, err := ui.Fetch(url, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	dom := headless(t, chromium, "--dump-dom", url)
	after, _, err := ui.Fetch(url, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}

	for _, chart := range []string{"chart-rate", "chart-fresh", "chart-rates"} {
		if n := attr(t, dom, chart, "data-points"); n <= 0 {
			t.Errorf("chart %s drew %g points", chart, n)
		}
	}
	if n := attr(t, dom, "chart-rates", "data-curve"); n <= 0 {
		t.Errorf("the rate chart drew no interval curve (%g points)", n)
	}
	for _, c := range []struct {
		id       string
		lo, hi   float64
		monotone bool
	}{
		{"held", float64(before.Live.Held), float64(after.Live.Held), true},
		{"requests", float64(before.Live.Requests), float64(after.Live.Requests), true},
		{"changed", float64(before.Live.Changed), float64(after.Live.Changed), true},
		{"failures", float64(before.Live.Failures), float64(after.Live.Failures), true},
		{"expected", 0, 1, false},
		{"truth", 0, 1, false},
	} {
		v := attr(t, dom, c.id, "data-value")
		if v < c.lo || v > c.hi {
			t.Errorf("%s shows %g; /api/status said %g before the page was read and %g after", c.id, v, c.lo, c.hi)
		}
	}
	if m := regexp.MustCompile(`<tbody data-rows="(\d+)"`).FindSubmatch(dom); m == nil || string(m[1]) == "0" {
		t.Error("the hosts table has no rows")
	}

	shot := os.Getenv("FRESHCRAWL_SCREENSHOT")
	if shot == "" {
		shot = filepath.Join(os.TempDir(), "freshcrawl-dashboard.png")
	}
	headless(t, chromium, "--screenshot="+shot, "--window-size=1280,1400", url)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	t.Logf("dashboard screenshot (%v): %s", img.Bounds().Size(), shot)
	t.Logf("the page showed %g pages held, %g requests; /api/status said %d–%d and %d–%d",
		attr(t, dom, "held", "data-value"), attr(t, dom, "requests", "data-value"),
		before.Live.Held, after.Live.Held, before.Live.Requests, after.Live.Requests)
}

// startDemo runs the demo with args as a process of its own (TestMain),
// its temporary directory under the test's, and returns it and its
// standard output. The demo is interrupted and waited for when the test
// ends, if it has not exited before.
func startDemo(t *testing.T, args ...string) (*exec.Cmd, io.ReadCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"demo"}, args...)...)
	cmd.Env = append(os.Environ(), "FRESHCRAWL_AS_MAIN=1", "TMPDIR="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Signal(syscall.SIGINT)
			cmd.Wait()
		}
	})
	return cmd, out
}

// demoDashboard starts the demo with args and its dashboard on a free
// loopback port, and returns the dashboard's URL; the rest of the demo's
// output is read and dropped.
func demoDashboard(t *testing.T, args ...string) string {
	t.Helper()
	_, out := startDemo(t, append(args, "-listen", "127.0.0.1:0")...)
	r := bufio.NewReader(out)
	url := dashboardURL(t, r)
	go func() { _, _ = r.WriteTo(io.Discard) }()
	return url
}

// dashboardURL reads the demo's header up to the dashboard's URL.
func dashboardURL(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	for range 10 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the demo's header: %v", err)
		}
		if m := regexp.MustCompile(`dashboard on (http://\S+/)`).FindStringSubmatch(line); m != nil {
			return m[1]
		}
	}
	t.Fatal("the demo's header names no dashboard")
	return ""
}

// headless runs Chromium without a screen on url, with a few seconds of
// the page's own time to poll the API and draw, and returns its output.
func headless(t *testing.T, chromium string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=6000"}
	cmd := exec.CommandContext(ctx, chromium, append(base, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.Bytes())
	}
	return out
}

// attr returns the number in attribute name of the element whose id is id.
func attr(t *testing.T, dom []byte, id, name string) float64 {
	t.Helper()
	re := regexp.MustCompile(`<[a-z]+ [^>]*id="` + regexp.QuoteMeta(id) + `"[^>]*>`)
	tag := re.Find(dom)
	if tag == nil {
		t.Fatalf("no element %s in the page", id)
	}
	m := regexp.MustCompile(name + `="([^"]*)"`).FindSubmatch(tag)
	if m == nil {
		t.Fatalf("element %s has no %s: %s", id, name, tag)
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatalf("element %s: %s=%q: %v", id, name, m[1], err)
	}
	return v
}

// TestStatusAddr reads a running demo through status -addr: the status
// table and the running figures, or with -json the /api/status document;
// an address where no crawl answers is one line and exit 1.
func TestStatusAddr(t *testing.T) {
	url := demoDashboard(t, "-hosts", "5", "-pages", "40", "-budget", "40", "-for", "60s")
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/")

	var stdout, stderr bytes.Buffer
	if code := run([]string{"status", "-addr", addr}, &stdout, &stderr); code != 0 {
		t.Fatalf("status -addr: exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"pages held", "URLs queued", "running since", "policy optimal (freshness)", "expected", "true freshness"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("status -addr lacks %q:\n%s", want, stdout.String())
		}
	}
	stdout.Reset()
	if code := run([]string{"status", "-addr", addr, "-json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("status -addr -json: exit %d: %s", code, stderr.String())
	}
	var doc ui.Doc
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil || doc.Live.Policy != "optimal" {
		t.Errorf("status -addr -json: %v, policy %q", err, doc.Live.Policy)
	}
	stderr.Reset()
	if code := run([]string{"status", "-addr", "127.0.0.1:1"}, &stdout, &stderr); code != 1 || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("status -addr with no crawl there: exit %d, %q; want 1 and one line", code, stderr.String())
	}
}
