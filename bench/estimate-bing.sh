#!/usr/bin/env bash
# estimate-bing.sh — time `freshcrawl estimate` on a history file in the Bing
# freshness dataset format (issue 4: 1,000,000 pages in under a minute).
#
# It writes a synthetic file (awk, seeded): LINES pages, each with a first
# crawl offset and CRAWLS recrawls a day or two apart on average, each page
# changing with its own probability; then runs `freshcrawl estimate -bing`
# over it with the default estimator and with every estimator, output to
# /dev/null, and prints a table of wall time, pages per second and MB/s.
#
# Environment (defaults in brackets):
#   LINES [1000000]  CRAWLS [60]   size of the file
#   KEEP [0]                       1 keeps the temp dir (the file)
set -euo pipefail
cd "$(dirname "$0")/.."

LINES=${LINES:-1000000}
CRAWLS=${CRAWLS:-60}
KEEP=${KEEP:-0}
log() { printf '%s\n' "estimate-bing: $*" >&2; }
die() { log "error: $*"; exit 1; }
for v in LINES CRAWLS; do
	[[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a whole number, got '${!v}'"
done

tmp=$(mktemp -d)
cleanup() { if [[ $KEEP == 1 ]]; then log "kept $tmp"; else rm -rf "$tmp"; fi; }
trap cleanup EXIT

log "building"
go build -o "$tmp/freshcrawl" ./cmd/freshcrawl

log "writing $LINES pages × $CRAWLS recrawls"
awk -v lines="$LINES" -v crawls="$CRAWLS" 'BEGIN {
	srand(4);
	for (i = 0; i < lines; i++) {
		p = rand() * rand();              # each page its own change probability
		printf "%d\t%.2f\t[", 1000000 + i, rand() * 7;
		for (j = 0; j < crawls; j++) {
			printf "%s[%.2f,%d]", (j ? "," : ""), 0.5 + rand() * 1.5, (rand() < p);
		}
		printf "]\n";
	}
}' >"$tmp/urlid_offset_history.txt"
bytes=$(stat -c %s "$tmp/urlid_offset_history.txt")

printf '\n%-34s %10s %10s %12s %8s\n' "run" "pages" "wall s" "pages/s" "MB/s"
for est in auto all; do
	start=$(date +%s.%N)
	"$tmp/freshcrawl" estimate -bing "$tmp/urlid_offset_history.txt" -estimator "$est" >/dev/null
	end=$(date +%s.%N)
	awk -v n="$LINES" -v s="$start" -v e="$end" -v b="$bytes" -v name="-estimator $est" \
		'BEGIN { t = e - s; printf "%-34s %10d %10.1f %12.0f %8.1f\n", name, n, t, n / t, b / t / 1e6 }'
	"$tmp/freshcrawl" estimate -bing "$tmp/urlid_offset_history.txt" -estimator "$est" -json -limit 1 >"$tmp/one.json"
done
printf '\nfile: %d bytes; a -json line: %s\n' "$bytes" "$(head -c 300 "$tmp/one.json")"
