# simweb.sh — sourced by the bench scripts that crawl a `freshcrawl simweb`
# served in a process of its own. The script defines die and tmp first.

# start_simweb BINARY WEB_PORT CONTROL_PORT [simweb flags...] starts simweb
# on 127.0.0.1:WEB_PORT with its control API on CONTROL_PORT, logging to
# $tmp/simweb.log, sets web_pid, and returns once the control API answers
# (or dies saying why).
start_simweb() {
	local bin=$1 web=$2 control=$3
	shift 3
	"$bin" simweb "$@" -addr "127.0.0.1:$web" -control "127.0.0.1:$control" >"$tmp/simweb.log" 2>&1 &
	web_pid=$!
	for _ in $(seq 100); do
		curl -fs "http://127.0.0.1:$control/clock" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	die "simweb did not start: $(cat "$tmp/simweb.log")"
}

# simweb_seeds CONTROL_PORT prints every host's root URL, a line each, from
# the control API's host list (kept in $tmp/hosts.json).
simweb_seeds() {
	curl -fs "http://127.0.0.1:$1/hosts" >"$tmp/hosts.json"
	grep -o '"name": *"[^"]*"' "$tmp/hosts.json" | sed 's/.*"\([^"]*\)"$/http:\/\/\1\//'
}
