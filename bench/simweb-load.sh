#!/usr/bin/env bash
# simweb-load.sh — measure the request rate `freshcrawl simweb` serves on this
# machine, with the load generator wrk.
#
# It builds freshcrawl, starts `freshcrawl simweb` on loopback, samples a fixed
# list of page URLs from the control API's /snapshot, and drives wrk through
# that list (a Lua script sets the Host header of every request, so load is
# spread over all hosts). Two runs: without Accept-Encoding (the main figure,
# no gzip) and with Accept-Encoding: gzip. Then the same wrk script drives
# bench/static-server, net/http serving one fixed page of the same size: the
# ceiling of net/http with this load generator on this machine, and the
# reference simweb's rate is reported against. It prints a table and stops
# the servers. All traffic goes to 127.0.0.1.
#
# Environment (defaults in brackets):
#   HOSTS [1000]  PAGES [1000]     size of the web (pages per host)
#   DURATION [20s]                 length of each wrk run
#   CONNS [64]  THREADS [2]        wrk connections and threads
#   SAMPLE [100000]                URLs in the list (every Nth snapshot line)
#   WEB_PORT [18080]  CONTROL_PORT [18081]   loopback ports (0: any free port)
#   STATIC_PORT [18082]           loopback port of the reference server
#   GZIP_RUN [1]                   0 skips the Accept-Encoding: gzip run
#   KEEP_LOGS [0]                  1 keeps the temp dir (server and wrk logs)
set -euo pipefail

cd "$(dirname "$0")/.."

HOSTS=${HOSTS:-1000}
PAGES=${PAGES:-1000}
DURATION=${DURATION:-20s}
CONNS=${CONNS:-64}
THREADS=${THREADS:-2}
SAMPLE=${SAMPLE:-100000}
WEB_PORT=${WEB_PORT:-18080}
CONTROL_PORT=${CONTROL_PORT:-18081}
STATIC_PORT=${STATIC_PORT:-18082}
GZIP_RUN=${GZIP_RUN:-1}
KEEP_LOGS=${KEEP_LOGS:-0}
LOOPBACK=127.0.0.1

log() { printf '%s\n' "simweb-load: $*" >&2; }
die() { log "error: $*"; exit 1; }

for v in HOSTS PAGES CONNS THREADS SAMPLE WEB_PORT CONTROL_PORT STATIC_PORT; do
	[[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a whole number, got '${!v}'"
done
[[ $DURATION =~ ^[0-9]+[smh]?$ ]] || die "DURATION must look like 20s, 1m (got '$DURATION')"

# --- tools -------------------------------------------------------------------
need_apt=()
command -v wrk >/dev/null 2>&1 || need_apt+=(wrk)
command -v curl >/dev/null 2>&1 || need_apt+=(curl)
if ((${#need_apt[@]})); then
	log "installing ${need_apt[*]} with apt-get"
	sudo_cmd=()
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null 2>&1 || die "need root or sudo to install ${need_apt[*]}"
		sudo_cmd=(sudo)
	fi
	"${sudo_cmd[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
command -v go >/dev/null 2>&1 || die "go not found"

# --- temp dir, server, cleanup -------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/simweb-load.XXXXXX")
server_pid="" wrk_pid="" static_pid=""
cleanup() {
	local rc=$?
	if [[ -n $wrk_pid ]] && kill -0 "$wrk_pid" 2>/dev/null; then
		kill "$wrk_pid" 2>/dev/null || true
		wait "$wrk_pid" 2>/dev/null || true
	fi
	for pid in "$server_pid" "$static_pid"; do
		if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
			kill "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
		fi
	done
	if [[ $KEEP_LOGS == 1 ]]; then
		log "kept logs in $tmp"
	else
		rm -rf "$tmp"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

now() { # seconds since the epoch, microsecond resolution
	if [[ -n ${EPOCHREALTIME:-} ]]; then printf '%s\n' "${EPOCHREALTIME/,/.}"; else date +%s.%N; fi
}
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
hwm_kb() { awk '$1 == "VmHWM:" { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

log "building freshcrawl"
go build -o "$tmp/freshcrawl" ./cmd/freshcrawl
go build -o "$tmp/static-server" ./bench/static-server

log "starting simweb: $HOSTS hosts × $PAGES pages on $LOOPBACK:$WEB_PORT (control $LOOPBACK:$CONTROL_PORT)"
t_start=$(now)
"$tmp/freshcrawl" simweb -hosts "$HOSTS" -pages "$PAGES" \
	-addr "$LOOPBACK:$WEB_PORT" -control "$LOOPBACK:$CONTROL_PORT" \
	>"$tmp/server.out" 2>"$tmp/server.err" &
server_pid=$!

# The server prints its addresses and a first host once both listeners are
# open; then poll that host's home page until it answers 200.
web_addr="" ctl_addr="" first_host=""
deadline=$(($(date +%s) + 120))
while :; do
	kill -0 "$server_pid" 2>/dev/null || { cat "$tmp/server.err" >&2; die "simweb exited during startup"; }
	if [[ -z $first_host ]]; then
		# One read of the log for all three: it is being written meanwhile.
		out=$(cat "$tmp/server.out")
		web_addr=$(sed -n 's|^simweb: web on http://\([^ ]*\) .*|\1|p' <<<"$out")
		ctl_addr=$(sed -n 's|^simweb: control on http://\([^ ]*\) .*|\1|p' <<<"$out")
		first_host=$(sed -n 's|^simweb: try  curl -x [^ ]* http://\([^/]*\)/.*|\1|p' <<<"$out")
		[[ -n $web_addr && -n $ctl_addr ]] || first_host=""
	fi
	if [[ -n $first_host ]] &&
		code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -H "Host: $first_host" "http://$web_addr/") &&
		[[ $code == 200 ]]; then
		break
	fi
	(($(date +%s) < deadline)) || die "simweb did not answer within 120 s"
	sleep 0.02
done
t_ready=$(now)
startup=$(awk -v a="$t_start" -v b="$t_ready" 'BEGIN { printf "%.2f", b - a }')
[[ ${web_addr%:*} == "$LOOPBACK" && ${ctl_addr%:*} == "$LOOPBACK" ]] || die "simweb is not on $LOOPBACK ($web_addr, $ctl_addr)"
rss_start=$(rss_kb "$server_pid")
log "serving after ${startup}s on $web_addr (RSS $((rss_start / 1024)) MB)"

# --- URL list ------------------------------------------------------------------
# Every Nth line of the snapshot, N chosen so that about SAMPLE URLs remain.
# Lines look like {"url":"http://h0-com.test/dir/12.html","version":3,...}.
stride=$(((HOSTS * PAGES + SAMPLE - 1) / SAMPLE))
((stride >= 1)) || stride=1
t0=$(now)
curl -sS --fail --max-time 600 "http://$ctl_addr/snapshot" |
	awk -v n="$stride" -v max="$SAMPLE" '
		(NR - 1) % n == 0 && match($0, /"url":"http:\/\/[^"]*"/) {
			u = substr($0, RSTART + 14, RLENGTH - 15)   # host/path
			i = index(u, "/")
			print substr(u, 1, i - 1), substr(u, i)
			if (++k >= max) exit
		}' >"$tmp/urls.txt"
t1=$(now)
nurls=$(wc -l <"$tmp/urls.txt")
nhosts=$(awk '{ print $1 }' "$tmp/urls.txt" | sort -u | wc -l)
((nurls > 0)) || die "no URLs in the snapshot"
snap_secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
log "URL list: $nurls URLs on $nhosts hosts (snapshot lines 1, 1+${stride}, 1+2×${stride}, …; snapshot took ${snap_secs}s)"

# --- wrk script ----------------------------------------------------------------
# Each thread loads the list, builds every request once, and walks the list
# with a stride coprime to its length from its own offset, so consecutive
# requests go to different hosts and all URLs are used.
cat >"$tmp/urls.lua" <<'LUA'
local list = os.getenv("SIMWEB_URLS")
local gzip = os.getenv("SIMWEB_GZIP") == "1"
local nthreads = tonumber(os.getenv("SIMWEB_THREADS")) or 1

local counter = 0
function setup(thread)
	thread:set("id", counter)
	counter = counter + 1
end

local reqs, n, i, step = {}, 0, 0, 1

local function gcd(a, b)
	while b ~= 0 do a, b = b, a % b end
	return a
end

function init(args)
	for line in io.lines(list) do
		local host, path = line:match("^(%S+) (%S+)$")
		if host then
			local h = { Host = host }
			if gzip then h["Accept-Encoding"] = "gzip" end
			n = n + 1
			reqs[n] = wrk.format("GET", path, h)
		end
	end
	step = 7919
	while gcd(step, n) ~= 1 do step = step + 2 end
	i = math.floor((id or 0) * n / nthreads)
end

function request()
	i = (i + step) % n
	return reqs[i + 1]
end

function done(summary, latency, requests)
	local e = summary.errors
	io.write(string.format(
		"RESULT requests=%d duration_us=%d bytes=%d status_errors=%d connect_errors=%d read_errors=%d write_errors=%d timeouts=%d lat_mean_us=%.1f lat_p50_us=%d lat_p99_us=%d lat_max_us=%d\n",
		summary.requests, summary.duration, summary.bytes, e.status, e.connect, e.read, e.write, e.timeout,
		latency.mean, latency:percentile(50.0), latency:percentile(99.0), latency.max))
end
LUA

run_wrk() { # name gzip(0|1) [addr]
	local name=$1 gz=$2 addr=${3:-$web_addr}
	log "wrk run '$name': -t$THREADS -c$CONNS -d$DURATION"
	SIMWEB_URLS="$tmp/urls.txt" SIMWEB_GZIP="$gz" SIMWEB_THREADS="$THREADS" \
		wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --timeout 10s --latency \
		-s "$tmp/urls.lua" "http://$addr/" >"$tmp/wrk-$name.out" 2>&1 &
	# In the background, so that a signal reaches the traps at once.
	wrk_pid=$!
	local rc=0
	wait "$wrk_pid" || rc=$?
	wrk_pid=""
	((rc == 0)) || { cat "$tmp/wrk-$name.out" >&2; die "wrk failed (exit $rc)"; }
	grep -q '^RESULT ' "$tmp/wrk-$name.out" || { cat "$tmp/wrk-$name.out" >&2; die "no result from wrk"; }
	kill -0 "$server_pid" 2>/dev/null || { cat "$tmp/server.err" >&2; die "simweb died during the run"; }
}

runs=(plain)
run_wrk plain 0
if [[ $GZIP_RUN == 1 ]]; then
	runs+=(gzip)
	run_wrk gzip 1
fi
rss_end=$(rss_kb "$server_pid")
hwm_end=$(hwm_kb "$server_pid")

# The reference: stop simweb so it does not share the machine, start the
# static server, same wrk script and URL list (it ignores the Host header).
# Its page is as large as simweb's average response, less about 150 bytes of
# headers simweb sends and it does not.
size=$(awk '$1 == "RESULT" { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } } END { printf "%d", f["bytes"] / f["requests"] }' "$tmp/wrk-plain.out")
kill "$server_pid" 2>/dev/null || true
wait "$server_pid" 2>/dev/null || true
server_pid=""
"$tmp/static-server" -addr "$LOOPBACK:$STATIC_PORT" -size "$((size > 300 ? size - 150 : size))" 2>"$tmp/static.err" &
static_pid=$!
for _ in $(seq 1 250); do
	curl -s -o /dev/null --max-time 2 "http://$LOOPBACK:$STATIC_PORT/" && break
	sleep 0.02
done
server_pid=$static_pid # run_wrk checks that the server under test is alive
runs+=(static)
run_wrk static 0 "$LOOPBACK:$STATIC_PORT"
server_pid=""

# --- table ---------------------------------------------------------------------
field() { awk -v k="$2" '$1 == "RESULT" { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' "$tmp/wrk-$1.out"; }
fmt_us() { awk -v us="$1" 'BEGIN { if (us >= 1000) printf "%.2f ms", us / 1000; else printf "%.0f µs", us }'; }
fmt_bytes() { awk -v b="$1" 'BEGIN { if (b >= 1048576) printf "%.1f MB/s", b / 1048576; else printf "%.1f KB/s", b / 1024 }'; }

declare -A col
for r in "${runs[@]}"; do
	reqs=$(field "$r" requests) dur=$(field "$r" duration_us) bytes=$(field "$r" bytes)
	col[$r,rps]=$(awk -v n="$reqs" -v d="$dur" 'BEGIN { printf "%.0f", n / (d / 1e6) }')
	col[$r,reqs]=$reqs
	col[$r,mean]=$(fmt_us "$(field "$r" lat_mean_us)")
	col[$r,p50]=$(fmt_us "$(field "$r" lat_p50_us)")
	col[$r,p99]=$(fmt_us "$(field "$r" lat_p99_us)")
	col[$r,non2xx]=$(field "$r" status_errors)
	col[$r,sockerr]=$(($(field "$r" connect_errors) + $(field "$r" read_errors) + $(field "$r" write_errors) + $(field "$r" timeouts)))
	col[$r,xfer]=$(fmt_bytes "$(awk -v b="$bytes" -v d="$dur" 'BEGIN { printf "%.0f", b / (d / 1e6) }')")
	col[$r,avg]=$(awk -v b="$bytes" -v n="$reqs" 'BEGIN { printf "%.1f KB", n ? b / n / 1024 : 0 }')
done

label() { case $1 in plain) echo "simweb (main)" ;; gzip) echo "simweb, gzip" ;; static) echo "net/http static page" ;; esac; }
{
	printf '\nsimweb load: %s hosts × %s pages, %s URLs on %s hosts, wrk -t%s -c%s -d%s, %s CPUs\n\n' \
		"$HOSTS" "$PAGES" "$nurls" "$nhosts" "$THREADS" "$CONNS" "$DURATION" "$(nproc)"
	printf '%-22s' "metric"
	for r in "${runs[@]}"; do printf ' | %-22s' "$(label "$r")"; done
	printf '\n%s' "----------------------"
	for r in "${runs[@]}"; do printf -- '-|-%s' "----------------------"; done
	printf '\n'
	for m in rps:"requests/s" reqs:"requests" mean:"mean latency" p50:"p50 latency" p99:"p99 latency" \
		non2xx:"non-2xx/3xx responses" sockerr:"socket errors" xfer:"transfer/s" avg:"bytes/response"; do
		printf '%-22s' "${m#*:}"
		for r in "${runs[@]}"; do printf ' | %-22s' "${col[$r,${m%%:*}]}"; done
		printf '\n'
	done
	printf '\n%-22s   %s (simweb requests/s ÷ reference requests/s)\n' "simweb / reference" \
		"$(awk -v a="${col[plain,rps]}" -v b="${col[static,rps]}" 'BEGIN { printf "%.2f", a / b }')"
	printf '%-22s   %s s\n' "startup (to first 200)" "$startup"
	printf '%-22s   %s s\n' "snapshot download" "$snap_secs"
	printf '%-22s   %s MB\n' "RSS after start" "$((rss_start / 1024))"
	printf '%-22s   %s MB (peak %s MB)\n\n' "RSS after runs" "$((rss_end / 1024))" "$((hwm_end / 1024))"
}

log "stopping the reference server"
kill "$static_pid" 2>/dev/null || true
wait "$static_pid" 2>/dev/null || true
static_pid=""
