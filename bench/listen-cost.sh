#!/usr/bin/env bash
# listen-cost.sh — what crawl -listen costs the crawl (issue 16, acceptance
# 6): bench/crawl-throughput.sh without and with -listen, alternated
# ROUNDS times so that the machine's drift falls on both alike; with
# -listen, /metrics is scraped every second and /api/status read every two
# seconds during the crawl (an open dashboard, and a Prometheus scraping
# far more often than the usual 15 s). Odd rounds run without -listen
# first, even rounds with it first. It prints each run, the medians, the ratio of
# the medians with to without, and the median of each round's own ratio
# (the two runs of a round are seconds apart, so the machine's drift
# between rounds cancels), for pages/s and for CPU-seconds per 1,000 pages.
# The web is larger than crawl-throughput.sh's default, so that no run
# fetches all of it before DURATION ends (the rate would then be the web's
# size, not the crawler's speed).
#
# Environment: ROUNDS [8], HOSTS [2000], DURATION [20s], and
# crawl-throughput.sh's others (PAGES, WORKERS, WEB_PORT).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-8}
export HOSTS=${HOSTS:-2000} DURATION=${DURATION:-20s}
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "listen-cost: ROUNDS must be a positive whole number" >&2; exit 1; }

runs=$(mktemp)
errs=$(mktemp)
trap 'rm -f "$runs" "$errs"' EXIT
for r in $(seq "$ROUNDS"); do
	# Odd rounds run without first, even rounds with: a run's place in its
	# round (after a crawl's data was just deleted, say) must not count
	# as the cost of -listen.
	order="0 1"
	((r % 2)) || order="1 0"
	for l in $order; do
		if ! line=$(BRIEF=1 LISTEN=$l bash bench/crawl-throughput.sh 2>"$errs"); then
			cat "$errs" >&2
			echo "listen-cost: round $r with LISTEN=$l failed" >&2
			exit 1
		fi
		echo "round $r $line" | tee -a "$runs"
	done
done
awk -f bench/pairs.awk -v key=listen -v name0="without -listen" -v name1="with -listen, scraped" "$runs"
