package store

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
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

// keepHost's queue is only ever filled, never taken from, so after any
// crash a URL of it is seen exactly when it is queued.
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

// runCounter names the counter of the iterations one run has committed.
func runCounter(run string) string { return "iterations/" + run }

// crashChild writes to the store in a loop with synced commits until it is
// killed, printing "ack <i>" after iteration i has committed. An iteration
// is one transaction shaped like the crawler's commit of fetched pages: it
// takes items off the head of a random host's queue, writes the page row
// and a visit of keepURL(run, i, 0), queues ten new keepHost URLs and
// thirty links on a random host (a third of them repeats), and adds one to
// the run's counter.
func crashChild(dir, run string) error {
	s, err := Open(dir, Options{})
	if err != nil {
		return err
	}
	out := os.Stdout // unbuffered: a line read by the parent was written after the commit
	fmt.Fprintln(out, "ready")
	rng := rand.New(rand.NewPCG(uint64(len(run)), uint64(time.Now().UnixNano())))
	for i := 0; ; i++ {
		tx := s.Begin()
		if err := crashIteration(s, tx, rng, run, i); err != nil {
			tx.Abort()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		fmt.Fprintln(out, "ack", i)
	}
}

// crashIteration stages iteration i of crashChild in tx.
func crashIteration(s *Store, tx *Txn, rng *rand.Rand, run string, i int) error {
	from := fmt.Sprintf("h%d.example", rng.IntN(5))
	done, err := s.Peek(from, 0, rng.IntN(40))
	if err != nil {
		return err
	}
	for _, it := range done {
		if err := tx.Done(from, it.Seq); err != nil {
			return err
		}
	}
	now := time.Now()
	p := Page{URL: keepURL(run, i, 0), LastFetch: now, Status: 200, Fetches: uint32(i)}
	if err := tx.PutPage(p, &Visit{Time: now, Status: 200, Changed: i%2 == 0}); err != nil {
		return err
	}
	var keep, links []Item
	for j := range 10 {
		keep = append(keep, Item{URL: keepURL(run, i, j)})
	}
	if _, _, err := tx.Enqueue(keepHost, keep, 0); err != nil {
		return err
	}
	host := fmt.Sprintf("h%d.example", rng.IntN(5))
	for j := range 30 {
		links = append(links, Item{URL: fmt.Sprintf("https://%s/%s/%d/%d", host, run, i, j%20)}) // a third are repeats
	}
	if _, _, err := tx.Enqueue(host, links, 0); err != nil {
		return err
	}
	tx.Add(runCounter(run), 1)
	return nil
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

// checkKeep verifies the atomicity and durability of one run's
// transactions: every acknowledged iteration is there, and each iteration
// is there whole or not at all: its keepHost URLs seen exactly when they
// are queued, its page row and its count in the run's counter with them.
// The iteration after lastAck may or may not have committed.
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
	committed := 0
	for i := 0; i <= lastAck+1; i++ {
		first, err := s.Seen(keepURL(run, i, 0))
		if err != nil {
			t.Fatal(err)
		}
		if first {
			committed++
		}
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
			if seen != first {
				t.Errorf("iteration %d partly committed: %s seen %v, %s seen %v", i, keepURL(run, i, 0), first, u, seen)
			}
		}
		_, err = s.GetPage(keepURL(run, i, 0))
		if err != nil && !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
		if page := err == nil; page != first {
			t.Errorf("iteration %d partly committed: page row %v, URLs seen %v", i, page, first)
		}
	}
	if n, err := s.Counter(runCounter(run)); err != nil || n != int64(committed) {
		t.Errorf("Counter(%s) = %d, %v; want the %d iterations committed", runCounter(run), n, err, committed)
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
