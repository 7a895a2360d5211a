#!/usr/bin/env bash
# policy-crawl.sh — refresh policies compared through the real crawler
# (issue 5, acceptance 2): each policy crawls its own copy of the same
# simweb over HTTP on 127.0.0.1, at the same budget, with change rates
# unknown at the start, and simweb's truth says how fresh the collection
# is. The runs go side by side (one `freshcrawl demo` process each), so
# that the machine's load falls on all of them alike.
#
# The defaults: 200 hosts × 200 pages (about 21,000 that robots.txt allows),
# simulated time 3,600× wall time, a budget of 290 fetches/s, so that the
# uniform policy visits every page once every ~3 simulated days (a third of
# what daily visits need, as in the simulator's headline), 50 minutes
# (~122 simulated days); the table averages the live lines of the last 25
# (simulated days 61–122: a warm-up of 60 days, as the simulator's).
#
# Environment (defaults in brackets):
#   POLICIES ["optimal uniform nutch"]   crawl -policy values
#   HOSTS [200] PAGES [200] SPEED [3600] BUDGET [290] SEED [1]
#   DURATION [50m] WARMUP [25m] PROGRESS [10s]
#   KEEP [0]  1 keeps the logs and each policy's data directory
set -euo pipefail
# The whole script is one compound command, read before it runs, so that
# editing this file during a 50-minute run does not derail it.
{
cd "$(dirname "$0")/.."

POLICIES=${POLICIES:-"optimal uniform nutch"}
HOSTS=${HOSTS:-200}
PAGES=${PAGES:-200}
SPEED=${SPEED:-3600}
BUDGET=${BUDGET:-290}
SEED=${SEED:-1}
DURATION=${DURATION:-50m}
WARMUP=${WARMUP:-25m}
PROGRESS=${PROGRESS:-10s}
KEEP=${KEEP:-0}

log() { printf '%s\n' "policy-crawl: $*" >&2; }
die() { log "error: $*"; exit 1; }
for v in HOSTS PAGES SEED; do
	[[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a whole number, got '${!v}'"
done
for v in SPEED BUDGET; do
	[[ ${!v} =~ ^[0-9]+([.][0-9]+)?$ ]] || die "$v must be a number, got '${!v}'"
done

tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	if [[ $KEEP == 1 ]]; then log "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

go build -o "$tmp/freshcrawl" ./cmd/freshcrawl
log "crawling $HOSTS × $PAGES pages at ×$SPEED, budget $BUDGET/s, for $DURATION (averaging after $WARMUP): $POLICIES"
for p in $POLICIES; do
	data=()
	[[ $KEEP == 1 ]] && data=(-data "$tmp/$p.data")
	"$tmp/freshcrawl" demo "${data[@]}" -hosts "$HOSTS" -pages "$PAGES" -speed "$SPEED" -seed "$SEED" -budget "$BUDGET" \
		-for "$DURATION" -warmup "$WARMUP" -progress "$PROGRESS" -policy "$p" >"$tmp/$p.out" 2>"$tmp/$p.err" &
	pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
pids=()
[[ $status == 0 ]] || { for p in $POLICIES; do tail -3 "$tmp/$p.err" >&2; done; die "a crawl failed"; }

head -3 "$tmp/$(echo "$POLICIES" | awk '{print $1}').out" | sed 's/^demo: /  /' | grep -v 'refresh policy'
declare -A F H A R
base=""
for p in $POLICIES; do
	line=$(grep '^demo: mean of' "$tmp/$p.out") || die "$p: no summary line"
	F[$p]=$(sed 's/.* fresh \([0-9.]*\) .*/\1/' <<<"$line")
	H[$p]=$(sed 's/.* held \([0-9.]*\) .*/\1/' <<<"$line")
	A[$p]=$(sed 's/.* age(held) \([^ ]*\).*/\1/' <<<"$line")
	R[$p]=$(grep '^demo: [0-9]* requests' "$tmp/$p.out" | awk '{print $2}')
	[[ $p == uniform ]] && base=${F[$p]}
done
printf '\n%-14s %10s %10s %12s %10s %12s\n' policy fresh held "age(held)" requests "vs uniform"
for p in $POLICIES; do
	ratio=-
	[[ -n $base ]] && ratio=$(awk -v a="${F[$p]}" -v b="$base" 'BEGIN { printf "%.4f", a / b }')
	printf '%-14s %10s %10s %12s %10s %12s\n' "$p" "${F[$p]}" "${H[$p]}" "${A[$p]}" "${R[$p]}" "$ratio"
done
echo
echo "fresh: share of the pages robots.txt allows whose held copy is the live one (simweb's truth),"
echo "held: the same among the pages held; both averaged over the live lines after the warm-up."
exit
}
