package crawler

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// TestSchedulerOrder checks the heap against a brute-force reading of the
// rule: an idle host with work wakes at max(ready, due) for a revisit, at
// ready for a new URL (unless the collection is full), at the earlier of
// the two if it has both; a busy host or one without work is not in line.
func TestSchedulerOrder(t *testing.T) {
	t0 := time.Now().Add(time.Hour)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	type hs struct {
		ready, due int // seconds after t0; due < 0: none
		queued     int
		busy       bool
	}
	hosts := []hs{
		{ready: 5, due: -1, queued: 3}, // new work at 5
		{ready: 1, due: 9, queued: 0},  // revisit at 9
		{ready: 7, due: 2, queued: 0},  // revisit due at 2, allowed at 7
		{ready: 3, due: -1, queued: 0}, // no work
		{ready: 0, due: 4, queued: 1},  // both: new at 0
		{ready: 2, due: -1, queued: 5, busy: true},
	}
	for _, full := range []bool{false, true} {
		t.Run(fmt.Sprintf("full=%v", full), func(t *testing.T) {
			s := newScheduler(time.Now)
			s.full = full
			var want []string
			type w struct {
				name string
				wake time.Time
			}
			var ws []w
			for i, x := range hosts {
				h := s.get(fmt.Sprintf("h%d", i), 0)
				h.ready, h.queued, h.busy = at(x.ready), x.queued, x.busy
				if x.due >= 0 {
					h.due = at(x.due)
				}
				s.update(h)
				// Brute force.
				var wake time.Time
				has := false
				if x.queued > 0 && !full {
					wake, has = at(x.ready), true
				}
				if x.due >= 0 {
					d := at(max(x.due, x.ready))
					if !has || d.Before(wake) {
						wake, has = d, true
					}
				}
				if has && !x.busy {
					ws = append(ws, w{h.Name, wake})
				}
			}
			slices.SortStableFunc(ws, func(a, b w) int { return a.wake.Compare(b.wake) })
			for _, x := range ws {
				want = append(want, x.name)
			}
			var got []string
			for s.heap.Len() > 0 {
				got = append(got, heap.Pop(&s.heap).(*host).Name)
			}
			if !slices.Equal(got, want) {
				t.Errorf("order %v, want %v", got, want)
			}
		})
	}
}

// TestSchedulerNext hands out hosts in wake order, each exactly when its
// time has come (the test runs on a synctest bubble's clock), and returns
// nil when the context ends.
func TestSchedulerNext(t *testing.T) {
	bubble(t, func(t *testing.T) {
		s := newScheduler(time.Now)
		start := time.Now()
		a, b := s.get("a", 0), s.get("b", 0)
		a.ready, a.queued = start.Add(60*time.Millisecond), 1
		b.ready, b.queued = start, 1
		s.update(a)
		s.update(b)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if h := s.next(ctx); h != b || !h.busy || time.Since(start) != 0 {
			t.Fatalf("first host %v after %v, want b, busy, at once", h, time.Since(start))
		}
		if h := s.next(ctx); h != a || time.Since(start) != 60*time.Millisecond {
			t.Fatalf("second host %v after %v, want a after 60ms", h, time.Since(start))
		}
		short, cancel2 := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel2()
		if h := s.next(short); h != nil {
			t.Errorf("a busy host was handed out again: %v", h.Name)
		}
		if d := time.Since(start); d != 90*time.Millisecond {
			t.Errorf("next returned %v after the start, want when its context ended at 90ms", d)
		}
	})
}

func TestDropThrough(t *testing.T) {
	head := func(seqs ...uint64) []store.QueuedItem {
		var out []store.QueuedItem
		for _, q := range seqs {
			out = append(out, store.QueuedItem{Seq: q})
		}
		return out
	}
	seqsOf := func(h []store.QueuedItem) []uint64 {
		var out []uint64
		for _, q := range h {
			out = append(out, q.Seq)
		}
		return out
	}
	tests := []struct {
		head, drop, want []uint64
	}{
		{[]uint64{4, 5, 6, 7}, nil, []uint64{4, 5, 6, 7}},
		{[]uint64{4, 5, 6, 7}, []uint64{4}, []uint64{5, 6, 7}},
		{[]uint64{4, 5, 6, 7}, []uint64{4, 5, 6}, []uint64{7}},
		{[]uint64{4, 5, 6, 7}, []uint64{6, 4}, []uint64{7}},
		{[]uint64{4, 5, 6, 7}, []uint64{7}, nil},
		{[]uint64{4, 5, 6, 7}, []uint64{9}, nil},
		{nil, []uint64{1}, nil},
		{[]uint64{0, 1}, []uint64{0}, []uint64{1}},
	}
	for _, tt := range tests {
		got := seqsOf(dropThrough(head(tt.head...), tt.drop...))
		if !slices.Equal(got, tt.want) {
			t.Errorf("dropThrough(%v, %v) = %v, want %v", tt.head, tt.drop, got, tt.want)
		}
	}
}

func TestRobotsAgent(t *testing.T) {
	for ua, want := range map[string]string{
		fetch.DefaultUserAgent:        "freshcrawl",
		"Mozilla/5.0 (compatible; X)": "Mozilla",
		"mybot":                       "mybot",
		"my bot/1":                    "my",
		"":                            "",
	} {
		if got := robotsAgent(ua); got != want {
			t.Errorf("robotsAgent(%q) = %q, want %q", ua, got, want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	resp := func(v string) *fetch.Response {
		return &fetch.Response{Header: http.Header{"Retry-After": {v}}}
	}
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	future := now.Add(90 * time.Second).Format(http.TimeFormat)
	tests := []struct {
		v        string
		min, max time.Duration
	}{
		{"", 0, 0},
		{"120", 120 * time.Second, 120 * time.Second},
		{" 5 ", 5 * time.Second, 5 * time.Second},
		{"-3", 0, 0},
		{"999999999", DefaultMaxRetryAfter, DefaultMaxRetryAfter},
		{future, 90 * time.Second, 90 * time.Second},
		{"Mon, 01 Jan 2001 00:00:00 GMT", 0, 0}, // in the past
		{"soon", 0, 0},
	}
	for _, tt := range tests {
		if got := retryAfter(resp(tt.v), now); got < tt.min || got > tt.max {
			t.Errorf("retryAfter(%q) = %v, want in [%v, %v]", tt.v, got, tt.min, tt.max)
		}
	}
}

func TestReason(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&url.Error{Op: "Get", URL: "http://a/", Err: errors.New("connection reset by peer")}, "connection reset by peer"},
		{&url.Error{Op: "Get", URL: "http://a/", Err: context.DeadlineExceeded}, "timeout"},
		{fmt.Errorf("fetch http://a/: %w", &url.Error{Op: "Get", URL: "http://a/", Err: context.DeadlineExceeded}), "timeout"},
		{errors.New("plain"), "plain"},
	}
	for _, tt := range tests {
		if got := reason(tt.err); got != tt.want {
			t.Errorf("reason(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
