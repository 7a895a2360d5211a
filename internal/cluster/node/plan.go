package node

import (
	"context"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
	"github.com/freshcrawl/freshcrawl/internal/refresh"
)

// This file shares the refresh plan between the partitions (refresh.SharePlan,
// cluster.Plans): every PlanEvery a node writes the shares of the partitions
// it holds, the holder of partition 0 solves the cluster's plan from all of
// them, and every node applies the newest plan to its partitions: their
// planners' parameter, the cluster's uniform interval, each partition's
// budget.

// DefaultPlanEvery is the default period of the plan's exchange: the
// multiplier moves slowly (a planner re-solves once a 64th of its pages
// moved bin), so a few seconds keep the partitions on the cluster's.
const DefaultPlanEvery = 5 * time.Second

// planLoop shares the plan every PlanEvery until ctx is done.
func (n *Node) planLoop(ctx context.Context) {
	every(ctx, n.cfg.PlanEvery, func() {
		if err := n.sharePlan(ctx); err != nil && ctx.Err() == nil {
			n.log.Warn("refresh plan", "err", err)
		}
	})
}

// sharePlan writes the held partitions' shares, solves the plan if this
// node holds partition 0, and applies the newest plan.
func (n *Node) sharePlan(ctx context.Context) error {
	n.mu.Lock()
	parts := make([]*partition, 0, len(n.parts))
	for _, pt := range n.parts {
		parts = append(parts, pt)
	}
	n.mu.Unlock()
	var solver *partition
	for _, pt := range parts {
		if err := n.plans.PutShare(ctx, pt.p, pt.c.Refresh().Share()); err != nil {
			return err
		}
		if pt.p == 0 {
			solver = pt
		}
	}
	if solver != nil {
		if err := n.solvePlan(ctx, solver.c.Refresh().Config()); err != nil {
			return err
		}
	}
	plan, ok, err := n.plans.Plan(ctx)
	if !ok || err != nil || plan.Partitions != n.cfg.Partitions || plan.Budget != n.cfg.Crawl.Budget {
		return err // none yet, or an earlier run's
	}
	n.mu.Lock()
	n.plan = &plan
	n.mu.Unlock()
	for _, pt := range parts {
		n.applyPlan(pt, plan)
	}
	n.syncPool()
	return nil
}

// solvePlan solves the cluster's plan from every partition's share, if
// each has one, under cfg, a partition's refresh configuration.
func (n *Node) solvePlan(ctx context.Context, cfg refresh.Config) error {
	shares, all, err := n.plans.Shares(ctx, n.cfg.Partitions)
	if !all || err != nil {
		return err
	}
	cfg.Budget = n.cfg.Crawl.Budget
	cfg.Capacity = n.cfg.Crawl.MaxPages * n.cfg.Partitions
	shared, budgets, err := refresh.SharePlan(cfg, shares)
	if err != nil {
		return err
	}
	return n.plans.PutPlan(ctx, cluster.Plan{Shared: shared, Budget: cfg.Budget, Partitions: n.cfg.Partitions,
		Budgets: budgets, At: time.Now()})
}

// applyPlan makes partition pt plan at the cluster's plan.
func (n *Node) applyPlan(pt *partition, plan cluster.Plan) {
	pt.c.Refresh().SetShared(plan.Shared)
	if pt.p < len(plan.Budgets) {
		pt.c.SetBudget(plan.Budgets[pt.p])
	}
}
