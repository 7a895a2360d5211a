#!/usr/bin/env bash
# allocate.sh — time `freshcrawl allocate` on a large rates file (issue 5,
# acceptance: 10^7 pages in ≤ 10 s).
#
# It builds freshcrawl, writes a rates file of PAGES pages (log-normal
# change rates with median one change a day, log-normal weights, on HOSTS
# hosts of Zipf-like sizes: page i on host ⌊HOSTS·u²⌋, in random order)
# and a hosts file giving every host a delay of 5 to 60 s, then runs the
# command with its output to /dev/null:
#
#   freshness        -objective freshness, no host limits (-delay 0)
#   freshness+hosts  -objective freshness with the hosts file
#   age+hosts        -objective age with the hosts file
#   harmonic         -objective harmonic, no host limits (issue 19: ≤ 10 s)
#   harmonic+hosts   -objective harmonic with the hosts file
#   json+hosts       freshness with the hosts file, -json
#
# and prints pages, wall and CPU seconds, pages per second and peak RSS
# (from /usr/bin/time when it is installed), and the load average before
# the runs: the machine may be shared. The budget is one fetch per page a
# day, more than the biggest hosts allow, so that host limits bind.
#
# Environment (defaults in brackets):
#   PAGES [10000000]  HOSTS [100000]   size of the collection
#   RUNS [freshness freshness+hosts age+hosts json+hosts]
set -euo pipefail
cd "$(dirname "$0")/.."

PAGES=${PAGES:-10000000}
HOSTS=${HOSTS:-100000}
RUNS=${RUNS:-freshness freshness+hosts age+hosts json+hosts}

log() { printf '%s\n' "allocate: $*" >&2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

log "building"
go build -o "$tmp/freshcrawl" ./cmd/freshcrawl

mkdir "$tmp/gen"
cat >"$tmp/gen/main.go" <<'EOF'
// Command gen writes a synthetic rates file and hosts file.
package main

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
)

func main() {
	pages, _ := strconv.Atoi(os.Args[1])
	hosts, _ := strconv.Atoi(os.Args[2])
	rng := rand.New(rand.NewPCG(1, 1))
	rates, _ := os.Create(os.Args[3])
	w := bufio.NewWriterSize(rates, 1<<20)
	var b []byte
	for i := range pages {
		u := rng.Float64()
		b = append(b[:0], "p"...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, '\t')
		b = strconv.AppendFloat(b, math.Exp(1.5*rng.NormFloat64()), 'g', 4, 64)
		b = append(b, '\t')
		b = strconv.AppendFloat(b, math.Exp(rng.NormFloat64()), 'g', 3, 64)
		b = append(b, "\th"...)
		b = strconv.AppendInt(b, int64(float64(hosts)*u*u), 10)
		w.Write(append(b, '\n'))
	}
	w.Flush()
	rates.Close()
	hf, _ := os.Create(os.Args[4])
	hw := bufio.NewWriter(hf)
	for h := range hosts {
		fmt.Fprintf(hw, "h%d\t%d\n", h, 5+rng.IntN(56))
	}
	hw.Flush()
	hf.Close()
}
EOF
log "writing $PAGES pages on $HOSTS hosts"
(cd "$tmp/gen" && go run main.go "$PAGES" "$HOSTS" "$tmp/rates.tsv" "$tmp/hosts.tsv")
log "rates file: $(du -h "$tmp/rates.tsv" | cut -f1)"

log "load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
printf '%-16s %10s %8s %8s %12s %10s\n' run pages seconds 'CPU s' pages/s 'RSS MB'
for run in $RUNS; do
	args=(allocate -rates "$tmp/rates.tsv" -budget "$PAGES")
	case $run in
	freshness) args+=(-delay 0) ;;
	freshness+hosts) args+=(-hosts "$tmp/hosts.tsv") ;;
	age+hosts) args+=(-hosts "$tmp/hosts.tsv" -objective age) ;;
	harmonic) args+=(-delay 0 -objective harmonic) ;;
	harmonic+hosts) args+=(-hosts "$tmp/hosts.tsv" -objective harmonic) ;;
	json+hosts) args+=(-hosts "$tmp/hosts.tsv" -json) ;;
	*) log "unknown run $run"; exit 1 ;;
	esac
	rss="" cpu=""
	start=$(date +%s.%N)
	if [[ -x /usr/bin/time ]]; then
		/usr/bin/time -f '%M %U %S' -o "$tmp/time.txt" "$tmp/freshcrawl" "${args[@]}" >/dev/null 2>"$tmp/stderr.txt"
		read -r kb user sys <"$tmp/time.txt"
		rss=$((kb / 1024))
		cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.1f", u + s}')
	else
		"$tmp/freshcrawl" "${args[@]}" >/dev/null 2>"$tmp/stderr.txt"
	fi
	end=$(date +%s.%N)
	secs=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", b - a}')
	rate=$(awk -v n="$PAGES" -v s="$secs" 'BEGIN {printf "%.3g", n / s}')
	printf '%-16s %10d %8s %8s %12s %10s\n' "$run" "$PAGES" "$secs" "${cpu:--}" "$rate" "${rss:--}"
	sed 's/^/  /' "$tmp/stderr.txt" >&2
done
