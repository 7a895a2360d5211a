#!/usr/bin/env bash
# rank.sh — PageRank at scale and side by side with igraph (issue 6).
#
# 1. `freshcrawl rank` on a synthetic web graph of BIG_NODES nodes and
#    BIG_EDGES edges, exactly 30 iterations: the time of the iterations and
#    the process's peak RSS (VmHWM), graph generation and build included.
# 2. The same SMALL_NODES / SMALL_EDGES graph ranked by freshcrawl and by
#    python3-igraph (Debian's package, PRPACK; installed here if missing)
#    in one run, both to their default precision at d = 0.9: the time of
#    each PageRank call, the ratio, and the largest difference between the
#    two normalised rank vectors. freshcrawl runs once on all cores and
#    once on one, igraph's solver being single-threaded.
#
# Environment (defaults in brackets):
#   BIG_NODES [10000000]  BIG_EDGES [100000000]
#   SMALL_NODES [1000000] SMALL_EDGES [10000000]
#   KEEP [0]   1 keeps the temp dir
set -euo pipefail
cd "$(dirname "$0")/.."

BIG_NODES=${BIG_NODES:-10000000}
BIG_EDGES=${BIG_EDGES:-100000000}
SMALL_NODES=${SMALL_NODES:-1000000}
SMALL_EDGES=${SMALL_EDGES:-10000000}
KEEP=${KEEP:-0}

log() { printf '%s\n' "rank: $*" >&2; }
die() { log "error: $*"; exit 1; }
for v in BIG_NODES BIG_EDGES SMALL_NODES SMALL_EDGES; do
	[[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a whole number, got '${!v}'"
done

python=/usr/bin/python3
if ! "$python" -c 'import igraph' 2>/dev/null; then
	log "installing python3-igraph"
	sudo=()
	[[ $(id -u) -eq 0 ]] || sudo=(sudo)
	export DEBIAN_FRONTEND=noninteractive
	"${sudo[@]}" apt-get install -y -q python3-igraph >/dev/null ||
		{ "${sudo[@]}" apt-get update -q >/dev/null && "${sudo[@]}" apt-get install -y -q python3-igraph >/dev/null; } ||
		die "could not install python3-igraph"
fi

tmp=$(mktemp -d)
cleanup() { if [[ $KEEP == 1 ]]; then log "kept $tmp"; else rm -rf "$tmp"; fi; }
trap cleanup EXIT
log "building"
go build -o "$tmp/freshcrawl" ./cmd/freshcrawl
fc=$tmp/freshcrawl

json() { "$python" -c "import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]])" "$@"; }

log "ranking a synthetic graph of $BIG_NODES nodes and $BIG_EDGES edges, 30 iterations"
"$fc" rank -synthetic "$BIG_NODES:$BIG_EDGES" -iterations 30 -top 0 -json >"$tmp/big.json"
big_secs=$(json "$tmp/big.json" rank_seconds)
big_rss=$(json "$tmp/big.json" peak_rss_bytes)
big_gen=$(json "$tmp/big.json" load_seconds)
big_build=$(json "$tmp/big.json" build_seconds)

log "writing a synthetic graph of $SMALL_NODES nodes and $SMALL_EDGES edges"
"$fc" rank -synthetic "$SMALL_NODES:$SMALL_EDGES" -write-graph "$tmp/graph.txt" -top 0 -json >/dev/null
log "ranking it with freshcrawl"
"$fc" rank -graph "$tmp/graph.txt" -top 0 -out "$tmp/ours.tsv" -json >"$tmp/small.json"
"$fc" rank -graph "$tmp/graph.txt" -top 0 -workers 1 -json >"$tmp/small1.json"
ours_secs=$(json "$tmp/small.json" rank_seconds)
ours1_secs=$(json "$tmp/small1.json" rank_seconds)
ours_iter=$(json "$tmp/small.json" iterations)
workers=$(json "$tmp/small.json" workers)
log "ranking it with igraph"
grep -v '^#' "$tmp/graph.txt" >"$tmp/graph.igraph.txt"
"$python" - "$tmp/graph.igraph.txt" "$tmp/ours.tsv" >"$tmp/igraph.out" <<'EOF'
import sys, time, igraph
path, ours = sys.argv[1], sys.argv[2]
g = igraph.Graph.Read_Edgelist(path, directed=True)
t0 = time.perf_counter()
pr = g.pagerank(damping=0.9, directed=True, implementation="prpack")
secs = time.perf_counter() - t0
maxdiff, maxrel, n = 0.0, 0.0, 0
with open(ours) as f:
    for line in f:
        if line.startswith('#'):
            continue
        node, p, _, _ = line.split('\t')
        a, b = pr[int(node)], float(p)
        maxdiff = max(maxdiff, abs(a - b))
        maxrel = max(maxrel, abs(a - b) / a)
        n += 1
if n != g.vcount():
    sys.exit(f"compared {n} nodes, igraph has {g.vcount()}")
print(igraph.__version__, secs, maxdiff, maxrel, g.vcount(), g.ecount())
EOF
read -r ig_version ig_secs maxdiff maxrel ig_nodes ig_edges <"$tmp/igraph.out"

printf '\n%-52s %s\n' "PageRank, $BIG_NODES nodes / $BIG_EDGES edges" "d = 0.9, 30 iterations, $(nproc) cores"
printf '%-52s %.1f s\n' "  30 iterations" "$big_secs"
printf '%-52s %.2f GB\n' "  peak RSS (graph generated and built in process)" "$(awk -v b="$big_rss" 'BEGIN{print b / 1e9}')"
printf '%-52s %.1f s, %.1f s\n' "  generating the graph, building its CSR" "$big_gen" "$big_build"
printf '\n%-52s %s\n' "side by side, $ig_nodes nodes / $ig_edges edges" "d = 0.9, igraph $ig_version (PRPACK)"
printf '%-52s %.2f s (%d iterations to L1 1e-10)\n' "  freshcrawl, $workers workers" "$ours_secs" "$ours_iter"
printf '%-52s %.2f s\n' "  freshcrawl, 1 worker" "$ours1_secs"
printf '%-52s %.2f s\n' "  igraph" "$ig_secs"
printf '%-52s %.2f (1 worker: %.2f)\n' "  time ratio freshcrawl / igraph" \
	"$(awk -v a="$ours_secs" -v b="$ig_secs" 'BEGIN{print a / b}')" "$(awk -v a="$ours1_secs" -v b="$ig_secs" 'BEGIN{print a / b}')"
printf '%-52s %.3g (relative %.3g)\n' "  largest |difference| of the normalised vectors" "$maxdiff" "$maxrel"
