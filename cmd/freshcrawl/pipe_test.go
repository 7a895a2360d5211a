package main

import (
	"bufio"
	"os"
	"regexp"
	"testing"
	"time"
)

// TestMain lets a test run the command as a process of its own (the test
// binary, re-executed with FRESHCRAWL_AS_MAIN set), for what only a
// process shows: signals, exit on a broken pipe.
func TestMain(m *testing.M) {
	if os.Getenv("FRESHCRAWL_AS_MAIN") != "" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestDemoBrokenPipe reads the demo's first three lines and closes the
// pipe, as `freshcrawl demo | head -3` does: the demo must stop promptly
// and remove its temporary data directory (killed by SIGPIPE, it left it
// behind).
func TestDemoBrokenPipe(t *testing.T) {
	cmd, out := startDemo(t, "-hosts", "5", "-pages", "20", "-for", "60s", "-progress", "100ms")
	r := bufio.NewReader(out)
	var dir string
	for range 3 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the header: %v", err)
		}
		if m := regexp.MustCompile(`crawl data in (\S+)`).FindStringSubmatch(line); m != nil {
			dir = m[1]
		}
	}
	if _, err := os.Stat(dir); dir == "" || err != nil {
		t.Fatalf("no temporary data directory in the header (%q): %v", dir, err)
	}
	out.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Logf("exit: %v", err)
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the demo ran on after its output was closed")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s is still there (%v)", dir, err)
	}
}
