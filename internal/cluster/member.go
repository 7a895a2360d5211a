package cluster

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// A node's membership and its partition leases live in JetStream
// key-value buckets, named after the cluster:
//
//	<cluster>-config  partitions = P (decimal), written once by the first node
//	<cluster>-nodes   <node> = "" while the node is alive (TTL)
//	<cluster>-leases  p<partition> = <node> while it owns the partition (TTL)
//
// The TTL of the configuration is a bound on how long a dead node's
// partitions wait for a taker. Entries of the last two buckets expire
// half of it after they were last written (expiry), and a live node
// rewrites its own every TTL/6 (Tick). A node owns the partitions that
// rendezvous hashing gives it among the live nodes (Assign), once it
// holds their leases: a lease is taken with a create that fails if the
// key exists, renewed with an update conditional on the revision the node
// last wrote, and released with a conditional delete. So two nodes never
// hold one lease, and a node that dies loses its leases TTL/2 after its
// last renewal at most, when the survivors take its partitions (at once,
// where the server marks expiries for watchers: Freed); the other half of
// the TTL is for the server to notice and the survivors to act.
//
// A node must not crawl a partition past its lease. It counts the lease
// valid for a third of the TTL after the renewal began (ValidUntil),
// which leaves a sixth, before the server expires the entry, for it to
// stop fetching: so a host is fetched by one node at a time even when a
// node loses touch with the servers. A renewal may be missed once.

// MemberConfig configures a node's membership. Zero fields take defaults.
type MemberConfig struct {
	Cluster    string        // names the buckets; default "freshcrawl"
	Node       string        // this node's name, unique in the cluster; required
	Partitions int           // P, which every node must agree on; default DefaultPartitions
	TTL        time.Duration // lease lifetime; default DefaultTTL
	Now        func() time.Time
}

// Defaults of MemberConfig.
const (
	DefaultPartitions = 16
	DefaultTTL        = 6 * time.Second
)

// Limits of MemberConfig.
const (
	MaxPartitions = 4096
	MinTTL        = 300 * time.Millisecond
)

// nameRE is what may name a cluster or a node: it becomes part of
// JetStream names.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Member is a node's view of the cluster: the live nodes and the leases it
// holds. It is not safe for concurrent use; one goroutine ticks it.
type Member struct {
	cfg    MemberConfig
	nodes  jetstream.KeyValue
	leases jetstream.KeyValue
	held   map[int]lease
	live   []string
}

type lease struct {
	rev     uint64
	renewed time.Time // when the renewal that wrote rev began
}

// Check fills the zero fields of c with their defaults and reports the
// first that is out of range.
func (c *MemberConfig) Check() error {
	if c.Cluster == "" {
		c.Cluster = "freshcrawl"
	}
	if c.Partitions == 0 {
		c.Partitions = DefaultPartitions
	}
	if c.TTL == 0 {
		c.TTL = DefaultTTL
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	switch {
	case !nameRE.MatchString(c.Cluster):
		return fmt.Errorf("cluster: name %q: want 1–64 letters, digits, - or _", c.Cluster)
	case !nameRE.MatchString(c.Node):
		return fmt.Errorf("cluster: node name %q: want 1–64 letters, digits, - or _", c.Node)
	case c.Partitions < 1 || c.Partitions > MaxPartitions:
		return fmt.Errorf("cluster: %d partitions: want 1 to %d", c.Partitions, MaxPartitions)
	case c.TTL < MinTTL:
		return fmt.Errorf("cluster: lease TTL %v: want at least %v", c.TTL, MinTTL)
	}
	return nil
}

// ErrPartitions is returned by Join when the cluster was started with a
// different number of partitions.
var ErrPartitions = errors.New("cluster: partition count differs from the cluster's")

// Join creates the cluster's buckets if they do not exist, checks the
// partition count against the cluster's, and returns the node's Member.
// It holds no lease until the first Tick.
func Join(ctx context.Context, js jetstream.JetStream, cfg MemberConfig) (*Member, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	config, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: cfg.Cluster + "-config", Storage: jetstream.FileStorage})
	if err != nil {
		return nil, fmt.Errorf("cluster: config bucket: %w", err)
	}
	if err := agreePartitions(ctx, config, cfg.Partitions); err != nil {
		return nil, err
	}
	m := &Member{cfg: cfg, held: map[int]lease{}}
	for _, b := range []struct {
		name string
		kv   *jetstream.KeyValue
	}{{"-nodes", &m.nodes}, {"-leases", &m.leases}} {
		if *b.kv, err = ttlBucket(ctx, js, cfg.Cluster+b.name, expiry(cfg.TTL)); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// ttlBucket creates (or opens) a key-value bucket whose entries expire ttl
// after they were written. Where the server can (NATS 2.11 and later), an
// expiry leaves a marker that watchers see, so that survivors take a dead
// node's partitions the moment its leases expire (Freed), not at their
// next tick.
func ttlBucket(ctx context.Context, js jetstream.JetStream, name string, ttl time.Duration) (jetstream.KeyValue, error) {
	// The server keeps markers at least a second.
	cfg := jetstream.KeyValueConfig{Bucket: name, TTL: ttl, History: 1, Storage: jetstream.FileStorage, LimitMarkerTTL: max(ttl, time.Second)}
	kv, err := js.CreateOrUpdateKeyValue(ctx, cfg)
	if errors.Is(err, jetstream.ErrLimitMarkerTTLNotSupported) {
		cfg.LimitMarkerTTL = 0
		kv, err = js.CreateOrUpdateKeyValue(ctx, cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: bucket %s: %w", name, err)
	}
	return kv, nil
}

// Freed returns a channel that receives when a lease is released or
// expires, until ctx is done: the moment to Tick, to take the partition if
// it is now this node's.
func (m *Member) Freed(ctx context.Context) (<-chan struct{}, error) {
	w, err := m.leases.WatchAll(ctx, jetstream.UpdatesOnly())
	if err != nil {
		return nil, fmt.Errorf("cluster: watch leases: %w", err)
	}
	freed := make(chan struct{}, 1)
	go func() {
		defer w.Stop()
		for e := range w.Updates() {
			if e != nil && e.Operation() != jetstream.KeyValuePut {
				select {
				case freed <- struct{}{}:
				default:
				}
			}
		}
	}()
	return freed, nil
}

// agreePartitions records n as the cluster's partition count, or checks it
// against the one recorded.
func agreePartitions(ctx context.Context, config jetstream.KeyValue, n int) error {
	want := strconv.Itoa(n)
	_, err := config.Create(ctx, "partitions", []byte(want))
	if err == nil {
		return nil
	}
	if !errors.Is(err, jetstream.ErrKeyExists) {
		return fmt.Errorf("cluster: record partitions: %w", err)
	}
	e, err := config.Get(ctx, "partitions")
	if err != nil {
		return fmt.Errorf("cluster: read partitions: %w", err)
	}
	if got := string(e.Value()); got != want {
		return fmt.Errorf("%w: the cluster has %s, this node %d", ErrPartitions, got, n)
	}
	return nil
}

// Changes is what one Tick decided about the node's partitions.
type Changes struct {
	Acquired []int // leases taken: start crawling these
	Lost     []int // leases gone (expired, or renewed too late): stop at once
	Unwanted []int // held, but a live node now ranks higher: stop, then Release
}

// Heartbeat tells the cluster the node is alive, as Tick does first.
func (m *Member) Heartbeat(ctx context.Context) error {
	if _, err := m.nodes.Put(ctx, m.cfg.Node, nil); err != nil {
		return fmt.Errorf("cluster: heartbeat: %w", err)
	}
	return nil
}

// Tick renews the node's presence and leases, takes the leases of the
// partitions it should own that are free, and says which it holds that
// another node should have. Call it every TTL/6 (TickEvery).
func (m *Member) Tick(ctx context.Context) (Changes, error) {
	var ch Changes
	start := m.cfg.Now()
	if err := m.Heartbeat(ctx); err != nil {
		return ch, err
	}
	live, err := m.nodes.Keys(ctx)
	if err != nil && !errors.Is(err, jetstream.ErrNoKeysFound) {
		return ch, fmt.Errorf("cluster: list nodes: %w", err)
	}
	if !slices.Contains(live, m.cfg.Node) {
		live = append(live, m.cfg.Node)
	}
	slices.Sort(live)
	m.live = live
	for _, p := range m.Held() {
		if !m.renew(ctx, p, start) {
			ch.Lost = append(ch.Lost, p)
		}
	}
	owners := Assign(m.cfg.Partitions, live)
	for p, owner := range owners {
		if _, ok := m.held[p]; ok || owner != m.cfg.Node {
			continue
		}
		rev, err := m.leases.Create(ctx, leaseKey(p), []byte(m.cfg.Node))
		if errors.Is(err, jetstream.ErrKeyExists) {
			continue // its previous owner has not let go yet
		}
		if err != nil {
			return ch, fmt.Errorf("cluster: take partition %d: %w", p, err)
		}
		m.held[p] = lease{rev: rev, renewed: start}
		ch.Acquired = append(ch.Acquired, p)
	}
	for _, p := range m.Held() {
		if owners[p] != m.cfg.Node {
			ch.Unwanted = append(ch.Unwanted, p)
		}
	}
	return ch, nil
}

// renew extends the lease of p, and reports whether the node still holds
// it. A lease past its validity is given up even if the entry is still
// there: the node has stopped crawling it, and takes it again like any
// free partition.
func (m *Member) renew(ctx context.Context, p int, start time.Time) bool {
	l := m.held[p]
	if !start.Before(l.renewed.Add(m.valid())) {
		delete(m.held, p)
		_ = m.leases.Delete(ctx, leaseKey(p), jetstream.LastRevision(l.rev))
		return false
	}
	rev, err := m.leases.Update(ctx, leaseKey(p), []byte(m.cfg.Node), l.rev)
	if err != nil {
		delete(m.held, p)
		return false
	}
	m.held[p] = lease{rev: rev, renewed: start}
	return true
}

// valid is how long after a renewal began the node may crawl.
func (m *Member) valid() time.Duration { return m.cfg.TTL / 3 }

// expiry is how long after its last write the server drops an entry.
func expiry(ttl time.Duration) time.Duration { return ttl / 2 }

// TickEvery is how often a node should Tick.
func (m *Member) TickEvery() time.Duration { return m.cfg.TTL / 6 }

// ValidUntil returns the time up to which the node may crawl partition p,
// and whether it holds p at all.
func (m *Member) ValidUntil(p int) (time.Time, bool) {
	l, ok := m.held[p]
	if !ok {
		return time.Time{}, false
	}
	return l.renewed.Add(m.valid()), true
}

// Release gives up the lease of p, after the node has stopped crawling it.
func (m *Member) Release(ctx context.Context, p int) error {
	l, ok := m.held[p]
	if !ok {
		return nil
	}
	delete(m.held, p)
	if err := m.leases.Delete(ctx, leaseKey(p), jetstream.LastRevision(l.rev)); err != nil {
		return fmt.Errorf("cluster: release partition %d: %w", p, err)
	}
	return nil
}

// Leave releases every lease and removes the node from the live ones. The
// node must have stopped crawling.
func (m *Member) Leave(ctx context.Context) error {
	var errs []error
	for _, p := range m.Held() {
		errs = append(errs, m.Release(ctx, p))
	}
	if err := m.nodes.Delete(ctx, m.cfg.Node); err != nil {
		errs = append(errs, fmt.Errorf("cluster: leave: %w", err))
	}
	return errors.Join(errs...)
}

// Held returns the partitions whose leases the node holds, in order.
func (m *Member) Held() []int {
	ps := make([]int, 0, len(m.held))
	for p := range m.held {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

// Nodes returns the live nodes as of the last Tick, in order.
func (m *Member) Nodes() []string { return slices.Clone(m.live) }

// Partitions returns the cluster's partition count.
func (m *Member) Partitions() int { return m.cfg.Partitions }

func leaseKey(p int) string { return "p" + strconv.Itoa(p) }
