package hostview

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"
)

// TestTop checks Top against a full sort of random hosts.
func TestTop(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	t0 := time.Unix(1000, 0)
	var all []Host
	for i := range 500 {
		v := Host{Name: string(rune('a'+i%26)) + string(rune('a'+i/26)), Queued: rng.IntN(5)}
		if rng.IntN(2) == 0 {
			v.Due = t0.Add(time.Duration(rng.IntN(4)) * time.Second)
		}
		all = append(all, v)
	}
	top := NewTop(20)
	for _, v := range all {
		top.Add(v)
	}
	sort.SliceStable(all, func(i, j int) bool { return before(all[i], all[j]) < 0 })
	if got := top.Hosts(); !slices.EqualFunc(got, all[:20], func(a, b Host) bool { return a.Name == b.Name }) {
		t.Errorf("top 20 differ from the sort's first 20")
	}
}

func TestState(t *testing.T) {
	now := time.Unix(1000, 0)
	var n Counts
	for _, tt := range []struct {
		v    Host
		want string
	}{
		{Host{Busy: true, Fails: 2}, Busy},
		{Host{Fails: 1, Queued: 3}, BackingOff},
		{Host{Due: now.Add(time.Second)}, Idle},
		{Host{Queued: 1, Ready: now.Add(time.Second)}, Waiting},
		{Host{Due: now, Ready: now}, Ready},
	} {
		got := tt.v.State(now)
		if got != tt.want {
			t.Errorf("%+v: state %q, want %q", tt.v, got, tt.want)
		}
		n.Count(got)
	}
	if n != (Counts{All: 5, Busy: 1, BackingOff: 1, Waiting: 1, Ready: 1, Idle: 1}) {
		t.Errorf("counts %+v", n)
	}
}
