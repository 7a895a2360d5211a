package cluster

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/freshcrawl/freshcrawl/internal/refresh"
)

// The cluster's refresh plan (refresh.SharePlan: one multiplier for every
// partition, the budget split by what each partition's pages ask for at
// it) lives in a key-value bucket of its own:
//
//	<cluster>-plan  s<partition> = the partition's refresh.Share (encodeShare)
//	                plan         = the Plan solved from all of them (JSON)
//
// Each node writes the shares of the partitions it holds; the holder of
// partition 0 solves the plan once every partition has a share, and every
// node applies it to its partitions. A share outlives its writer (a
// partition taken over is re-shared by its new owner), so the plan is
// always solved over every partition.

// Plan is the cluster's refresh plan as the partitions apply it.
type Plan struct {
	refresh.Shared
	// Budget and Partitions are the cluster's, as the plan was solved for
	// them: a node of a cluster restarted with others ignores it.
	Budget     float64 `json:"budget"`
	Partitions int     `json:"partitions"`
	// Budgets is each partition's fetch budget, requests a second; nil for
	// a crawl without a budget.
	Budgets []float64 `json:"budgets,omitempty"`
	// At is when it was solved.
	At time.Time `json:"at"`
}

// Plans is the cluster's plan bucket.
type Plans struct {
	kv jetstream.KeyValue
}

// OpenPlans creates (or opens) the plan bucket of the cluster.
func OpenPlans(ctx context.Context, js jetstream.JetStream, cluster string) (*Plans, error) {
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: cluster + "-plan", History: 1, Storage: jetstream.FileStorage})
	if err != nil {
		return nil, fmt.Errorf("cluster: plan bucket: %w", err)
	}
	return &Plans{kv: kv}, nil
}

// planKey is the key of the solved plan.
const planKey = "plan"

func shareKey(p int) string { return "s" + strconv.Itoa(p) }

// maxShare bounds an encoded share: NATS's default message limit is 1 MB.
// A share takes 3 to 6 bytes a bin of its histogram.
const maxShare = 900 << 10

// PutShare writes partition p's share. One whose histogram is too large
// for a message (over 150,000 bins or so) goes with its weight bins merged
// 2, 4, ... at a time until it fits (coarsen): a page's weight is then
// known to 1/32, 1/16, ... of an octave, not 1/64, as its rate still is.
func (pl *Plans) PutShare(ctx context.Context, p int, s refresh.Share) error {
	b := encodeShare(s)
	for level := 1; len(b) > maxShare && level < 16; level++ {
		b = encodeShare(coarsen(s, level))
	}
	if len(b) > maxShare {
		return fmt.Errorf("cluster: share of partition %d: %d bins do not fit a message", p, len(s.Bins))
	}
	if _, err := pl.kv.Put(ctx, shareKey(p), b); err != nil {
		return fmt.Errorf("cluster: share of partition %d: %w", p, err)
	}
	return nil
}

// Shares reads the shares of partitions 0 to n−1. It reports false if one
// has none yet.
func (pl *Plans) Shares(ctx context.Context, n int) ([]refresh.Share, bool, error) {
	shares := make([]refresh.Share, n)
	have := make([]bool, n)
	keys, err := pl.kv.ListKeys(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("cluster: plan bucket: %w", err)
	}
	defer keys.Stop()
	for k := range keys.Keys() {
		p, err := strconv.Atoi(strings.TrimPrefix(k, "s"))
		if !strings.HasPrefix(k, "s") || err != nil || p < 0 || p >= n {
			continue
		}
		e, err := pl.kv.Get(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return nil, false, fmt.Errorf("cluster: share of partition %d: %w", p, err)
		}
		if shares[p], err = decodeShare(e.Value()); err != nil {
			return nil, false, fmt.Errorf("cluster: share of partition %d: %w", p, err)
		}
		have[p] = true
	}
	for _, h := range have {
		if !h {
			return shares, false, nil
		}
	}
	return shares, true, nil
}

// PutPlan writes the solved plan.
func (pl *Plans) PutPlan(ctx context.Context, plan Plan) error {
	b, err := json.Marshal(plan)
	if err != nil {
		return fmt.Errorf("cluster: plan: %w", err)
	}
	if _, err := pl.kv.Put(ctx, planKey, b); err != nil {
		return fmt.Errorf("cluster: plan: %w", err)
	}
	return nil
}

// Plan reads the solved plan; false if there is none yet.
func (pl *Plans) Plan(ctx context.Context) (Plan, bool, error) {
	e, err := pl.kv.Get(ctx, planKey)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return Plan{}, false, nil
	}
	if err != nil {
		return Plan{}, false, fmt.Errorf("cluster: plan: %w", err)
	}
	var plan Plan
	if err := json.Unmarshal(e.Value(), &plan); err != nil {
		return Plan{}, false, fmt.Errorf("cluster: plan: %w", err)
	}
	return plan, true, nil
}

// coarsen merges the share's weight bins 2^level at a time, each group
// into the bin in its middle, keeping the bins in key order.
func coarsen(s refresh.Share, level int) refresh.Share {
	out := s
	out.Bins = make([][3]int64, 0, len(s.Bins))
	for _, b := range s.Bins {
		b[1] = b[1]>>level<<level | 1<<(level-1)
		if last := len(out.Bins) - 1; last >= 0 && out.Bins[last][0] == b[0] && out.Bins[last][1] == b[1] {
			out.Bins[last][2] += b[2]
			continue
		}
		out.Bins = append(out.Bins, b)
	}
	return out
}

// shareVersion starts an encoded share.
const shareVersion = 1

// ErrShare reports a damaged encoded share.
var ErrShare = errors.New("damaged share")

// encodeShare lays a share out as its version, held and queued (uvarint),
// excess (8 bytes, IEEE 754 big-endian), the number of bins, and each bin
// as its rate bin's difference from the previous one's (zigzag varint),
// its weight bin (zigzag varint) and its pages (uvarint): bins come in key
// order (schedule.Planner.Bins), so the differences are small.
func encodeShare(s refresh.Share) []byte {
	b := []byte{shareVersion}
	b = binary.AppendUvarint(b, uint64(max(s.Held, 0)))
	b = binary.AppendUvarint(b, uint64(max(s.Queued, 0)))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(s.Excess))
	b = binary.AppendUvarint(b, uint64(len(s.Bins)))
	prev := int64(0)
	for _, bin := range s.Bins {
		b = binary.AppendVarint(b, bin[0]-prev)
		b = binary.AppendVarint(b, bin[1])
		b = binary.AppendUvarint(b, uint64(max(bin[2], 0)))
		prev = bin[0]
	}
	return b
}

// decodeShare reads what encodeShare wrote.
func decodeShare(b []byte) (refresh.Share, error) {
	var s refresh.Share
	if len(b) == 0 || b[0] != shareVersion {
		return s, fmt.Errorf("%w: version", ErrShare)
	}
	r := shareReader{b: b[1:]}
	s.Held, s.Queued = int64(r.uvarint()), int64(r.uvarint())
	if len(r.b) >= 8 {
		s.Excess = math.Float64frombits(binary.BigEndian.Uint64(r.b))
		r.b = r.b[8:]
	} else {
		r.bad = true
	}
	n := r.uvarint()
	if n > uint64(len(r.b))/3 { // three bytes a bin at least
		return s, fmt.Errorf("%w: %d bins in %d bytes", ErrShare, n, len(r.b))
	}
	s.Bins = make([][3]int64, 0, n)
	prev := int64(0)
	for range n {
		rate := prev + r.varint()
		s.Bins = append(s.Bins, [3]int64{rate, r.varint(), int64(r.uvarint())})
		prev = rate
	}
	if r.bad || len(r.b) != 0 || s.Held < 0 || s.Queued < 0 {
		return refresh.Share{}, fmt.Errorf("%w: %d bytes", ErrShare, len(b))
	}
	return s, nil
}

// shareReader reads varints, noting a short or overlong one in bad.
type shareReader struct {
	b   []byte
	bad bool
}

func (r *shareReader) uvarint() uint64 { return readVarint(r, binary.Uvarint) }
func (r *shareReader) varint() int64   { return readVarint(r, binary.Varint) }

// readVarint reads one varint with read (binary.Uvarint or Varint).
func readVarint[T uint64 | int64](r *shareReader, read func([]byte) (T, int)) T {
	v, n := read(r.b)
	if n <= 0 {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}
