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
awk '
function median(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	l = v["listen"]; n[l]++
	rate[l, n[l]] = v["pages/s"]; cpu[l, n[l]] = v["cpu-s/1000"]
}
function paired(arr,   i, q) {
	for (i = 1; i <= n[1] && i <= n[0]; i++) q[i] = arr[1, i] / arr[0, i]
	return median(q, i - 1)
}
END {
	for (l = 0; l <= 1; l++) {
		for (i = 1; i <= n[l]; i++) { r[i] = rate[l, i]; c[i] = cpu[l, i] }
		mr[l] = median(r, n[l]); mc[l] = median(c, n[l])
	}
	printf "\n%-22s %12s %22s\n", "", "pages/s", "CPU s per 1,000 pages"
	printf "%-22s %12.1f %22.3f\n", "without -listen", mr[0], mc[0]
	printf "%-22s %12.1f %22.3f\n", "with -listen, scraped", mr[1], mc[1]
	printf "%-22s %12.3f %22.3f\n", "ratio of the medians", mr[1] / mr[0], mc[1] / mc[0]
	printf "%-22s %12.3f %22.3f\n", "median of the rounds", paired(rate), paired(cpu)
	printf "(%d rounds, each one run without and one with)\n", n[0]
}' "$runs"
