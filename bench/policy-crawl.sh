#!/usr/bin/env bash
# policy-crawl.sh — refresh policies compared through the real crawler, on
# every world (issue 5, acceptance 2; issue 15): each policy crawls its own
# copy of the same world over HTTP on 127.0.0.1, at the same budget, with
# change rates unknown at the start, and the world's truth says how fresh
# the collection is. One `freshcrawl demo` process per run.
#
# Worlds (WORLDS, default "poisson bursty peps golang"):
#   poisson  simweb's Poisson web: 200 hosts × 200 pages (about 21,000 that
#            robots.txt allows), simulated time 3,600× wall time, a budget
#            of 290 fetches/s, so that the uniform policy visits every page
#            once every ~3 simulated days (a third of what daily visits
#            need, as in the simulator's headline); 50 minutes (~122
#            simulated days), averaged over the last 25 (days 61–122).
#   bursty   `demo -bursty`: the generated history's defaults, 4 sites of
#            200 pages growing 20 % a year, 3 years from 2020-01-01.
#            Speed 105,000 (3 years = 94.6 M s in 15 min = 900 s); pages
#            average about 1,000 over the run (800 growing to ~1,280, plus
#            ~13 index pages), so 3 fetches per page per history year is
#            3,000 per history year = 3,000 per 300 s wall: budget 10/s.
#            Averaged after 5 min (the first history year).
#   peps     `demo -replay $PEPS`: the Python PEPs' history, its last 12
#            years (from 2014-08-22 to the file's end, 2026-08-22). Speed
#            420,000 (12 years = 378.7 M s in 15 min = 900 s: 4.9 history
#            days a second, a history year every 75 s). Live pages grow from
#            ~360 to ~736, ~520 on average with the 8 index pages, so 3
#            fetches per page per history year is 1,560 per 75 s: budget
#            21/s. Averaged after 5 min (the first four history years).
#            PEPS defaults to ../shared/data/peps.tsv from the repository's
#            root, used only if it exists; else this world is skipped.
#   golang   `demo -replay $GOLANG`: the Go website's history, all of it
#            (2021-02-16 to 2026-08-21, 5.5 years; 52 % of its
#            modifications in mass edits). Speed 193,000 (5.5 years in 15
#            min: a history year every 164 s). Live pages grow from ~310
#            to ~540, ~480 on average with the index pages, so 3 fetches
#            per page per history year is 1,440 per 164 s: budget 9/s.
#            Averaged after 5 min. GOLANG defaults to
#            ../shared/data/golang-website.tsv, skipped if it is missing.
#
# Environment (defaults in brackets):
#   WORLDS ["poisson bursty peps golang"]  POLICIES ["optimal uniform roundrobin nutch stormcrawler"]
#   PEPS [../shared/data/peps.tsv]  GOLANG [../shared/data/golang-website.tsv]
#   SEED [1]  PROGRESS [10s]
#   DURATION, WARMUP, SPEED, BUDGET  override every world's own value
#   PARALLEL [1]  1: a world's policies run side by side (the machine's load
#                 falls on all of them alike); 0: one run at a time
#   KEEP [0]      1 keeps the logs and each run's data directory
set -euo pipefail
# The whole script is one compound command, read before it runs, so that
# editing this file during a long run does not derail it.
{
cd "$(dirname "$0")/.."

WORLDS=${WORLDS:-"poisson bursty peps golang"}
POLICIES=${POLICIES:-"optimal uniform roundrobin nutch stormcrawler"}
PEPS=${PEPS:-../shared/data/peps.tsv}
GOLANG=${GOLANG:-../shared/data/golang-website.tsv}
SEED=${SEED:-1}
PROGRESS=${PROGRESS:-10s}
PARALLEL=${PARALLEL:-1}
KEEP=${KEEP:-0}

log() { printf '%s\n' "policy-crawl: $*" >&2; }
die() { log "error: $*"; exit 1; }
[[ $SEED =~ ^[0-9]+$ ]] || die "SEED must be a whole number, got '$SEED'"
for v in SPEED BUDGET; do
	[[ -z ${!v:-} || ${!v} =~ ^[0-9]+([.][0-9]+)?$ ]] || die "$v must be a number, got '${!v}'"
done
[[ $PARALLEL == 0 || $PARALLEL == 1 ]] || die "PARALLEL must be 0 or 1"

# world_args WORLD: the demo flags of a world, its defaults first.
world_args() {
	local speed budget duration warmup extra
	case $1 in
	poisson) speed=3600 budget=290 duration=50m warmup=25m extra=(-hosts 200 -pages 200) ;;
	bursty) speed=105000 budget=10 duration=15m warmup=5m extra=(-bursty) ;;
	peps) speed=420000 budget=21 duration=15m warmup=5m extra=(-replay "$PEPS" -from 2014-08-22) ;;
	golang) speed=193000 budget=9 duration=15m warmup=5m extra=(-replay "$GOLANG") ;;
	*) die "unknown world '$1' (known: poisson bursty peps golang)" ;;
	esac
	echo "${extra[@]}" -speed "${SPEED:-$speed}" -budget "${BUDGET:-$budget}" \
		-for "${DURATION:-$duration}" -warmup "${WARMUP:-$warmup}"
}

tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	if [[ $KEEP == 1 ]]; then log "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

go build -o "$tmp/freshcrawl" ./cmd/freshcrawl

# run WORLD: every policy on the world, side by side or one at a time.
run() {
	local w=$1 p status=0
	read -ra args <<<"$(world_args "$w")"
	log "$w: ${args[*]}: $POLICIES"
	for p in $POLICIES; do
		data=()
		[[ $KEEP == 1 ]] && data=(-data "$tmp/$w.$p.data")
		"$tmp/freshcrawl" demo "${data[@]}" "${args[@]}" -seed "$SEED" -progress "$PROGRESS" -policy "$p" \
			>"$tmp/$w.$p.out" 2>"$tmp/$w.$p.err" &
		pids+=($!)
		if [[ $PARALLEL == 0 ]]; then wait "${pids[-1]}" || status=1; pids=(); fi
	done
	for p in "${pids[@]}"; do wait "$p" || status=1; done
	pids=()
	[[ $status == 0 ]] || { for p in $POLICIES; do tail -3 "$tmp/$w.$p.err" >&2; done; die "a crawl on $w failed"; }
}

ran=()
for w in $WORLDS; do
	if [[ $w == peps && ! -r $PEPS ]]; then
		log "peps: no history file at '$PEPS' (set PEPS): skipped"
		continue
	fi
	if [[ $w == golang && ! -r $GOLANG ]]; then
		log "golang: no history file at '$GOLANG' (set GOLANG): skipped"
		continue
	fi
	world_args "$w" >/dev/null
	run "$w"
	ran+=("$w")
done

printf '\n%-8s %-13s %8s %8s %10s %9s %7s %9s %7s %8s %8s\n' world policy fresh held "age(held)" requests budget "lag(d)" never "vs unif" impolite
for w in "${ran[@]}"; do
	declare -A F=() H=() A=() R=() U=() L=() N=() V=()
	base=""
	for p in $POLICIES; do
		out=$tmp/$w.$p.out
		line=$(grep '^demo: mean of' "$out") || die "$w $p: no summary line"
		F[$p]=$(sed 's/.* fresh \([0-9.]*\) .*/\1/' <<<"$line")
		H[$p]=$(sed 's/.* held \([0-9.]*\) .*/\1/' <<<"$line")
		A[$p]=$(sed 's/.* age(held) \([^ ]*\).*/\1/' <<<"$line")
		U[$p]=$(sed 's/.* budget used \([0-9.]*\).*/\1/' <<<"$line")
		R[$p]=$(grep '^demo: [0-9]* requests' "$out" | awk '{print $2}')
		L[$p]=- N[$p]=-
		V[$p]=$(grep '^demo: politeness audit:' "$out" | sed 's/.* requests, \([0-9]*\) violations.*/\1/')
		if d=$(grep '^demo: discovery:' "$out"); then
			L[$p]=$(sed 's/.* median lag \([0-9.]*\) days.*/\1/' <<<"$d")
			N[$p]=$(sed 's/.* \([0-9]*\) never fetched.*/\1/' <<<"$d")
		fi
		[[ $p == uniform ]] && base=${F[$p]}
	done
	for p in $POLICIES; do
		ratio=-
		[[ -n $base ]] && ratio=$(awk -v a="${F[$p]}" -v b="$base" 'BEGIN { printf "%.4f", a / b }')
		printf '%-8s %-13s %8s %8s %10s %9s %7s %9s %7s %8s %8s\n' "$w" "$p" "${F[$p]}" "${H[$p]}" "${A[$p]}" "${R[$p]}" "${U[$p]}" "${L[$p]}" "${N[$p]}" "$ratio" "${V[$p]}"
	done
	unset F H A R U L N V
done
echo
echo "fresh: share of the pages live (and allowed by robots.txt) whose held copy is the live one (the"
echo "world's truth); held: the same among the pages held; both averaged over the live lines after the"
echo "warm-up, as is age(held). budget: requests in that window / (budget × its seconds). lag(d): median"
echo "simulated days from a new page's creation to its first fetch; never: new pages never fetched."
echo "impolite: the world's politeness audit of the crawl (gaps under -delay, two requests at once,"
echo "Crawl-delay not kept, robots.txt-disallowed URLs), which should be 0."
exit
}
