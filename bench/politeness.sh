#!/usr/bin/env bash
# politeness.sh — crawl simweb and read its server-side politeness audit
# (issue 3, acceptance 1).
#
# It builds freshcrawl, starts `freshcrawl simweb` (HOSTS × PAGES pages,
# real time: speed 1) with the audit counting gaps shorter than DELAY and
# more than one request in flight per host, then crawls it with
# `freshcrawl crawl -delay DELAY` and no global budget (so only politeness
# holds the crawler back) for DURATION, and prints the audit: requests,
# hosts, delay violations, concurrency violations, Crawl-delay breaches
# (simweb knows which hosts declare one and how long), and requests for
# URLs robots.txt disallows. All traffic goes to 127.0.0.1.
#
# Environment (defaults in brackets):
#   HOSTS [200]  PAGES [500]   size of the web
#   DELAY [200ms]              crawl -delay, and the audit's threshold
#   DURATION [60s]             length of the crawl
#   ORDERING [breadth-first]   crawl -ordering (pagerank and backlink take
#                              URLs out of their queues' order)
#   MAX_PAGES [0]              crawl -max-pages (with an importance
#                              ordering, a full collection keeps exploring)
#   WEB_PORT [18095]           loopback port of the web (control: +1)
#   WORLD [poisson]            the web: poisson (simweb's), bursty
#                              (simweb -bursty) or peps (simweb -replay
#                              $PEPS, the PEPs' last 12 years at 420,000×,
#                              as bench/policy-crawl.sh runs them)
#   PEPS [../shared/data/peps.tsv]  the PEPs' history, from the repository
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/simweb.sh

HOSTS=${HOSTS:-200}
PAGES=${PAGES:-500}
DELAY=${DELAY:-200ms}
DURATION=${DURATION:-60s}
ORDERING=${ORDERING:-breadth-first}
MAX_PAGES=${MAX_PAGES:-0}
WEB_PORT=${WEB_PORT:-18095}
WORLD=${WORLD:-poisson}
PEPS=${PEPS:-../shared/data/peps.tsv}
CONTROL_PORT=$((WEB_PORT + 1))

log() { printf '%s\n' "politeness: $*" >&2; }
die() { log "error: $*"; exit 1; }
command -v curl >/dev/null 2>&1 || die "needs curl"

tmp=$(mktemp -d)
web_pid=""
cleanup() {
	[[ -n $web_pid ]] && kill "$web_pid" 2>/dev/null && wait "$web_pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

log "building"
go build -o "$tmp/freshcrawl" ./cmd/freshcrawl
case $WORLD in
poisson) world=(-hosts "$HOSTS" -pages "$PAGES" -speed 1) ;;
bursty) world=(-bursty -speed 105000) ;;
peps)
	[[ -f $PEPS ]] || die "no PEPs history at $PEPS (set PEPS)"
	world=(-replay "$PEPS" -from 2014-08-22 -speed 420000) ;;
*) die "unknown WORLD '$WORLD' (known: poisson bursty peps)" ;;
esac
start_simweb "$tmp/freshcrawl" "$WEB_PORT" "$CONTROL_PORT" "${world[@]}" -audit-delay "$DELAY" -audit-concurrency 1
simweb_seeds "$CONTROL_PORT" >"$tmp/seeds.txt"
delayed=$( (grep -o '"crawl_delay": *[0-9]*' "$tmp/hosts.json" || true) | wc -l)

log "crawling the $WORLD world with -delay $DELAY for $DURATION"
"$tmp/freshcrawl" crawl -seeds "$tmp/seeds.txt" -data "$tmp/data" -scope any -allow-private \
	-resolve "*.test=127.0.0.1:$WEB_PORT" -delay "$DELAY" -budget 0 -workers 256 -for "$DURATION" \
	-ordering "$ORDERING" -max-pages "$MAX_PAGES" -rank-interval 1s -progress 10s -log-level error >"$tmp/crawl.out" 2>"$tmp/crawl.err" || die "crawl failed: $(cat "$tmp/crawl.err")"
curl -fs "http://127.0.0.1:$CONTROL_PORT/audit" >"$tmp/audit.json"
field() { grep -o "\"$1\": *[0-9]*" "$tmp/audit.json" | head -1 | grep -o '[0-9]*$'; }

web_desc="$HOSTS hosts × $PAGES pages, speed 1"
[[ $WORLD == poisson ]] || web_desc="the $WORLD world"
printf '\n%-40s %s\n' "web" "$web_desc, $delayed hosts declare a Crawl-delay"
printf '%-40s %s\n' "crawl" "-delay $DELAY -budget 0 -ordering $ORDERING -max-pages $MAX_PAGES, $DURATION"
printf '%-40s %s\n' "crawler summary" "$(tail -1 "$tmp/crawl.out")"
printf '%-40s %s\n' "requests audited" "$(field requests)"
printf '%-40s %s\n' "hosts requested" "$(field hosts)"
printf '%-40s %s\n' "delay violations (gap < $DELAY)" "$(field delay_violations)"
printf '%-40s %s\n' "concurrency violations (> 1 in flight)" "$(field concurrency_violations)"
printf '%-40s %s\n' "Crawl-delay violations" "$(field crawl_delay_violations)"
printf '%-40s %s\n' "robots.txt-disallowed requests" "$(field disallowed_requests)"
printf '%-40s %s ns\n' "smallest gap seen" "$(field min_gap_ns)"
