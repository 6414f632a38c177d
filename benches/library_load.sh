#!/usr/bin/env bash
# Load test of the scan library: wrk posts a screenshot to /api/v1/recognize
# with distinct trailing bytes on every request (so every answer 200 is a new
# library entry); then the library's scan count is compared with the 200
# answers (from /metrics), and the server log is searched for "database is
# locked" and for recognitions that were not kept.
#
#   bash benches/library_load.sh IMAGE [CONNECTIONS] [SECONDS] [CPU_WORKERS] [LIBRARY]
#
# LIBRARY defaults to a new SQLite file in a temporary folder; a
# postgres:// URL works too (the library should be empty). Needs wrk and a
# release build.
set -euo pipefail
cd "$(dirname "$0")/.."
image=${1:?usage: library_load.sh IMAGE [CONNECTIONS] [SECONDS] [CPU_WORKERS] [LIBRARY]}
connections=${2:-64}
seconds=${3:-30}
workers=${4:-2}
tmp=$(mktemp -d)
library=${5:-$tmp/library.sqlite3}
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=$tmp/serve.log

target/release/boardscan serve --bind "127.0.0.1:$port" --cpu-workers "$workers" --library "$library" >"$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do
    curl -sf "127.0.0.1:$port/api/v1/health" >/dev/null && break
    sleep 0.1
done

cat >"$tmp/post.lua" <<LUA
local f = io.open("$image", "rb")
local body = f:read("*all")
f:close()
local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("tid", threads)
end
local n = 0
function request()
    n = n + 1
    return wrk.format("POST", nil, {["Content-Type"] = "application/octet-stream"},
        body .. "variant " .. tid .. "-" .. n)
end
LUA
wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$tmp/post.lua" "http://127.0.0.1:$port/api/v1/recognize"
sleep 1
metrics=$(curl -sf "127.0.0.1:$port/metrics")
kill $server
wait $server 2>/dev/null || true
recognize=$(echo "$metrics" | grep -E '^boardscan_http_requests_total\{route="/api/v1/recognize",' || true)
answers() { echo "$recognize" | awk -v s="$1" '$1 ~ "status=\"" s "\"" {n += $2} END {print n + 0}'; }
echo "200 answers (acknowledged): $(answers 200)"
echo "503 busy answers: $(answers 503)"
echo "other answers: $(echo "$recognize" | awk '$1 !~ "status=\"(200|503)\"" {n += $2} END {print n + 0}')"
echo "scans in the library: $(target/release/boardscan library --library "$library" list --json --per-page 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')"
echo "'database is locked' in the log: $(grep -ci 'database is locked' "$log" || true)"
echo "recognitions not kept: $(grep -c 'was not kept' "$log" || true)"
