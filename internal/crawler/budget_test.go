package crawler

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/refresh"
)

// requestLog records, per host, when each request reached the server.
type requestLog struct {
	mu    sync.Mutex
	times map[string][]time.Time
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.times[r.Host] = append(l.times[r.Host], time.Now())
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// in counts host's requests in [from, to).
func (l *requestLog) in(host string, from, to time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, at := range l.times[host] {
		if !at.Before(from) && at.Before(to) {
			n++
		}
	}
	return n
}

// closest is the shortest gap between two requests to one host, start to
// start, and the host.
func (l *requestLog) closest() (time.Duration, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	gap, at := time.Duration(1<<62), ""
	for host, times := range l.times {
		for i := 1; i < len(times); i++ {
			if d := times[i].Sub(times[i-1]); d < gap {
				gap, at = d, host
			}
		}
	}
	return gap, at
}

// treeSite serves, on every host, an endless binary tree of pages: / links
// to /n/0, and /n/k to /n/2k+1 and /n/2k+2. No robots.txt.
func treeSite() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := -1
		switch {
		case r.URL.Path == "/":
		case strings.HasPrefix(r.URL.Path, "/n/"):
			n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/n/"))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			k = n
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		if k < 0 {
			fmt.Fprint(w, `<a href="/n/0">0</a>`)
			return
		}
		fmt.Fprintf(w, `<p>%d</p><a href="/n/%d">a</a> <a href="/n/%d">b</a>`, k, 2*k+1, 2*k+2)
	})
}

// halfDeadSite serves hosts whose / links to n pages, of which the odd
// ones are gone (404). No robots.txt.
func halfDeadSite(n int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p"))
		switch {
		case r.URL.Path == "/":
			w.Header().Set("Content-Type", "text/html")
			for i := range n {
				fmt.Fprintf(w, `<a href="/p%d">%d</a>`+"\n", i, i)
			}
		case err != nil || i%2 == 1:
			http.NotFound(w, r)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<p>%d</p>", i)
		}
	})
}

// listSite serves hosts whose / links to as many pages as pages gives the
// host; the pages link nowhere. No robots.txt.
func listSite(pages map[string]int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, ok := pages[r.Host]
		switch {
		case !ok || r.URL.Path == "/robots.txt":
			http.NotFound(w, r)
			return
		case r.URL.Path != "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<p>%s</p>", r.URL.Path)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `<a href="/p%d">%d</a>`+"\n", i, i)
		}
		fmt.Fprint(w, b.String())
	})
}

// statsAt runs c for d and returns its Stats at from and to after the
// start, on the test's clock.
func statsAt(t *testing.T, c *Crawler, d, from, to time.Duration) (Stats, Stats) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var at [2]Stats
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(from)
		at[0] = c.Stats()
		time.Sleep(to - from)
		at[1] = c.Stats()
	}()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	<-done
	return at[0], at[1]
}

// TestBudgetSpentDespitePostpones crawls a web whose discovery never ends
// under the uniform policy without a capacity: the uniform interval is
// the pages held and URLs queued over the budget, so it keeps growing, and most revisits
// come due before the interval they now have and are postponed (refresh's
// wait rule). Due work always exists (the queues only grow), so every
// slot of the budget must become a request: at least 97 % of budget ×
// time. A postponed revisit that kept its slot cost about a third of the
// budget here.
func TestBudgetSpentDespitePostpones(t *testing.T) {
	bubble(t, func(t *testing.T) {
		at := serve(t, treeSite())
		cfg := testConfig(t, t.TempDir(), at)
		for i := range 4 {
			cfg.Seeds = append(cfg.Seeds, fmt.Sprintf("http://h%d.test/", i))
		}
		const budget = 20
		cfg.Budget, cfg.Delay, cfg.Policy = budget, 10*time.Millisecond, refresh.Uniform
		c := newCrawler(t, cfg)
		defer c.Close()
		from, to := 20*time.Second, 80*time.Second
		first, last := statsAt(t, c, to+time.Second, from, to)
		got := last.Requests - first.Requests
		used := float64(got) / (budget * (to - from).Seconds())
		t.Logf("%d requests in %v: %.3f of the budget", got, to-from, used)
		if used < 0.97 || used > 1.03 {
			t.Errorf("budget used %.3f, want 0.97–1.03", used)
		}
		if u := last.BudgetUsed(first); math.Abs(u-used) > 1e-9 {
			t.Errorf("Stats.BudgetUsed says %.4f, the count %.4f", u, used)
		}
	})
}

// TestBudgetFollowsBacklog crawls two hosts, one with ten times the pages
// of the other, under a budget well below what their delays allow: the
// budget binds, and the requests split about 10:1 (the ratio of their
// queues, within a factor of 1.6 either way for the transient while the
// first-found queue is served alone), not evenly, while no host is asked
// twice within its delay.
func TestBudgetFollowsBacklog(t *testing.T) {
	bubble(t, func(t *testing.T) {
		log := &requestLog{times: map[string][]time.Time{}}
		at := serve(t, log.wrap(listSite(map[string]int{"big.test": 3000, "small.test": 300})))
		cfg := testConfig(t, t.TempDir(), at)
		cfg.Seeds = []string{"http://big.test/", "http://small.test/"}
		const budget = 20
		delay := 10 * time.Millisecond
		cfg.Budget, cfg.Delay, cfg.Revisit = budget, delay, time.Hour
		c := newCrawler(t, cfg)
		defer c.Close()
		start := time.Now()
		runFor(t, c, 60*time.Second)
		from, to := start.Add(5*time.Second), start.Add(60*time.Second)
		big, small := log.in("big.test", from, to), log.in("small.test", from, to)
		used := float64(big+small) / (budget * to.Sub(from).Seconds())
		t.Logf("big %d, small %d requests: ratio %.2f; %.3f of the budget", big, small, float64(big)/float64(small), used)
		if small == 0 || float64(big)/float64(small) < 10/1.6 || float64(big)/float64(small) > 10*1.6 {
			t.Errorf("big %d, small %d requests: want about 10:1", big, small)
		}
		if used < 0.97 {
			t.Errorf("budget used %.3f, want ≥ 0.97", used)
		}
		if gap, host := log.closest(); gap < delay {
			t.Errorf("%s asked twice within %v, its delay %v", host, gap, delay)
		}
	})
}

// TestBudgetSpentPastDeadURLs crawls two hosts whose pages link to as
// many dead URLs as live ones, under the optimal and the uniform policy
// without a capacity: once the queues are empty the revisits of the pages
// held are all the work there is, and they must take the whole budget.
// With the URLs seen as the capacity they were planned for the share of
// it the pages held are of those: about half (0.494 and 0.500). The
// optimal plan's load is within 1 % of the budget at the end, but its
// pages never change, so every estimate keeps falling and each interval
// is planned a little longer than the last: it spends 0.954, and at least
// 0.95 is asked of it; 0.97 of the uniform policy.
func TestBudgetSpentPastDeadURLs(t *testing.T) {
	for _, tt := range []struct {
		policy refresh.Name
		least  float64
	}{{refresh.Optimal, 0.95}, {refresh.Uniform, 0.97}} {
		policy := tt.policy
		t.Run(string(policy), func(t *testing.T) {
			bubble(t, func(t *testing.T) {
				at := serve(t, halfDeadSite(200))
				cfg := testConfig(t, t.TempDir(), at)
				cfg.Seeds = []string{"http://a.test/", "http://b.test/"}
				const budget = 20
				cfg.Budget, cfg.Delay, cfg.Policy = budget, 10*time.Millisecond, policy
				c := newCrawler(t, cfg)
				defer c.Close()
				from, to := 60*time.Second, 120*time.Second
				first, last := statsAt(t, c, to+time.Second, from, to)
				used := last.BudgetUsed(first)
				t.Logf("%d URLs seen, %d held, %d queued; %.3f of the budget from %v to %v",
					last.Seen, last.Held, last.Queued, used, from, to)
				if last.Queued != 0 || last.Held < 150 {
					t.Fatalf("%d held, %d queued at %v: want the first pass done", last.Held, last.Queued, to)
				}
				if used < tt.least || used > 1.03 {
					t.Errorf("budget used %.3f, want %.2f–1.03", used, tt.least)
				}
			})
		})
	}
}
