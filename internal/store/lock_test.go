package store

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// envHold names the store the helper process TestHoldLock holds open.
const envHold = "FRESHCRAWL_STORE_HOLD"

// A store open in this process or another cannot be opened again, for
// writing or for reading, and the error wraps ErrLocked; once the holder
// closes it, it opens.
func TestOpenLocked(t *testing.T) {
	tests := []struct {
		name string
		// hold opens the store in dir and returns a function that closes it.
		hold func(t *testing.T, dir string) (release func())
	}{
		{"this process", holdHere},
		{"another process", holdInChild},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			closeTest(t, openTest(t, dir)) // a read-only open needs a store
			release := tt.hold(t, dir)
			for _, readOnly := range []bool{false, true} {
				s, err := Open(dir, Options{NoSync: true, ReadOnly: readOnly})
				if err == nil {
					s.Close()
				}
				if !errors.Is(err, ErrLocked) {
					t.Errorf("second Open (read-only %v): %v, want ErrLocked", readOnly, err)
				}
			}
			release()
			closeTest(t, openTest(t, dir))
		})
	}
}

// Other failures to open are not ErrLocked: a LOCK file that cannot be
// created fails with EACCES too, but in an *fs.PathError.
func TestOpenNotLocked(t *testing.T) {
	tests := []struct {
		name string
		dir  func(t *testing.T) string
	}{
		{"under a file", func(t *testing.T) string {
			file := filepath.Join(t.TempDir(), "file")
			if err := os.WriteFile(file, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(file, "state")
		}},
		{"read-only directory", func(t *testing.T) string {
			if os.Geteuid() == 0 {
				t.Skip("root may write a read-only directory")
			}
			dir := t.TempDir()
			if err := os.Chmod(dir, 0o555); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(dir, 0o755) })
			return dir
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Open(tt.dir(t), Options{NoSync: true})
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if errors.Is(err, ErrLocked) {
				t.Errorf("Open: %v, wrapping ErrLocked", err)
			}
		})
	}
}

func holdHere(t *testing.T, dir string) func() {
	s := openTest(t, dir)
	return func() { closeTest(t, s) }
}

// holdInChild runs TestHoldLock in a child process until release closes
// its stdin.
func holdInChild(t *testing.T, dir string) func() {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHoldLock$")
	cmd.Env = append(os.Environ(), envHold+"="+dir)
	cmd.Stderr = os.Stderr
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
	release := func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("helper process: %v", err)
		}
	}
	ready := make(chan bool, 1)
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
			release()
			t.Fatal("the helper process did not open the store")
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		release()
		t.Fatal("the helper process did not open the store within 10 s")
	}
	return release
}

// TestHoldLock is the helper process of TestOpenLocked: it holds the store
// named by envHold open until its stdin closes.
func TestHoldLock(t *testing.T) {
	dir := os.Getenv(envHold)
	if dir == "" {
		t.Skip("helper process for TestOpenLocked")
	}
	s, err := Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	os.Stdout.WriteString("holding\n")
	io.Copy(io.Discard, os.Stdin)
}
