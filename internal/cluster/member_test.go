package cluster

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// testServer starts an embedded NATS server for one test.
func testServer(t *testing.T) *Server {
	t.Helper()
	s, err := StartServer(ServerConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// connect opens a client connection of its own, as a node has.
func connect(t *testing.T, s *Server) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func join(t *testing.T, js jetstream.JetStream, node string, cfg MemberConfig) *Member {
	t.Helper()
	cfg.Node = node
	m, err := Join(context.Background(), js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func tick(t *testing.T, m *Member) Changes {
	t.Helper()
	ch, err := m.Tick(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// settle ticks the members in order, releasing what each is told is
// unwanted, as a node's runtime does, for rounds rounds.
func settle(t *testing.T, rounds int, names []string, ms map[string]*Member) {
	t.Helper()
	for range rounds {
		for _, n := range names {
			for _, p := range tick(t, ms[n]).Unwanted {
				if err := ms[n].Release(context.Background(), p); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// owners maps each partition to the member holding its lease, and fails if
// two hold one.
func owners(t *testing.T, n int, ms map[string]*Member) []string {
	t.Helper()
	got := make([]string, n)
	for name, m := range ms {
		for _, p := range m.Held() {
			if got[p] != "" {
				t.Fatalf("partition %d held by %s and %s", p, got[p], name)
			}
			got[p] = name
		}
	}
	return got
}

// TestMembersShare: three nodes that tick twice hold every partition once,
// as rendezvous hashing over the three assigns them.
func TestMembersShare(t *testing.T) {
	s := testServer(t)
	cfg := MemberConfig{Cluster: "t", Partitions: 32, TTL: 5 * time.Second}
	ms := map[string]*Member{}
	for _, n := range []string{"a", "b", "c"} {
		_, js := connect(t, s)
		ms[n] = join(t, js, n, cfg)
	}
	settle(t, 2, []string{"a", "b", "c"}, ms)
	want := Assign(32, []string{"a", "b", "c"})
	if got := owners(t, 32, ms); !slices.Equal(got, want) {
		t.Fatalf("owners %v, want %v", got, want)
	}
	if got := ms["b"].Nodes(); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("b sees nodes %v", got)
	}
	// A node that leaves lets the others take its partitions at once (and
	// even out their loads).
	if err := ms["c"].Leave(context.Background()); err != nil {
		t.Fatal(err)
	}
	delete(ms, "c")
	settle(t, 2, []string{"a", "b"}, ms) // a round to release what loads move, one to take it
	if got, want := owners(t, 32, ms), Assign(32, []string{"a", "b"}); !slices.Equal(got, want) {
		t.Fatalf("after c left: owners %v, want %v", got, want)
	}
}

// TestJoinHandsOver: a node alone holds everything; when a second joins,
// the first is told which partitions are now unwanted, and the second
// gets them only once the first has released them.
func TestJoinHandsOver(t *testing.T) {
	s := testServer(t)
	cfg := MemberConfig{Cluster: "t", Partitions: 8, TTL: 5 * time.Second}
	_, jsA := connect(t, s)
	_, jsB := connect(t, s)
	a := join(t, jsA, "a", cfg)
	if ch := tick(t, a); len(ch.Acquired) != 8 {
		t.Fatalf("alone, a took %v", ch.Acquired)
	}
	b := join(t, jsB, "b", cfg)
	if ch := tick(t, b); len(ch.Acquired) != 0 {
		t.Fatalf("b took %v while a held them", ch.Acquired)
	}
	ch := tick(t, a)
	want := Owned("b", 8, []string{"a", "b"})
	if !slices.Equal(ch.Unwanted, want) || len(ch.Lost) != 0 {
		t.Fatalf("a: unwanted %v lost %v, want unwanted %v", ch.Unwanted, ch.Lost, want)
	}
	for _, p := range ch.Unwanted {
		if err := a.Release(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	if ch := tick(t, b); !slices.Equal(ch.Acquired, want) {
		t.Fatalf("b took %v, want %v", ch.Acquired, want)
	}
	if got := owners(t, 8, map[string]*Member{"a": a, "b": b}); !slices.Equal(got, Assign(8, []string{"a", "b"})) {
		t.Fatalf("owners %v", got)
	}
}

// TestTakeover: a node that stops ticking (as a killed one does) keeps
// its partitions until its leases expire, one TTL after its last renewal;
// then the survivors take them. The wait is bounded, not timed: the test
// polls until the takeover or 30 s.
func TestTakeover(t *testing.T) {
	s := testServer(t)
	const ttl = time.Second
	cfg := MemberConfig{Cluster: "t", Partitions: 16, TTL: ttl}
	ms := map[string]*Member{}
	for _, n := range []string{"a", "b", "c"} {
		_, js := connect(t, s)
		ms[n] = join(t, js, n, cfg)
	}
	settle(t, 2, []string{"a", "b", "c"}, ms)
	if got, want := owners(t, 16, ms), Assign(16, []string{"a", "b", "c"}); !slices.Equal(got, want) {
		t.Fatalf("before the kill: owners %v, want %v", got, want)
	}
	dead := ms["b"].Held()
	delete(ms, "b")
	deadline := time.Now().Add(30 * time.Second)
	want := Assign(16, []string{"a", "c"})
	for {
		settle(t, 1, []string{"a", "c"}, ms)
		got := owners(t, 16, ms)
		if slices.Equal(got, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s: owners %v, want %v (b held %v)", got, want, dead)
		}
		time.Sleep(ttl / 6)
	}
}

// TestFence: a lease the node could not renew in time is counted lost,
// even though the entry is still on the server; the node then takes the
// partition again as a free one.
func TestFence(t *testing.T) {
	s := testServer(t)
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	_, js := connect(t, s)
	a := join(t, js, "a", MemberConfig{Cluster: "t", Partitions: 2, TTL: 30 * time.Second, Now: clock.Now})
	tick(t, a)
	until, ok := a.ValidUntil(0)
	if !ok || !until.Equal(clock.Now().Add(10*time.Second)) {
		t.Fatalf("valid until %v (%v), want now + TTL/3", until, ok)
	}
	clock.Add(9 * time.Second)
	if ch := tick(t, a); len(ch.Lost) != 0 {
		t.Fatalf("lost %v within the validity", ch.Lost)
	}
	clock.Add(10 * time.Second)
	ch := tick(t, a)
	if !slices.Equal(ch.Lost, []int{0, 1}) || !slices.Equal(ch.Acquired, []int{0, 1}) {
		t.Fatalf("past the validity: lost %v acquired %v, want both lost and taken again", ch.Lost, ch.Acquired)
	}
}

func TestJoinChecks(t *testing.T) {
	s := testServer(t)
	_, js := connect(t, s)
	join(t, js, "a", MemberConfig{Cluster: "t", Partitions: 8})
	if _, err := Join(context.Background(), js, MemberConfig{Cluster: "t", Node: "b", Partitions: 16}); !errors.Is(err, ErrPartitions) {
		t.Errorf("16 partitions in a cluster of 8: %v", err)
	}
	for _, cfg := range []MemberConfig{
		{Node: ""}, {Node: "a b"}, {Node: "a", Cluster: "x.y"}, {Node: "a", Partitions: -1}, {Node: "a", TTL: time.Millisecond},
	} {
		if _, err := Join(context.Background(), js, cfg); err == nil {
			t.Errorf("Join(%+v) succeeded", cfg)
		}
	}
}
