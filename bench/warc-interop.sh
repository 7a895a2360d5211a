#!/usr/bin/env bash
# warc-interop.sh — have warcio.js (the Webrecorder reader, npm package
# warcio) read every record of the WARC files a real crawl writes, and check
# every digest (issue 3, acceptance 5).
#
# It runs `freshcrawl demo` for DURATION (long enough that revisits begin,
# so there are revisit records of both profiles: server-not-modified for
# 304s, identical-payload-digest for unchanged pages without validators)
# keeping its data, then runs TestWarcioReadsFiles on the WARC files. The
# test installs the pinned warcio with npm itself; it needs Node.js and npm.
#
# Environment: DURATION [75s].
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-75s}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go run ./cmd/freshcrawl demo -for "$DURATION" -progress 15s -data "$tmp/data"
FRESHCRAWL_WARCIO_FILES="$tmp/data/warc/*.warc.gz" go test -count=1 -run TestWarcioReadsFiles -v ./internal/warc |
	grep -E '^(warcio|---|ok|FAIL|\s+interop)' 
