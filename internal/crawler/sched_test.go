package crawler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/clock"
	"github.com/freshcrawl/freshcrawl/internal/rank"
)

// schedModel is a brute-force scheduler: a list of hosts, each with the
// work it holds, scanned whole at every pick. A host holds up to three
// kinds of work: new URLs from its queue, which it may take at its ready
// time unless the collection is full and not exploring; the ranking's
// URLs, which it may take at its ready time; and a revisit, at its due
// time but not before it is ready. It wakes at the earliest work it may
// take. Of the idle hosts that are awake, those whose first ranking URL
// may enter the collection go first (the one that woke first), then the
// one whose oldest work has waited longest: its due time, its queue's
// newAt, or for the ranking's URLs its ready time.
type schedModel struct {
	hosts         []*modelHost
	full, explore bool
}

type modelHost struct {
	name          string
	ready, due    time.Time // due zero: no revisit
	newAt         time.Time // the queue's key
	queued        int
	promoted      []rank.Promotion
	busy          bool
	fromScheduler *host
}

// keys returns when the host wakes (when it may next do some of its
// work), how long its oldest work has waited, and whether it has work it
// may do.
func (m *schedModel) keys(h *modelHost) (wake, since time.Time, ok bool) {
	var work, waited []time.Time
	if h.queued > 0 && (!m.full || m.explore) {
		work, waited = append(work, h.ready), append(waited, h.newAt)
	}
	if len(h.promoted) > 0 {
		work, waited = append(work, h.ready), append(waited, h.ready)
	}
	if !h.due.IsZero() {
		work, waited = append(work, clock.Later(h.due, h.ready)), append(waited, h.due)
	}
	if len(work) == 0 {
		return time.Time{}, time.Time{}, false
	}
	return slices.MinFunc(work, time.Time.Compare), slices.MinFunc(waited, time.Time.Compare), true
}

// pick is what the scheduler must hand out at now: a host with the key
// returned (its wake time if it holds an entering ranking URL, else how
// long its oldest work has waited) and whether it holds one, or, if none
// is awake, the wait until the first wakes (-1: none has work).
func (m *schedModel) pick(now time.Time) (key time.Time, promoted bool, wait time.Duration, ok bool) {
	var first, oldest, firstPromo time.Time
	has, awake, hasPromo := false, false, false
	for _, h := range m.hosts {
		w, since, work := m.keys(h)
		if h.busy || !work {
			continue
		}
		if !has || w.Before(first) {
			first, has = w, true
		}
		if !w.After(now) && (!awake || since.Before(oldest)) {
			oldest, awake = since, true
		}
		if len(h.promoted) > 0 && h.promoted[0].Enters && !w.After(now) && (!hasPromo || w.Before(firstPromo)) {
			firstPromo, hasPromo = w, true
		}
	}
	switch {
	case hasPromo:
		return firstPromo, true, 0, true
	case !has:
		return time.Time{}, false, -1, false
	case !awake:
		return time.Time{}, false, first.Sub(now), false
	}
	return oldest, false, 0, true
}

// TestSchedulerAgainstModel runs the scheduler and the brute-force model
// side by side through random changes to the hosts (new URLs, revisits,
// the ranking's URLs, dispatch and release, the collection filling and
// emptying), with and without exploring, and checks every pick against
// the model's.
func TestSchedulerAgainstModel(t *testing.T) {
	for _, explore := range []bool{false, true} {
		t.Run(fmt.Sprintf("explore=%v", explore), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(fmt.Sprint(explore)))))
			// The clock only goes forward, as pick requires; work comes
			// due within 50 s of it either way.
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			at := func() time.Time { return now.Add(time.Duration(rng.IntN(100)-50) * time.Second) }
			s := newScheduler(nil)
			s.explore = explore
			m := &schedModel{explore: explore}
			for i := range 30 {
				h := s.get(fmt.Sprintf("h%d", i), 0)
				m.hosts = append(m.hosts, &modelHost{name: h.Name, fromScheduler: h})
			}
			set := func(mh *modelHost) {
				h := mh.fromScheduler
				h.ready, h.due, h.queued, h.promoted, h.busy = mh.ready, mh.due, mh.queued, mh.promoted, mh.busy
				h.newAt = mh.newAt
				s.update(h)
			}
			picks := 0
			for step := range 20000 {
				mh := m.hosts[rng.IntN(len(m.hosts))]
				switch op := rng.IntN(10); {
				case op < 3 && !mh.busy: // new work, or none
					mh.ready, mh.queued, mh.newAt = at(), rng.IntN(3), at()
					mh.due = time.Time{}
					if rng.IntN(2) == 0 {
						mh.due = at()
					}
					set(mh)
				case op == 3: // the ranking hands out URLs
					byHost := map[string][]rank.Promotion{}
					for _, h := range m.hosts {
						h.promoted = nil
						if rng.IntN(4) == 0 {
							h.promoted = []rank.Promotion{{URL: "u", Enters: rng.IntN(2) == 0}}
							byHost[h.name] = h.promoted
						}
					}
					s.setPromoted(byHost)
				case op == 4: // the collection fills or empties
					m.full = rng.IntN(2) == 0
					if m.full && !s.full {
						for _, h := range m.hosts {
							h.promoted = nil // not measured against the pages held
						}
					}
					s.setFullLocked(m.full)
				case op == 5 && mh.busy: // released
					mh.busy = false
					set(mh)
				default: // a pick, a moment later
					now = now.Add(time.Duration(rng.IntN(3)) * time.Second)
					key, promoted, wait, ok := m.pick(now)
					h, gotWait := s.pick(now)
					if !ok {
						if h != nil || gotWait != wait {
							t.Fatalf("step %d: picked %v (wait %v), the model none (wait %v)", step, h, gotWait, wait)
						}
						continue
					}
					if h == nil {
						t.Fatalf("step %d: picked none (wait %v), the model a host of key %v", step, gotWait, key)
					}
					got := m.hosts[slices.IndexFunc(m.hosts, func(x *modelHost) bool { return x.fromScheduler == h })]
					gw, gs, _ := m.keys(got)
					gotPromoted := len(got.promoted) > 0 && got.promoted[0].Enters
					gk := gs
					if promoted {
						gk = gw
					}
					if !gk.Equal(key) || gw.After(now) || gotPromoted != promoted || got.busy {
						t.Fatalf("step %d at %v: picked %s of key %v woken at %v (promoted %v, busy %v); the model one of key %v (promoted %v)",
							step, now, got.name, gk, gw, gotPromoted, got.busy, key, promoted)
					}
					got.busy = true
					picks++
				}
			}
			if picks < 1000 {
				t.Errorf("only %d picks made", picks)
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
