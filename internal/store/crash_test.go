package store

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Environment of the crash-test child process, and the knob for more kills.
const (
	envCrashDir   = "FRESHCRAWL_STORE_CRASH_DIR"
	envCrashRun   = "FRESHCRAWL_STORE_CRASH_RUN"
	envCrashKills = "FRESHCRAWL_STORE_CRASH_KILLS" // default 5
)

// keepHost's queue is only ever filled by Discover and never popped, so
// after any crash a URL of it is seen exactly when it is queued.
const keepHost = "keep.example"

func TestMain(m *testing.M) {
	if dir := os.Getenv(envCrashDir); dir != "" {
		if err := crashChild(dir, os.Getenv(envCrashRun)); err != nil {
			fmt.Fprintln(os.Stderr, "crash child:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func keepURL(run string, i, j int) string {
	return fmt.Sprintf("https://%s/%s/%d/%d", keepHost, run, i, j)
}

// crashChild writes to the store in a loop with synced commits until it is
// killed, printing "ack <i>" after iteration i has fully committed.
func crashChild(dir, run string) error {
	s, err := Open(dir, Options{})
	if err != nil {
		return err
	}
	out := os.Stdout // unbuffered: a line read by the parent was written after the commit
	fmt.Fprintln(out, "ready")
	rng := rand.New(rand.NewPCG(uint64(len(run)), uint64(time.Now().UnixNano())))
	for i := 0; ; i++ {
		var keep []string
		for j := range 10 {
			keep = append(keep, keepURL(run, i, j))
		}
		if _, err := s.Discover(keepHost, keep); err != nil {
			return err
		}
		host := fmt.Sprintf("h%d.example", rng.IntN(5))
		var urls []string
		for j := range 30 {
			urls = append(urls, fmt.Sprintf("https://%s/%s/%d/%d", host, run, i, j%20)) // a third are duplicates
		}
		fresh, err := s.AddNew(urls)
		if err != nil {
			return err
		}
		var push []string
		for k, u := range urls {
			if fresh[k] {
				push = append(push, u)
			}
		}
		if err := s.Push(host, push); err != nil {
			return err
		}
		if _, err := s.Pop(fmt.Sprintf("h%d.example", rng.IntN(5)), rng.IntN(40)); err != nil {
			return err
		}
		now := time.Now()
		p := Page{URL: keep[0], LastFetch: now, Status: 200, Fetches: uint32(i)}
		if err := s.PutPage(p, Visit{Time: now, Status: 200, Changed: i%2 == 0}); err != nil {
			return err
		}
		fmt.Fprintln(out, "ack", i)
	}
}

// TestCrashConsistency SIGKILLs a writing child process at random moments,
// reopening the same directory each time and checking the store's
// invariants and that every acknowledged write survived.
func TestCrashConsistency(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	kills := 5
	if v := os.Getenv(envCrashKills); v != "" {
		var err error
		if kills, err = strconv.Atoi(v); err != nil {
			t.Fatalf("%s: %v", envCrashKills, err)
		}
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	for k := range kills {
		run := fmt.Sprintf("r%d", k)
		lastAck := crashOnce(t, dir, run, time.Duration(20+rng.IntN(300))*time.Millisecond)
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatalf("kill %d: reopen: %v", k, err)
		}
		checkInvariants(t, s)
		checkKeep(t, s, run, lastAck)
		if lastAck >= 0 {
			if _, err := s.GetPage(keepURL(run, lastAck, 0)); err != nil {
				t.Errorf("kill %d: acknowledged page lost: %v", k, err)
			}
		}
		t.Logf("kill %d: %d iterations acknowledged, %d URLs seen", k, lastAck+1, s.SeenCount())
		closeTest(t, s)
	}
}

// crashOnce runs a child on dir, kills it after delay and returns the last
// iteration it acknowledged, or -1.
func crashOnce(t *testing.T, dir, run string, delay time.Duration) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envCrashDir+"="+dir, envCrashRun+"="+run)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() || sc.Text() != "ready" {
		cmd.Wait()
		t.Fatalf("child did not start: %q, stderr: %s", sc.Text(), stderr.String())
	}
	time.Sleep(delay)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	lastAck := -1
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "ack "); ok {
			if i, err := strconv.Atoi(rest); err == nil {
				lastAck = i
			}
		}
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != -1 {
		t.Fatalf("child ended with %v before the kill; stderr: %s", err, stderr.String())
	}
	return lastAck
}

// checkKeep verifies Discover's atomicity and durability for one run: every
// acknowledged URL is seen, and a keepHost URL is seen if and only if it is
// queued. The iteration after lastAck may or may not have committed.
func checkKeep(t *testing.T, s *Store, run string, lastAck int) {
	t.Helper()
	queued := map[string]bool{}
	lo := queuePrefix(keepHost)
	if err := s.scan(lo, func(_, v []byte) error {
		it, err := decodeItem(v)
		queued[it.URL] = true
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= lastAck+1; i++ {
		for j := range 10 {
			u := keepURL(run, i, j)
			seen, err := s.Seen(u)
			if err != nil {
				t.Fatal(err)
			}
			if i <= lastAck && !seen {
				t.Errorf("acknowledged URL %s lost", u)
			}
			if seen != queued[u] {
				t.Errorf("%s: seen %v but queued %v", u, seen, queued[u])
			}
		}
	}
}

// checkInvariants reads the whole store and checks that the seen counter
// equals the number of seen keys, that each host's items are exactly the
// sequence numbers [head, tail) of its meta row, that no items exist
// without a meta row, and that every visit has its page row.
func checkInvariants(t *testing.T, s *Store) {
	t.Helper()
	var seenKeys uint64
	if err := s.scan([]byte(prefixSeen), func(k, _ []byte) error {
		if len(k) != len(prefixSeen)+hashLen {
			return fmt.Errorf("seen key %x has the wrong length", k)
		}
		seenKeys++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if c := s.SeenCount(); c != seenKeys {
		t.Errorf("SeenCount %d, but %d seen keys", c, seenKeys)
	}

	metas := map[string]queueMeta{}
	if err := s.Hosts(func(h string, n int) error {
		m, err := s.readMeta(h)
		if n == 0 {
			return fmt.Errorf("host %s listed with an empty queue", h)
		}
		metas[h] = m
		return err
	}); err != nil {
		t.Fatal(err)
	}
	next := map[string]uint64{} // expected next sequence number per host
	if err := s.scan([]byte(prefixQueue), func(k, _ []byte) error {
		rest := k[len(prefixQueue):]
		i := bytes.IndexByte(rest, 0)
		if i < 0 || len(rest) != i+9 {
			return fmt.Errorf("malformed queue key %q", k)
		}
		host, seq := string(rest[:i]), binary.BigEndian.Uint64(rest[i+1:])
		m, ok := metas[host]
		if !ok {
			return fmt.Errorf("item %d of host %s has no meta row", seq, host)
		}
		if _, started := next[host]; !started {
			next[host] = m.head
		}
		if seq != next[host] || seq >= m.tail {
			return fmt.Errorf("host %s: item %d, want %d (meta %+v)", host, seq, next[host], m)
		}
		next[host]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for h, m := range metas {
		if next[h] != m.tail {
			t.Errorf("host %s: items end at %d, meta tail %d", h, next[h], m.tail)
		}
	}

	if err := s.scan([]byte(prefixVisit), func(k, v []byte) error {
		if _, err := decodeVisit(v); err != nil {
			return err
		}
		var h urlHash
		copy(h[:], k[len(prefixVisit):])
		p, ok, err := s.get(hashKey(prefixPage, h))
		if err != nil || !ok {
			return fmt.Errorf("visit %x has no page row (%v)", k, err)
		}
		pg, err := decodePage(p)
		if err != nil {
			return err
		}
		if hashURL(pg.URL) != h {
			return fmt.Errorf("page %s stored under the wrong hash", pg.URL)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
