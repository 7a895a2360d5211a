#!/usr/bin/env bash
# peers.sh — freshcrawl beside the crawlers people use for one-off site
# crawls (issue 17): wget, wget with a WARC file, wget2 and Colly, on a real
# static corpus served by nginx on loopback.
#
# The corpus is Debian's rust-doc (the Rust 1.63 documentation, 580 MB of
# HTML), served from its installed directory with a robots.txt that
# disallows /src/ (the source view pages, linked from every item's page).
# The script installs what it needs with apt-get where it is missing
# (rust-doc, nginx, wget, wget2, time) and builds freshcrawl and a small
# Colly program (bench/peers/colly, a Go module of its own). Then, one
# crawler after the other, each from /index.html:
#
#   1. a full crawl at the crawler's own pace (no delay), to its end, under
#      /usr/bin/time -v: pages/s, CPU per page, peak RSS, and from nginx's
#      access log the connections used, the pages fetched, coverage (the
#      distinct pages fetched over those any crawler reached), repeat
#      fetches, requests under the disallowed path, and the gaps between a
#      response's end and the next request's start (ms, median and 90th
#      percentile: nginx logs whole milliseconds);
#      freshcrawl's full crawl also serves its metrics (-listen), and the
#      script prints the crawler's own histogram of those gaps, in
#      microsecond buckets, from the last scrape;
#   2. a crawl with a 0.1 s delay for DELAY_FOR: the share of the gaps
#      under 0.1 s (less 2 ms for the log's resolution; a crawler with
#      several connections open has negative gaps, requests that overlap).
#
# freshcrawl runs `crawl -once -scope host -delay 0 -budget 0` with its
# WARC files and state synced as always; wget `-r -l inf -np -e robots=on`,
# and again with --warc-file; wget2 `-r -l 0 -np --robots=on`; Colly with 8
# requests at a time, robots.txt obeyed. All traffic is on 127.0.0.1.
#
# Environment (defaults in brackets):
#   CRAWLERS ["freshcrawl wget wget-warc wget2 colly"]  which, in order
#   DELAY_FOR [10]    seconds of the delay-check crawl
#   PORT [18180]      nginx's loopback port
#   KEEP [0]          1 keeps the temp dir (logs, /usr/bin/time output)
#   FC_ARGS [""]      more flags for freshcrawl's full crawl (-cpuprofile F)
set -euo pipefail
cd "$(dirname "$0")/.."

CRAWLERS=${CRAWLERS:-"freshcrawl wget wget-warc wget2 colly"}
DELAY_FOR=${DELAY_FOR:-10}
PORT=${PORT:-18180}
KEEP=${KEEP:-0}
ROOT=/usr/share/doc/rust-doc/html

log() { printf '%s\n' "peers: $*" >&2; }
die() { log "error: $*"; exit 1; }
[[ $DELAY_FOR =~ ^[0-9]+$ ]] || die "DELAY_FOR must be whole seconds"
for c in $CRAWLERS; do
	case $c in freshcrawl | wget | wget-warc | wget2 | colly) ;; *) die "unknown crawler '$c'" ;; esac
done

# What is missing, installed as Debian packages.
missing=()
[[ -f $ROOT/index.html ]] || missing+=(rust-doc)
command -v nginx >/dev/null || missing+=(nginx)
command -v wget >/dev/null || missing+=(wget)
command -v wget2 >/dev/null || missing+=(wget2)
[[ -x /usr/bin/time ]] || missing+=(time)
command -v curl >/dev/null || missing+=(curl)
if ((${#missing[@]})); then
	log "installing ${missing[*]}"
	sudo=()
	[[ $(id -u) -eq 0 ]] || sudo=(sudo)
	export DEBIAN_FRONTEND=noninteractive
	"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
		{ "${sudo[@]}" apt-get update -q >/dev/null && "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; } ||
		die "could not install ${missing[*]}"
fi

tmp=$(mktemp -d)
chmod 755 "$tmp"
nginx_pid=""
cleanup() {
	[[ -n $nginx_pid ]] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null || true
	if [[ $KEEP == 1 ]]; then log "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

log "building freshcrawl and the Colly program"
go build -o "$tmp/freshcrawl" ./cmd/freshcrawl
(cd bench/peers/colly && go build -o "$tmp/colly" .)

printf 'User-agent: *\nDisallow: /src/\n' >"$tmp/robots.txt"
sed -e "s|@TMP@|$tmp|g" -e "s|@PORT@|$PORT|g" -e "s|@ROOT@|$ROOT|g" bench/peers/nginx.conf.in >"$tmp/nginx.conf"
nginx -c "$tmp/nginx.conf" -p "$tmp" &
nginx_pid=$!
for _ in $(seq 100); do
	curl -fs "http://127.0.0.1:$PORT/robots.txt" >/dev/null 2>&1 && break
	sleep 0.1
done
curl -fs "http://127.0.0.1:$PORT/robots.txt" >/dev/null 2>&1 || die "nginx did not start: $(cat "$tmp/nginx-error.log" 2>/dev/null)"
start=http://127.0.0.1:$PORT/index.html

# crawl NAME MODE runs crawler NAME, MODE full (no delay, to the end) or
# delay (0.1 s, for DELAY_FOR seconds), in a directory of its own.
crawl() {
	local name=$1 mode=$2 dir=$tmp/$1-$2
	mkdir -p "$dir"
	local wait=() fc=(-delay 0 -budget 0) limit=()
	if [[ $mode == delay ]]; then
		wait=(--wait=0.1)
		fc=(-delay 100ms -budget 0 -for "${DELAY_FOR}s")
		limit=(timeout -s INT -k 5 "$DELAY_FOR") # wget2 may not end on INT
	fi
	case $name in
	freshcrawl)
		# shellcheck disable=SC2206 # FC_ARGS is a list of flags
		[[ $mode == full ]] && fc+=(-listen "127.0.0.1:$((PORT + 1))" ${FC_ARGS:-})
		"$tmp/freshcrawl" crawl -once -seed "$start" -data "$dir/data" -scope host -allow-private "${fc[@]}" \
			-progress 0 -log-level error -user-agent "freshcrawl/peers" ;;
	wget)
		"${limit[@]}" wget -r -l inf -np -nv -e robots=on -U wget/peers -P "$dir" "${wait[@]}" "$start" ;;
	wget-warc)
		"${limit[@]}" wget -r -l inf -np -nv -e robots=on -U wget-warc/peers -P "$dir" --warc-file="$dir/crawl" \
			"${wait[@]}" "$start" ;;
	wget2)
		"${limit[@]}" wget2 -r -l 0 -np -nv --robots=on -U wget2/peers -P "$dir" "${wait[@]}" "$start" ;;
	colly)
		if [[ $mode == delay ]]; then
			"$tmp/colly" -start "$start" -parallel 1 -delay 100ms -for "${DELAY_FOR}s"
		else
			"$tmp/colly" -start "$start" -parallel 8
		fi ;;
	esac
}

lines() { [[ -f $tmp/access.log ]] && wc -l <"$tmp/access.log" || echo 0; }
# run NAME MODE crawls and keeps NAME's lines of the access log in
# $tmp/NAME-MODE.log.
run() {
	local name=$1 mode=$2 from
	from=$(lines)
	log "$name: $mode crawl"
	# freshcrawl's full crawl serves its metrics; one curl outside the
	# timed process scrapes them twice a second, the last scrape holding
	# the crawler's own histogram of its request gaps.
	local scraper=""
	if [[ $name == freshcrawl && $mode == full ]]; then
		curl -s --rate 2/s "http://127.0.0.1:$((PORT + 1))/metrics?n=[1-100000]" >"$tmp/metrics" 2>/dev/null &
		scraper=$!
	fi
	/usr/bin/time -v -o "$tmp/$name-$mode.time" bash -c "$(declare -f crawl); $(declare -p tmp start DELAY_FOR PORT); crawl $name $mode" \
		>"$tmp/$name-$mode.out" 2>&1 || true
	[[ -n $scraper ]] && { kill "$scraper" 2>/dev/null; wait "$scraper" 2>/dev/null || true; }
	sleep 1.5 # nginx flushes its log buffer every second
	tail -n +"$((from + 1))" "$tmp/access.log" | grep -v ' "/robots.txt" ' >"$tmp/$name-$mode.log" || true
	rm -rf "${tmp:?}/$name-$mode"
}

for c in $CRAWLERS; do
	run "$c" full
	run "$c" delay
done

# Every page any crawler reached: the coverage's denominator.
cat "$tmp"/*-full.log | awk '$4 == 200 && $6 ~ /\.html"$|\/"$/ && $6 !~ /^"\/src\// {print $6}' | sort -u >"$tmp/reached"
reached=$(wc -l <"$tmp/reached")

# gaps LOG prints, in ms, each request's start less the end of the one
# logged before it.
gaps() { awk '{ if (NR > 1) print ($1 - $2 - last) * 1000; last = $1 }' "$1"; }

timefield() { sed -n "s/^[[:space:]]*$2: //p" "$tmp/$1-full.time"; }
elapsed() { # Elapsed (wall clock) time (h:mm:ss or m:ss.ss) in seconds
	timefield "$1" 'Elapsed (wall clock) time (h:mm:ss or m:ss)' |
		awk -F: '{s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s}'
}

printf '\ncorpus: %s (%d HTML files), robots.txt disallows /src/; %d pages reached by some crawler\n' \
	"$ROOT" "$(find "$ROOT" -name '*.html' | wc -l)" "$reached"
printf '%-11s %5s %8s %8s %8s %7s %7s %8s %9s %11s %9s\n' crawler conns pages pages/s "CPU ms" "RSS MB" cover repeats "disallow" "gap ms p50/p90" "<0.1s gaps"
for c in $CRAWLERS; do
	f=$tmp/$c-full.log
	secs=$(elapsed "$c")
	cpu=$(awk -v u="$(timefield "$c" 'User time (seconds)')" -v s="$(timefield "$c" 'System time (seconds)')" 'BEGIN{print u + s}')
	rss=$(timefield "$c" 'Maximum resident set size (kbytes)')
	read -r conns pages distinct repeats disallowed < <(awk '
		{ conn[$3]; seen[$6]++; if (seen[$6] > 1) rep++
		  if ($6 ~ /^"\/src\//) dis++
		  if ($4 == 200 && $6 ~ /\.html"$|\/"$/) { pages++; if (!($6 in pg)) { pg[$6]; d++ } } }
		END { c = 0; for (k in conn) c++; printf "%d %d %d %d %d\n", c, pages, d, rep + 0, dis + 0 }' "$f")
	read -r p50 p90 < <(gaps "$f" | sort -n | awk '{ g[NR] = $1 } END {
		if (!NR) { print "0 0"; exit }
		i = int(NR * 0.9) + 1; if (i > NR) i = NR
		printf "%.1f %.1f\n", g[int((NR + 1) / 2)], g[i] }')
	under=$(awk '{ end[NR] = $1; st[NR] = $1 - $2 } END { for (i = 2; i <= NR; i++) { m++; if (st[i] - end[i - 1] < 0.098) u++ }
		printf "%.0f %% of %d", (m ? 100 * u / m : 0), m }' "$tmp/$c-delay.log")
	printf '%-11s %5d %8d %8.0f %8.2f %7.0f %6.1f%% %8d %9d %5.1f/%-5.1f %11s\n' "$c" "$conns" "$pages" \
		"$(awk -v p="$pages" -v s="$secs" 'BEGIN{print (s > 0 ? p / s : 0)}')" \
		"$(awk -v c="$cpu" -v p="$pages" 'BEGIN{print (p > 0 ? 1000 * c / p : 0)}')" \
		"$(awk -v r="$rss" 'BEGIN{print r / 1024}')" \
		"$(awk -v d="$distinct" -v r="$reached" 'BEGIN{print (r > 0 ? 100 * d / r : 0)}')" \
		"$repeats" "$disallowed" "$p50" "$p90" "$under"
done
# freshcrawl's own histogram of the time from a response's end to its
# host's next request (microsecond buckets, where nginx logs milliseconds).
if [[ -s $tmp/metrics ]]; then
	grep '^freshcrawl_host_request_gap_seconds_bucket' "$tmp/metrics" | tail -25 |
		sed 's/.*le="\([^"]*\)"} \(.*\)/\1 \2/' | awk '
		{ le[NR] = $1; c[NR] = $2 } END {
			total = c[NR]; if (!total) exit
			printf "\nfreshcrawl, full-speed crawl: gap from a response'"'"'s end to the host'"'"'s next request (its own histogram, %d gaps)\n", total
			prev = 0; lo = 0
			for (i = 1; i <= NR; i++) {
				if (c[i] > prev) printf "  %12s – %-8s %7d  %5.1f %%\n", (lo == 0 ? "0" : sprintf("%g ms", lo * 1000)),
					(le[i] == "+Inf" ? "more" : sprintf("%g ms", le[i] * 1000)), c[i] - prev, 100 * (c[i] - prev) / total
				if (!m50 && c[i] >= total / 2) m50 = le[i]
				prev = c[i]; lo = le[i]
			}
			printf "  median under %g ms\n", m50 * 1000
		}'
	awk '$1 == "freshcrawl_pages_committed_total" { p = $2 } $1 == "freshcrawl_commits_total" { c = $2 }
		END { if (c > 0) printf "freshcrawl, full-speed crawl: %d outcomes in %d commits (%.1f an fsync pair)\n", p, c, p / c }' "$tmp/metrics"
fi

printf '\ncolumns: connections used; HTML pages fetched (200); pages/s over the wall time; CPU ms (user + sys) a page;\n'
printf 'peak RSS; coverage (distinct pages over those reached); repeat requests; requests under /src/; gap from a\n'
printf "response's end to the next request's start, full-speed crawl; share of gaps under the 0.1 s delay, delay crawl\n"
