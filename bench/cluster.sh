#!/usr/bin/env bash
# cluster.sh — the crawler cluster on this machine against a static simweb
# (issue 18, acceptance 1 and 4): one process (`crawl -once`), then
# `freshcrawl cluster` with NODES nodes in each of MODES, each run to its
# end, and for each the figures of dissertation ch. 3 (§3.4) measured from
# outside the crawler where they can be:
#
#   pages/s      distinct pages fetched over the wall time
#   coverage     I/U: distinct pages held over the pages simweb serves that
#                robots.txt allows (one process's disallowed count)
#   vs one       the cluster's pages held over one process's
#   overlap      (N − I)/I from the partitions' page rows (freshcrawl
#                status: N the rows, I the distinct pages among them), and
#                the rows a partition holds of another's pages
#   URLs/page    [URL, count] entries sent between partitions per page
#                fetched (and the links they stood for); URL-hash: the links
#                a page recorded that would join two partitions were URLs,
#                not sites, hashed (freshcrawl status, on the crawl's own
#                link graph: a node refuses URL hash, which splits hosts)
#   audit        simweb's politeness audit over the run: requests to a host
#                closer than DELAY, more than one at a time, Crawl-delay,
#                robots.txt-disallowed (all should be 0)
#
# A cluster run has no -once (a partition cannot know the others are
# done); it is stopped with SIGTERM once simweb has served no request for
# QUIET seconds. The web is simweb's with -churn 0 (no page born or
# dying), no robots.txt answering 5xx and no Crawl-delay (a Crawl-delay of
# up to 5 s on a fifth of the hosts would make every run last its slowest
# host's 250 × 5 s; the crawler keeps it, as TestKillNodes checks).
#
# Environment (defaults in brackets):
#   HOSTS [400] PAGES [250]   the web
#   NODES ["4"]               node counts, e.g. "1 2 4" for the scaling row
#   MODES ["exchange firewall"]
#   DELAY [100ms]             -delay (and the audit's threshold); 0 for throughput
#   PARTITIONS [16] QUIET [10] WEB_PORT [18110]
#   SEEDS [all]               seed only the first SEEDS hosts (ch. 3 seeds a few:
#                             firewall mode then misses what other partitions link)
#   REPLICATE [""]            K: the cluster runs replicate the K most linked URLs of
#                             the one-process crawl (rank -data -out, -replicate)
#   KEEP [0]                  1 keeps the temp dir (data directories, logs)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/simweb.sh

HOSTS=${HOSTS:-400}
PAGES=${PAGES:-250}
NODES=${NODES:-4}
MODES=${MODES:-"exchange firewall"}
DELAY=${DELAY:-100ms}
PARTITIONS=${PARTITIONS:-16}
QUIET=${QUIET:-10}
WEB_PORT=${WEB_PORT:-18110}
CONTROL_PORT=$((WEB_PORT + 1))

log() { printf '%s\n' "cluster: $*" >&2; }
die() { log "error: $*"; exit 1; }
command -v curl >/dev/null 2>&1 || die "needs curl"

tmp=$(mktemp -d)
web_pid=""
cleanup() {
	[[ -n $web_pid ]] && kill "$web_pid" 2>/dev/null && wait "$web_pid" 2>/dev/null || true
	if [[ ${KEEP:-0} == 1 ]]; then log "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

log "building"
go build -o "$tmp/freshcrawl" ./cmd/freshcrawl
audit_delay=$DELAY
[[ $DELAY == 0 || $DELAY == 0s ]] && audit_delay=0
start_simweb "$tmp/freshcrawl" "$WEB_PORT" "$CONTROL_PORT" -hosts "$HOSTS" -pages "$PAGES" -churn 0 -robots-500 0 \
	-crawl-delay 0 -speed 1
simweb_seeds "$CONTROL_PORT" >"$tmp/all-seeds.txt"
if [[ -n ${SEEDS:-} ]]; then head -n "$SEEDS" "$tmp/all-seeds.txt" >"$tmp/seeds.txt"; else cp "$tmp/all-seeds.txt" "$tmp/seeds.txt"; fi
served=$(curl -fs "http://127.0.0.1:$CONTROL_PORT/snapshot" | wc -l)
flags=(-seeds "$tmp/seeds.txt" -scope any -allow-private -resolve "*.test=127.0.0.1:$WEB_PORT" -delay "$DELAY"
	-budget 0 -progress 0 -log-level error)

reset_audit() { curl -fs -X POST "http://127.0.0.1:$CONTROL_PORT/audit/reset?delay=$audit_delay&concurrency=1" >/dev/null; }
audit() {
	curl -fs "http://127.0.0.1:$CONTROL_PORT/audit" >"$tmp/audit.json"
	f() { grep -o "\"$1\": *[0-9]*" "$tmp/audit.json" | head -1 | grep -o '[0-9]*$'; }
	printf '%d/%d/%d/%d' "$(f delay_violations)" "$(f concurrency_violations)" "$(f crawl_delay_violations)" "$(f disallowed_requests)"
}
requests() { curl -fs "http://127.0.0.1:$CONTROL_PORT/audit" | grep -o '"requests": *[0-9]*' | head -1 | grep -o '[0-9]*$'; }
jfield() { grep -o "\"$2\": *[0-9.]*" "$1" | head -1 | grep -o '[0-9.]*$'; }

rows=()
# One process, -once.
log "one process, crawl -once"
reset_audit
t0=$(date +%s.%N)
"$tmp/freshcrawl" crawl -once -data "$tmp/one" "${flags[@]}" >"$tmp/one.out" 2>"$tmp/one.err" || die "crawl -once failed: $(tail -3 "$tmp/one.err")"
t1=$(date +%s.%N)
one_audit=$(audit)
"$tmp/freshcrawl" status -data "$tmp/one" -json >"$tmp/one.json"
one_held=$(jfield "$tmp/one.json" pages_held)
disallowed=$(sed -n "s/.*(\([0-9]*\) disallowed by robots.txt).*/\1/p" "$tmp/one.out")
allowed=$((served - ${disallowed:-0}))
rows+=("$(awk -v w="$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" -v h="$one_held" -v u="$allowed" -v a="$one_audit" \
	'BEGIN{printf "%-22s %7.1f %8.0f %7d %9.4f %7.4f %8s %9s %11s %9s %s", "one process", w, h/w, h, h/u, 1, "-", "-", "-", "-", a}')")

replicate=()
if [[ -n ${REPLICATE:-} ]]; then
	"$tmp/freshcrawl" rank -data "$tmp/one" -out "$tmp/ranks.tsv" >/dev/null || die "rank -data failed"
	replicate=(-replicate "$tmp/ranks.tsv" -replicate-top "$REPLICATE")
fi

for nodes in $NODES; do
	for mode in $MODES; do
		log "$nodes nodes, $mode"
		reset_audit
		dir=$tmp/c-$nodes-$mode
		t0=$(date +%s.%N)
		"$tmp/freshcrawl" cluster -nodes "$nodes" -data "$dir" -partitions "$PARTITIONS" -cluster-mode "$mode" \
			"${flags[@]}" "${replicate[@]}" >"$tmp/c.out" 2>"$tmp/c.err" &
		pid=$!
		last=-1 quiet=0
		while kill -0 "$pid" 2>/dev/null; do
			sleep 1
			n=$(requests)
			if [[ $n == "$last" && $n -gt 0 ]]; then quiet=$((quiet + 1)); else quiet=0 last=$n; fi
			((quiet >= QUIET)) && break
		done
		t1=$(date +%s.%N)
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" || true
		wall=$(awk -v a="$t0" -v b="$t1" -v q="$QUIET" 'BEGIN{print b-a-q}')
		a=$(audit)
		"$tmp/freshcrawl" status -data "$dir" -json >"$tmp/c.json" || die "status: $(cat "$tmp/c.err" | tail -3)"
		prows=$(grep -o '"page_rows": *[0-9]*' "$tmp/c.json" | tail -1 | grep -o '[0-9]*$')
		distinct=$(jfield "$tmp/c.json" distinct_pages)
		strays=$(jfield "$tmp/c.json" stray_rows)
		held=$(grep -o '"pages_held": *[0-9]*' "$tmp/c.json" | tail -1 | grep -o '[0-9]*$')
		sent=$(grep -o '"sent": *[0-9]*' "$tmp/c.json" | tail -1 | grep -o '[0-9]*$')
		links=$(grep -o '"links_sent": *[0-9]*' "$tmp/c.json" | tail -1 | grep -o '[0-9]*$')
		cross=$(jfield "$tmp/c.json" url_hash_cross_links)
		rows+=("$(awk -v n="$nodes" -v m="$mode" -v w="$wall" -v h="$held" -v u="$allowed" -v o="$one_held" -v r="$prows" \
			-v d="$distinct" -v st="$strays" -v s="$sent" -v l="$links" -v x="$cross" -v a="$a" 'BEGIN{
			printf "%-22s %7.1f %8.0f %7d %9.4f %7.4f %8s %9s %11s %9s %s", n " nodes, " m, w, d/w, h, h/u, h/o,
				sprintf("%.4f/%d", (r-d)/d, st), sprintf("%.3f", s/r), sprintf("%.3f", l/r), sprintf("%.3f", x/r), a}')")
	done
done

printf '\nweb: %d hosts × %d pages, static, %d pages served, %d that robots.txt allows; %d seeds; -delay %s, no budget, %d partitions%s\n' \
	"$HOSTS" "$PAGES" "$served" "$allowed" "$(wc -l <"$tmp/seeds.txt")" "$DELAY" "$PARTITIONS" "${REPLICATE:+; the $REPLICATE most linked URLs replicated}"
printf '%-22s %7s %8s %7s %9s %7s %8s %9s %11s %9s %s\n' "run" "wall s" "pages/s" "held" "coverage" "vs one" "overlap" "URLs/page" "links/page" "URL-hash" "audit d/c/cd/dis"
for r in "${rows[@]}"; do printf '%s\n' "$r"; done
