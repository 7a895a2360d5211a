// Package schedule turns the refresh policies' revisit frequencies into
// fetch times a polite crawler can keep (DESIGN.md §3): the update
// decision's last step, between policy, which says how often, and the
// crawler's per-host queues, which say when.
//
// Every host limits the crawl: with a delay of d seconds between requests
// it takes at most c = 1/d fetches a second, whatever the budget. The
// dissertation's optimal allocations (ch. 5) ignore that; Kolobov et al.
// (SIGIR 2019) were the first to optimise freshness under such politeness
// constraints. The pieces:
//
//   - Capped: the freshness- or age-optimal allocation of a budget (Cho's
//     dissertation §5.5.4, weighted §5.6) with each host's pages summing to
//     at most its capacity, exact from the KKT conditions (a multiplier per
//     saturated host on top of the budget's), and uniform and proportional
//     allocation with the same caps by water-filling. 10⁷ pages on 10⁵
//     hosts in seconds (BenchmarkCapped).
//   - Timetable: frequencies to visit times over a window, each page
//     evenly spaced, then each host's visits moved as little as possible
//     (least squares) to keep its delay.
//   - AssignCrawls, with IdealTimes and Slots: paper 002's assignment of
//     crawls to crawler time slots as a transportation problem, solved as
//     a min-cost flow on the time line by Network, a successive
//     shortest-path solver.
//   - Planner: the revisit plan kept up to date as rates are re-estimated,
//     one visit at a time.
//
// Units are seconds and visits (or changes) per second, as in policy.
package schedule
