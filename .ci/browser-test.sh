#!/usr/bin/env bash
# End-to-end browser test of the web page: installs Chromium and playwright-core if
# needed, starts `boardscan serve` on a free local port, runs tests/browser/e2e.mjs,
# library.mjs, game.mjs and i18n_share.mjs, and always stops the server.
#
#   .ci/browser-test.sh                      # uses target/debug/boardscan (built if missing)
#   BOARDSCAN_BIN=target/release/boardscan .ci/browser-test.sh
#   E2E_SKIP_ANALYSIS=1 .ci/browser-test.sh  # leave out the analysis board
#   E2E_ALLOW_MISSING=1 .ci/browser-test.sh  # a server without some of the analysis board's routes
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# Chromium from the system packages (Playwright's own browser download is not used).
if [ ! -x /usr/bin/chromium ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update
  $SUDO apt-get install -y chromium chromium-driver
fi

# playwright-core, as pinned in tests/browser/package-lock.json.
(
  cd tests/browser
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
)

BIN="${BOARDSCAN_BIN:-${CARGO_TARGET_DIR:-target}/debug/boardscan}"
if [ ! -x "$BIN" ]; then
  echo "browser-test: $BIN is missing; running cargo build" >&2
  cargo build
fi

PORT="$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
URL="http://127.0.0.1:${PORT}"
LOG="$(mktemp -t boardscan-serve.XXXXXX.log)"

# A second engine for the page's two-engines view, when Stockfish is installed.
SERVE_ARGS=()
if [ -x /usr/games/stockfish ]; then SERVE_ARGS+=(--engine stockfish=/usr/games/stockfish); fi

LIBRARY_DIR="$(mktemp -d -t boardscan-library.XXXXXX)"
BOARDSCAN_LIBRARY="$LIBRARY_DIR/library.sqlite3" "$BIN" serve --bind "127.0.0.1:${PORT}" ${SERVE_ARGS[@]+"${SERVE_ARGS[@]}"} >"$LOG" 2>&1 &
SERVER_PID=$!
cleanup() {
  kill "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  rm -f "$LOG"
  rm -rf "$LIBRARY_DIR"
}
trap cleanup EXIT

echo "browser-test: waiting for $URL/api/v1/health (server pid $SERVER_PID)"
for _ in $(seq 1 120); do
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "browser-test: the server exited early; its log:" >&2
    cat "$LOG" >&2
    exit 1
  fi
  if node -e "fetch(process.argv[1]).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" "$URL/api/v1/health"; then
    break
  fi
  sleep 0.5
done
if ! node -e "fetch(process.argv[1]).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" "$URL/api/v1/health"; then
  echo "browser-test: the server did not become healthy in 60 s; its log:" >&2
  cat "$LOG" >&2
  exit 1
fi

status=0
BOARDSCAN_URL="$URL" node tests/browser/e2e.mjs || status=$?
BOARDSCAN_URL="$URL" node tests/browser/library.mjs || status=$?
BOARDSCAN_URL="$URL" node tests/browser/game.mjs || status=$?
BOARDSCAN_URL="$URL" node tests/browser/i18n_share.mjs || status=$?
if [ "$status" -ne 0 ]; then
  echo "browser-test: FAILED (exit $status); the last server log lines:" >&2
  tail -n 30 "$LOG" >&2 || true
fi
exit "$status"
