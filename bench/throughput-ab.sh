#!/usr/bin/env bash
# throughput-ab.sh BASE — crawl throughput of the build at git revision BASE
# beside this working tree's, side by side in one run (issue 17, acceptance
# 3): bench/crawl-throughput.sh with each binary, alternated ROUNDS times
# (which goes first alternating), then the floor benchmark
# (BenchmarkLibraryFloor) once, on the same machine. It prints each run,
# the medians, the ratio of the medians (this tree over BASE) and the
# median of the rounds' own ratios (bench/pairs.awk), for pages/s and for
# CPU-seconds per 1,000 pages.
#
# Environment: ROUNDS [6], HOSTS [1000], PAGES [100], DURATION [20s], and
# crawl-throughput.sh's others (WORKERS, WEB_PORT).
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${1:-}
[[ -n $BASE ]] || { echo "usage: bench/throughput-ab.sh BASE (a git revision)" >&2; exit 2; }
git rev-parse --verify -q "$BASE^{commit}" >/dev/null || { echo "throughput-ab: $BASE is not a revision" >&2; exit 2; }
ROUNDS=${ROUNDS:-6}
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "throughput-ab: ROUNDS must be a positive whole number" >&2; exit 2; }
export HOSTS=${HOSTS:-1000} PAGES=${PAGES:-100} DURATION=${DURATION:-20s}

tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
echo "throughput-ab: building $BASE and this tree" >&2
git worktree add -q --detach "$tmp/base" "$BASE"
(cd "$tmp/base" && go build -o "$tmp/base.bin" ./cmd/freshcrawl)
go build -o "$tmp/tree.bin" ./cmd/freshcrawl

for r in $(seq "$ROUNDS"); do
	order="0 1"
	((r % 2)) || order="1 0"
	for b in $order; do
		bin=$tmp/base.bin
		[[ $b == 1 ]] && bin=$tmp/tree.bin
		if ! line=$(BIN=$bin BRIEF=1 bash bench/crawl-throughput.sh 2>"$tmp/err"); then
			cat "$tmp/err" >&2
			echo "throughput-ab: round $r with build $b failed" >&2
			exit 1
		fi
		echo "round $r build=$b ${line#listen=0 }" | tee -a "$tmp/runs"
	done
done
awk -f bench/pairs.awk -v key=build -v name0="$(git rev-parse --short "$BASE")" -v name1="this tree" "$tmp/runs"
go test -run '^$' -bench 'LibraryFloor' -benchtime 2s ./internal/crawler 2>/dev/null |
	awk '/floor-/ {for (i = 1; i < NF; i++) { if ($(i+1) == "with-web-µs/page") w = $i; if ($(i+1) == "ceiling-pages/s") c = $i }}
		END { if (c) printf "floor (BenchmarkLibraryFloor): %.0f µs of CPU a page, so at most %.0f pages/s here\n", w, c }'
