package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
//	<cluster>-plan  s<partition> = the partition's refresh.Share (JSON)
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

// PutShare writes partition p's share.
func (pl *Plans) PutShare(ctx context.Context, p int, s refresh.Share) error {
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("cluster: share of partition %d: %w", p, err)
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
		if err := json.Unmarshal(e.Value(), &shares[p]); err != nil {
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
