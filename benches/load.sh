#!/usr/bin/env bash
# Load test of the recognize endpoint: wrk from a second process on loopback,
# posting one screenshot as a raw body. Prints wrk's report (with latency
# percentiles), the count of non-2xx answers, and the server's peak RSS.
#
#   bash benches/load.sh IMAGE [CONNECTIONS] [SECONDS] [CPU_WORKERS]
#
# Needs wrk (apt-get install wrk) and a release build.
set -euo pipefail
cd "$(dirname "$0")/.."
image=${1:?usage: load.sh IMAGE [CONNECTIONS] [SECONDS] [CPU_WORKERS]}
connections=${2:-64}
seconds=${3:-60}
workers=${4:-2}
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# Recognition alone: the scan library is off (benches/library_load.sh measures it).
target/release/boardscan serve --bind "127.0.0.1:$port" --cpu-workers "$workers" --no-library >/tmp/boardscan-load.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    curl -sf "127.0.0.1:$port/api/v1/health" >/dev/null && break
    sleep 0.1
done

script=$(mktemp --suffix=.lua)
cat >"$script" <<LUA
local f = io.open("$image", "rb")
wrk.method = "POST"
wrk.body = f:read("*all")
f:close()
wrk.headers["Content-Type"] = "application/octet-stream"
LUA
# Sample the server's peak resident memory (VmHWM) while wrk runs.
( while kill -0 $server 2>/dev/null; do
      rss=$(awk '/VmHWM/ {print $2}' /proc/$server/status 2>/dev/null || echo 0)
      echo "$rss" >/tmp/boardscan-load.rss
      sleep 1
  done ) &
wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$script" "http://127.0.0.1:$port/api/v1/recognize"
peak=$(cat /tmp/boardscan-load.rss)
echo "server peak RSS: $((peak / 1024)) MiB"
# The access log writes `POST /api/v1/recognize STATUS …` for each answer.
echo "200 answers: $(grep -cE 'POST /api/v1/recognize 200 ' /tmp/boardscan-load.log || true)"
echo "503 busy answers: $(grep -cE 'POST /api/v1/recognize 503 ' /tmp/boardscan-load.log || true)"
echo "other answers: $(grep -E 'POST /api/v1/recognize [0-9]{3} ' /tmp/boardscan-load.log | grep -cvE ' (200|503) ' || true)"
rm -f "$script"
