#!/usr/bin/env bash
# crawl-throughput.sh — pages per second the crawler fetches, parses and
# stores, against simweb on the same machine (issue 3, acceptance 2).
#
# It builds freshcrawl, starts `freshcrawl simweb` (HOSTS × PAGES pages, no
# robots.txt Crawl-delay, no faults) in one process and `freshcrawl crawl`
# in another: every host's root as a seed, no per-host delay, no budget,
# one connection per host (always), real fsyncs of WARC and state. The crawl
# runs for DURATION, which is shorter than fetching the whole web takes, so
# the rate is a steady discovery-and-fetch rate. It prints a table: pages
# fetched, pages/s, CPU seconds of each process and per 1,000 pages, the
# floor BenchmarkLibraryFloor measures on the same machine right after
# (the bare net/http exchange, gunzip, tokenizer, digests, WARC gzip and
# simweb's handler for a page: the pages/s no crawler on these libraries
# could pass here) and the ratio to it, and the top of the crawler's CPU
# profile. All traffic goes to 127.0.0.1.
#
# Environment (defaults in brackets):
#   HOSTS [1000]  PAGES [100]   size of the web
#   DURATION [25s]              length of the crawl
#   WORKERS [1000]              crawl -workers
#   WEB_PORT [18090]            loopback port of the web
#   KEEP [0]                    1 keeps the temp dir (data, logs, profile)
#   BIN []                      a freshcrawl binary to run instead of
#                               building this tree's (throughput-ab.sh)
#   LISTEN [0]                  1 runs the crawl with -listen and, as an
#                               operator would, scrapes /metrics every
#                               second and reads /api/status every two
#                               (bench/listen-cost.sh compares the two)
#   BRIEF [0]                   1 prints one line (pages/s, CPU s per 1,000
#                               pages) and skips the floor and the profile
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/simweb.sh

HOSTS=${HOSTS:-1000}
PAGES=${PAGES:-100}
DURATION=${DURATION:-25s}
WORKERS=${WORKERS:-1000}
WEB_PORT=${WEB_PORT:-18090}
CONTROL_PORT=$((WEB_PORT + 1))
KEEP=${KEEP:-0}
LISTEN=${LISTEN:-0}
BRIEF=${BRIEF:-0}
LISTEN_PORT=$((WEB_PORT + 2))

log() { printf '%s\n' "crawl-throughput: $*" >&2; }
die() { log "error: $*"; exit 1; }
for v in HOSTS PAGES WORKERS WEB_PORT; do
	[[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a whole number, got '${!v}'"
done
[[ $DURATION =~ ^[0-9]+s$ ]] || die "DURATION must be whole seconds like 25s (got '$DURATION')"
command -v curl >/dev/null 2>&1 || die "needs curl"

tmp=$(mktemp -d)
web_pid=""
scrape_pid=""
cleanup() {
	[[ -n $scrape_pid ]] && kill "$scrape_pid" 2>/dev/null && wait "$scrape_pid" 2>/dev/null || true
	[[ -n $web_pid ]] && kill "$web_pid" 2>/dev/null && wait "$web_pid" 2>/dev/null || true
	if [[ $KEEP == 1 ]]; then log "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

if [[ -n ${BIN:-} ]]; then
	cp "$BIN" "$tmp/freshcrawl"
else
	log "building"
	go build -o "$tmp/freshcrawl" ./cmd/freshcrawl
fi

start_simweb "$tmp/freshcrawl" "$WEB_PORT" "$CONTROL_PORT" -hosts "$HOSTS" -pages "$PAGES" -crawl-delay 0
simweb_seeds "$CONTROL_PORT" >"$tmp/seeds.txt"
[[ $(wc -l <"$tmp/seeds.txt") -eq $HOSTS ]] || die "expected $HOSTS seeds, got $(wc -l <"$tmp/seeds.txt")"
web_cpu0=$(awk '{print $14 + $15}' "/proc/$web_pid/stat")
# The machine's CPU time split at the start (user nice system idle iowait
# irq softirq steal): a VM's steal time says how much of the CPU another
# tenant took, which the pages/s figure cannot show by itself.
read -r _ c1 c2 c3 c4 c5 c6 c7 c8 _ < /proc/stat

log "crawling $HOSTS × $PAGES pages for $DURATION"
listen=()
if [[ $LISTEN == 1 ]]; then
	listen=(-listen "127.0.0.1:$LISTEN_PORT")
	# A Prometheus scraping every second and a dashboard polling every two:
	# one curl each, which repeats its request at that rate (a query
	# string the server ignores numbers them), so that no process is
	# started per request on the machine measured.
	(
		curl -s --rate 1/s -w '%{stderr}%{http_code}\n' "http://127.0.0.1:$LISTEN_PORT/metrics?n=[1-100000]" >/dev/null 2>>"$tmp/scrapes" &
		curl -s --rate 30/m -w '%{stderr}%{http_code}\n' "http://127.0.0.1:$LISTEN_PORT/api/status?n=[1-100000]" >/dev/null 2>>"$tmp/scrapes" &
		trap 'kill $(jobs -p) 2>/dev/null' EXIT
		wait
	) &
	scrape_pid=$!
fi
TIMEFORMAT='%R %U %S'
# perf counts the crawler's instructions and cycles where the machine
# allows it: unlike seconds, instructions per page do not move with what
# other tenants of the host are doing.
perf=()
if command -v perf >/dev/null 2>&1 && perf stat -e instructions true >/dev/null 2>&1; then
	perf=(perf stat -x, -e instructions,cycles -o "$tmp/perf")
fi
{ time "${perf[@]}" "$tmp/freshcrawl" crawl -seeds "$tmp/seeds.txt" -data "$tmp/data" -scope any -allow-private \
	-resolve "*.test=127.0.0.1:$WEB_PORT" -delay 0 -budget 0 -workers "$WORKERS" -for "$DURATION" \
	-progress 5s -log-level error -cpuprofile "$tmp/cpu.prof" "${listen[@]}" >"$tmp/crawl.out" 2>"$tmp/crawl.err"; } 2>"$tmp/time"
web_cpu1=$(awk '{print $14 + $15}' "/proc/$web_pid/stat")
read -r _ d1 d2 d3 d4 d5 d6 d7 d8 _ < /proc/stat
total=$(( (d1+d2+d3+d4+d5+d6+d7+d8) - (c1+c2+c3+c4+c5+c6+c7+c8) ))
steal_pct=$(awk -v s=$((d8 - c8)) -v t="$total" 'BEGIN{printf "%.1f", (t > 0 ? 100 * s / t : 0)}')
idle_pct=$(awk -v s=$(((d4 + d5) - (c4 + c5))) -v t="$total" 'BEGIN{printf "%.1f", (t > 0 ? 100 * s / t : 0)}')
read -r real user sys <"$tmp/time"
ticks=$(getconf CLK_TCK)

summary=$(tail -1 "$tmp/crawl.out")
fetches=$(sed -n 's/.*requests ([^)]*), \([0-9]*\) fetches.*/\1/p' <<<"$summary")
[[ -n $fetches ]] || { cat "$tmp/crawl.out" "$tmp/crawl.err" >&2; die "no summary from the crawl"; }
secs=${DURATION%s}
crawl_cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{print u + s}')
if [[ $BRIEF == 1 ]]; then
	scrapes=0
	[[ -s $tmp/scrapes ]] && scrapes=$(grep -c '^200$' "$tmp/scrapes" || true)
	printf 'listen=%s pages=%d pages/s=%.1f cpu-s/1000=%.3f scrapes=%d\n' "$LISTEN" "$fetches" \
		"$(awk -v f="$fetches" -v s="$secs" 'BEGIN{print f / s}')" "$(awk -v c="$crawl_cpu" -v f="$fetches" 'BEGIN{print c / f * 1000}')" "$scrapes"
	exit 0
fi
web_cpu=$(awk -v a="$web_cpu0" -v b="$web_cpu1" -v t="$ticks" 'BEGIN{print (b - a) / t}')

printf '\n%-44s %s\n' "web" "$HOSTS hosts × $PAGES pages, $(nproc) cores, $(go env GOVERSION)"
printf '%-44s %s\n' "crawl" "-delay 0 -budget 0 -workers $WORKERS, fsync on"
printf '%-44s %d\n' "pages fetched, parsed and stored" "$fetches"
printf '%-44s %.0f\n' "pages/s (over $DURATION)" "$(awk -v f="$fetches" -v s="$secs" 'BEGIN{print f / s}')"
printf '%-44s %.1f s (user %.1f, sys %.1f)\n' "crawler CPU" "$crawl_cpu" "$user" "$sys"
printf '%-44s %.1f s\n' "simweb CPU" "$web_cpu"
printf '%-44s %.3f\n' "crawler CPU-seconds per 1,000 pages" "$(awk -v c="$crawl_cpu" -v f="$fetches" 'BEGIN{print c / f * 1000}')"
printf '%-44s %s %% idle, %s %% stolen by other tenants of the host\n' "machine during the run" "$idle_pct" "$steal_pct"
printf '%-44s %.3f\n' "simweb CPU-seconds per 1,000 pages" "$(awk -v c="$web_cpu" -v f="$fetches" 'BEGIN{print c / f * 1000}')"
if [[ -s $tmp/perf ]]; then
	insn=$(awk -F, '$3 ~ /^instructions/ {print $1}' "$tmp/perf")
	cyc=$(awk -F, '$3 ~ /^cycles/ {print $1}' "$tmp/perf")
	if [[ $insn =~ ^[0-9]+$ && $cyc =~ ^[0-9]+$ ]]; then
		printf '%-44s %.2f M instructions, %.2f M cycles\n' "crawler per page (perf stat)" \
			"$(awk -v i="$insn" -v f="$fetches" 'BEGIN{print i / f / 1e6}')" \
			"$(awk -v c="$cyc" -v f="$fetches" 'BEGIN{print c / f / 1e6}')"
	fi
fi
# The floor, measured now on the same machine: what the libraries the
# engine must use (net/http at both ends, x/net/html, gzip, SHA-1) and
# simweb's handler cost per page of this web when nothing else runs.
floor=$(go test -run '^$' -bench 'LibraryFloor' -benchtime 2s ./internal/crawler 2>/dev/null |
	awk '/floor-/ {for (i = 1; i < NF; i++) { if ($(i+1) == "with-web-µs/page") w = $i; if ($(i+1) == "ceiling-pages/s") c = $i }} END {print w, c}')
read -r floor_us ceiling <<<"$floor"
if [[ -n ${ceiling:-} ]]; then
	printf '%-44s %.0f µs of CPU, so at most %.0f pages/s on %d cores\n' "floor per page (BenchmarkLibraryFloor)" "$floor_us" "$ceiling" "$(nproc)"
	printf '%-44s %.2f\n' "measured pages/s ÷ that ceiling" "$(awk -v f="$fetches" -v s="$secs" -v c="$ceiling" 'BEGIN{print f / s / c}')"
fi

printf '\nwhere the crawler spends its CPU (go tool pprof -top, cumulative, by package):\n'
go tool pprof -top -cum -nodecount=400 "$tmp/freshcrawl" "$tmp/cpu.prof" 2>/dev/null |
	awk '/freshcrawl\/internal\/[a-z]+\.[^ ]+$/ || /compress\/flate\.\(\*compressor\)\.close|net\/http\.\(\*persistConn\)\.(readLoop|writeLoop)|runtime\.gcBgMarkWorker$|internal\/runtime\/syscall\/linux\.Syscall6/' |
	head -25
