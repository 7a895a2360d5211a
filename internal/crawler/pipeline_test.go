package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/warc"
)

// TestIdleTaskStalls gives a host a queue in memory that the store does
// not hold (a stale view): its first task finds nothing, and the host must
// wait for that outcome's commit and its fresh view, not be handed out
// again and again meanwhile (an idle task makes no request and costs no
// budget, so nothing else holds it back).
func TestIdleTaskStalls(t *testing.T) {
	at := serve(t, http.NotFoundHandler())
	dir := t.TempDir()
	cfg := testConfig(t, dir, at)
	cfg.Seeds = []string{"http://seed.test/"}
	cfg.Workers = 4
	w, err := warc.NewWriter(warc.WriterConfig{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Archive, cfg.NoSync = slowSync{w}, false // commits take a while: time to spin in
	c := newCrawler(t, cfg)
	s := c.sched
	s.mu.Lock()
	h := s.get("x.test", cfg.Delay)
	h.queued = 3          // not in the store
	h.ready = time.Time{} // a host met before this run: no wait after the open
	s.queued.Add(3)
	s.update(h)
	s.mu.Unlock()
	runFor(t, c, 300*time.Millisecond)
	s.mu.Lock()
	handed, queued := h.handed, h.queued
	s.mu.Unlock()
	if handed > 2 || queued != 0 {
		t.Errorf("x.test: %d tasks found nothing, queue %d after; want at most 2 tasks and an empty queue", handed, queued)
	}
}

// TestIdleViewCountsQueuedOnce releases a task that found nothing in the
// batch that queued n URLs on its host: the host's fresh view, read after
// the batch committed, holds them already, and release must not add them
// again.
func TestIdleViewCountsQueuedOnce(t *testing.T) {
	at := serve(t, http.NotFoundHandler())
	cfg := testConfig(t, t.TempDir(), at)
	cfg.Seeds = []string{"http://seed.test/"}
	c := newCrawler(t, cfg)
	const host, n = "x.test", 5
	txn := c.store.Begin() // the batch's transaction, committed
	var items []store.Item
	for i := range n {
		items = append(items, store.Item{URL: fmt.Sprintf("http://x.test/%d", i), Kind: store.KindPage})
	}
	if _, _, err := txn.Enqueue(host, items, 0); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	s := c.sched
	s.mu.Lock()
	h := s.get(host, cfg.Delay)
	s.uncommitted++ // as handBack counts an outcome
	h.pending++
	s.mu.Unlock()
	c.release([]outcome{{t: task{h: h}}}, []*record{nil}, map[string]int{host: n})
	s.mu.Lock()
	defer s.mu.Unlock()
	sum := 0
	for _, h := range s.hosts {
		sum += h.queued
	}
	if got, _ := c.store.Len(host); h.queued != got || s.queued.Load() != int64(sum) {
		t.Errorf("h.queued %d, the store holds %d; scheduler's total %d, the hosts' sum %d", h.queued, got, s.queued.Load(), sum)
	}
}

// slowSync is an Archive whose syncs take 20 ms.
type slowSync struct{ Archive }

func (a slowSync) Sync() error {
	time.Sleep(20 * time.Millisecond)
	return a.Archive.Sync()
}

// encodeFailing is an Archive whose n-th response record fails to encode.
type encodeFailing struct {
	Archive
	n, calls atomic.Int64
}

var errEncode = errors.New("encoding failed")

func (a *encodeFailing) EncodeResponse(r warc.Response) (*warc.Encoded, error) {
	if a.calls.Add(1) == a.n.Load() {
		return nil, errEncode
	}
	return a.Archive.EncodeResponse(r)
}

// TestProcessErrorIsRunsError fails a page's WARC encoding, which happens
// after its host was handed back: the crawl stops, and Run returns that
// error, not one of the commits it broke (the page's queue item, taken,
// never leaves the queue, so the host's next outcome is out of order).
func TestProcessErrorIsRunsError(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>")
		if r.URL.Path == "/" {
			for i := range 60 {
				fmt.Fprintf(w, `<a href="/p%d">x</a>`, i)
			}
		}
		fmt.Fprint(w, "</body></html>")
	})
	at := serve(t, mux)
	dir := t.TempDir()
	w, err := warc.NewWriter(warc.WriterConfig{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, dir, at)
	cfg.Seeds = []string{"http://x.test/"}
	cfg.Delay = time.Millisecond
	a := &encodeFailing{Archive: w}
	a.n.Store(10)
	cfg.Archive = a
	c := newCrawler(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Run(ctx); !errors.Is(err, errEncode) {
		t.Errorf("Run: %v, want the encoding error", err)
	}
}
