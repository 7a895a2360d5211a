// Package sim is freshcrawl's event-driven simulator: millions of pages,
// each with a change process and an importance weight, a global fetch
// budget, optional per-host politeness, and a refresh policy in the loop
// that sees only what a crawler sees. It measures the exact time averages
// of freshness, age, embarrassment-weighted staleness and staleness cost by
// integrating between events, never by sampling (DESIGN.md §5).
//
// # Model
//
// Time is simulated seconds from 0 to Config.Duration. At time 0 the
// collection holds a fresh copy of every page, as in paper 002 §B.1 ("the
// copy is treated as fresh at time 0"), and every page's change process is
// already stationary, so the first change after 0 is a forward-recurrence
// draw. Each page has a due time, set by the policy. The engine fetches
// due pages in due order, at most Config.Budget fetches a second with a
// fixed spacing of 1/Budget between fetches (a token bucket of depth one),
// so a policy that asks for more than the budget gets its fetches delayed,
// exactly as the crawler's frontier delays them. With Config.HostDelay set,
// pages belong to hosts and a host is fetched at most once per HostDelay; a
// page whose host is busy waits for it without using the budget.
//
// # Policies
//
// A Policy is told of each fetch through a Fetch, which carries the page's
// index, the fetch time, the due time and a change.Observation (interval,
// changed or not, and the time since Last-Modified when the page's host
// sends it), and answers the page's next due time. The type carries no
// rate or process, so a policy cannot read the truth; only a policy that
// declares itself an Oracle is handed the pages' true processes, for
// reference runs. A policy that re-plans globally implements Replanner and
// is called every Config.ReplanEvery seconds with a Schedule on which it
// may reset any due time.
//
// # Metrics
//
// Paper 003 (dissertation §5.2) defines freshness F(e,t) = 1 if the copy
// equals the live page and age A(e,t) = t − (the first change not yet
// fetched) when stale; the engine integrates both over every fetch interval
// in closed form. Kolobov et al.'s harmonic staleness (H_N for a copy that
// has missed N changes) is integrated too: for Poisson and
// quasi-deterministic pages as its expectation given when the copy went
// stale (closed forms, no draw), for Pareto pages over the changes the
// engine walks anyway. Paper 001 §A.2's staleness cost (C_s per stale hour plus
// C_c per crawl), paper 002 §B.1/B.3's weighted staleness Σ w_i a_i, the
// "very stale" interval share of §A.7 and the revisit-interval distribution
// complete the report (spec seed-ford-wolf-ntoulas §D). Averages exclude a
// warm-up period; a time series at a chosen resolution covers the whole run.
//
// # Change processes
//
// Poisson, Pareto (Lomax renewal) and quasi-deterministic processes are
// package process's (paper 002 §2.3), the laws simweb's pages follow too,
// and the engine draws through its formulas, lean: it draws only what a
// fetch needs. At a fetch it needs to know whether a change
// happened since the previous fetch, the first such change, the last change
// before now (for Last-Modified) and the next change; for Poisson and
// quasi-deterministic pages that is at most three draws per fetch however
// fast the page changes, and only Pareto pages walk their changes (and,
// for the harmonic staleness, the changes of a copy still stale when the
// run ends).
//
// # Determinism
//
// Every draw is a pure function of the seed, the page and a per-page
// counter, and the event loop runs on one goroutine, so the same Config
// gives the same Result on any GOMAXPROCS.
package sim
