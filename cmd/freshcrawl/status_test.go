package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/store"
)

// newStore makes a data directory with an empty store and returns it.
func newStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s, err := store.Open(filepath.Join(dir, "state"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestStatusErrors(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, "file", "x")
	tests := []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{"missing directory", []string{"-data", filepath.Join(dir, "none")}, 2, "no data directory"},
		{"a file", []string{"-data", file}, 2, "is not a directory"},
		{"not a crawl", []string{"-data", dir}, 2, "is not a crawl data directory"},
		{"bad flag", []string{"-data"}, 2, "flag needs an argument: -data"},
		{"stray argument", []string{dir}, 2, "unexpected arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"status"}, tt.args...), &stdout, &stderr)
			lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			if code != tt.code || len(lines) != 1 || !strings.Contains(lines[0], tt.contains) || stdout.Len() > 0 {
				t.Errorf("exit %d, want %d and one line containing %q; stderr:\n%s\nstdout:\n%s", code, tt.code, tt.contains, stderr.String(), stdout.String())
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "state")); err == nil {
		t.Errorf("status created %s/state", dir)
	}
}

// An empty store is reported as such, not as an error.
func TestStatusEmpty(t *testing.T) {
	dir := newStore(t)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"status", "-data", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"URLs seen       0\n", "revisits        none scheduled\n", "last fetch      never\n", "WARC files      none\n", "scope           0 hosts; 0 sites\n"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("status does not say %q:\n%s", want, stdout.String())
		}
	}
}

// A data directory whose store another process (or this one) has open is
// reported in one line, exit status 1, by status and report; so is a
// crawl started on it.
func TestStatusInUse(t *testing.T) {
	dir := newStore(t)
	check := func(t *testing.T, command string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args := []string{command, "-data", dir}
		if command == "crawl" {
			args = append(args, "-progress", "0")
		}
		code := run(args, &stdout, &stderr)
		want := "freshcrawl " + command + ": data directory " + dir + " is in use by a running crawl\n"
		if code != 1 || stderr.String() != want {
			t.Errorf("exit %d, stderr %q; want 1, %q", code, stderr.String(), want)
		}
	}
	t.Run("this process", func(t *testing.T) {
		s, err := store.Open(filepath.Join(dir, "state"), store.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		check(t, "status")
		check(t, "report")
		check(t, "crawl")
	})
	t.Run("another process", func(t *testing.T) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHoldStore$")
		cmd.Env = append(os.Environ(), "FRESHCRAWL_HOLD_STORE="+filepath.Join(dir, "state"))
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			stdin.Close()
			_ = cmd.Wait()
		}()
		ready := make(chan bool)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if sc.Text() == "holding" {
					ready <- true
					io.Copy(io.Discard, stdout)
					return
				}
			}
			ready <- false
		}()
		select {
		case ok := <-ready:
			if !ok {
				t.Fatal("the helper process did not open the store")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the helper process did not open the store within 10 s")
		}
		check(t, "status")
		check(t, "report")
		check(t, "crawl")
	})
}

// TestHoldStore is the helper process of TestStatusInUse: it holds the
// store named by FRESHCRAWL_HOLD_STORE open until its stdin closes.
func TestHoldStore(t *testing.T) {
	dir := os.Getenv("FRESHCRAWL_HOLD_STORE")
	if dir == "" {
		t.Skip("helper process for TestStatusInUse")
	}
	s, err := store.Open(dir, store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	os.Stdout.WriteString("holding\n")
	io.Copy(io.Discard, os.Stdin)
}
