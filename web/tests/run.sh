#!/usr/bin/env bash
# The browser tests, from a fresh clone: install what is missing (Chromium and chromedriver from
# Debian, selenium, numpy and jsonschema from PyPI, lavapipe for WebGPU without a GPU), build the
# page, serve it in the
# background, run web/tests/test_page.py against it, stop the server. Arguments go to the test
# (e.g. --only webgl2). Exit status: the tests'.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

# Chromium, chromedriver, selenium and lavapipe when missing (shared with run_site.sh).
source web/tests/setup.sh

# RENDERMM_WEB_BUILD=debug: a debug build (about half the compile time of a clean release
# build; the tests pass the same).
if [[ "${RENDERMM_WEB_BUILD:-release}" == debug ]]; then web/build.sh --debug; else web/build.sh; fi

port="${RENDERMM_WEB_PORT:-8765}"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
serve_repo "$port" /tmp/rendermm-web-server.log
python3 web/tests/test_page.py --url "http://127.0.0.1:$port/web/dist/index.html" "$@"
