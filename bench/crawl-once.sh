#!/usr/bin/env bash
# crawl-once.sh — crawl -once on a static simweb (issue 16, acceptance 3):
# does the crawl end by itself, exit 0, hold every page robots.txt allows,
# and keep to the politeness rules throughout?
#
# It builds freshcrawl, starts `freshcrawl simweb` (HOSTS × PAGES pages,
# -churn 0: no page is born or dies; no host's robots.txt answers 5xx,
# which would hold a -once crawl for the 30 days RFC 9309 lets a crawler
# wait) with the audit counting gaps under DELAY, runs `freshcrawl crawl
# -once -delay DELAY` on every host, and prints the exit status, the wall
# time, the pages held against the pages simweb serves and those robots.txt
# disallows, and the audit. All traffic goes to 127.0.0.1.
#
# Environment (defaults in brackets):
#   HOSTS [100]  PAGES [100]   size of the web
#   DELAY [200ms]              crawl -delay, and the audit's threshold
#   LIMIT [30m]                the longest the crawl may take (a timeout)
#   WEB_PORT [18097]           loopback port of the web (control: +1)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/simweb.sh

HOSTS=${HOSTS:-100}
PAGES=${PAGES:-100}
DELAY=${DELAY:-200ms}
LIMIT=${LIMIT:-30m}
WEB_PORT=${WEB_PORT:-18097}
CONTROL_PORT=$((WEB_PORT + 1))

log() { printf '%s\n' "crawl-once: $*" >&2; }
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
start_simweb "$tmp/freshcrawl" "$WEB_PORT" "$CONTROL_PORT" -hosts "$HOSTS" -pages "$PAGES" -churn 0 -robots-500 0 \
	-speed 1 -audit-delay "$DELAY" -audit-concurrency 1
simweb_seeds "$CONTROL_PORT" >"$tmp/seeds.txt"
served=$(curl -fs "http://127.0.0.1:$CONTROL_PORT/snapshot" | wc -l)

log "crawling $HOSTS × $PAGES pages once with -delay $DELAY"
start=$(date +%s.%N)
set +e
timeout "$LIMIT" "$tmp/freshcrawl" crawl -once -seeds "$tmp/seeds.txt" -data "$tmp/data" -scope any -allow-private \
	-resolve "*.test=127.0.0.1:$WEB_PORT" -delay "$DELAY" -budget 0 -workers 256 -progress 30s -log-level error \
	>"$tmp/crawl.out" 2>"$tmp/crawl.err"
code=$?
set -e
end=$(date +%s.%N)
curl -fs "http://127.0.0.1:$CONTROL_PORT/audit" >"$tmp/audit.json"
field() { grep -o "\"$1\": *[0-9]*" "$tmp/audit.json" | head -1 | grep -o '[0-9]*$'; }
"$tmp/freshcrawl" status -data "$tmp/data" -json >"$tmp/status.json"
held=$(grep -o '"pages_held": *[0-9]*' "$tmp/status.json" | grep -o '[0-9]*$')
summary=$(tail -1 "$tmp/crawl.out")
disallowed=$(sed -n "s/.*(\([0-9]*\) disallowed by robots.txt).*/\1/p" <<<"$summary")

printf '\n%-40s %s\n' "web" "$HOSTS hosts × $PAGES pages, static (churn 0); $served pages served"
printf '%-40s %s\n' "crawl" "-once -delay $DELAY -budget 0"
printf '%-40s %s\n' "exit status" "$code"
printf '%-40s %.1f s\n' "wall time" "$(awk -v a="$start" -v b="$end" 'BEGIN{print b - a}')"
printf '%-40s %s\n' "crawler summary" "$summary"
printf '%-40s %s\n' "pages held" "$held"
printf '%-40s %s\n' "URLs robots.txt disallowed" "${disallowed:-?}"
printf '%-40s %s\n' "requests audited" "$(field requests)"
printf '%-40s %s\n' "delay violations (gap < $DELAY)" "$(field delay_violations)"
printf '%-40s %s\n' "concurrency violations (> 1 in flight)" "$(field concurrency_violations)"
printf '%-40s %s\n' "Crawl-delay violations" "$(field crawl_delay_violations)"
printf '%-40s %s\n' "robots.txt-disallowed requests" "$(field disallowed_requests)"
violations=$(( $(field delay_violations) + $(field concurrency_violations) + $(field crawl_delay_violations) + $(field disallowed_requests) ))
if [[ $code == 0 && $held == $((served - ${disallowed:-0})) && $violations == 0 ]]; then
	printf '%-40s %s\n' "verdict" "ok: exit 0, every page robots.txt allows held, no violation"
else
	printf '%-40s %s\n' "verdict" "FAILED: exit $code, $held held of $((served - ${disallowed:-0})) allowed, $violations violations"
	exit 1
fi
