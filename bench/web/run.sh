#!/usr/bin/env bash
# The page's methods beside TensorFlow.js in one headless Chromium session (bench/web/bench.py),
# timed as a user waits: Run clicked until the result shows, and the multiply alone; one
# product per driver call. Installs what is missing (Chromium, chromedriver, selenium and numpy
# as the browser tests do; tfjs at the version package-lock.json pins, with `npm ci`), builds
# the page (skip with RENDERMM_WEB_BUILT=1 when web/dist is fresh), serves the repository on
# 127.0.0.1 and prints the table, whatever fails. Arguments go to bench.py (e.g. --sizes 64).
# Exit status: bench.py's (0 when every cell has its times and every product passed its
# check; nothing is asserted about time).
#   bench/web/run.sh                      n = 64, 96, 256, 384, 768, 1024
#   bench/web/run.sh --sizes 64           what CI runs, to keep it working
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
source web/tests/setup.sh
if [[ ! -d bench/web/node_modules/@tensorflow/tfjs ]] || [[ bench/web/package-lock.json -nt bench/web/node_modules ]]; then
  (cd bench/web && npm ci --no-audit --no-fund)
fi
if [[ "${RENDERMM_WEB_BUILT:-}" != 1 ]]; then web/build.sh; fi

port="${RENDERMM_WEB_PORT:-8766}"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
serve_repo "$port" /tmp/rendermm-bench-server.log
python3 bench/web/bench.py --url "http://127.0.0.1:$port/web/dist/index.html" \
  --tfjs "http://127.0.0.1:$port/bench/web/node_modules/@tensorflow" "$@"
