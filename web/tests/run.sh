#!/usr/bin/env bash
# The browser tests, from a fresh clone: install what is missing (Chromium and chromedriver from
# Debian, selenium from PyPI, lavapipe for WebGPU without a GPU), build the page, serve it in the
# background, run web/tests/test_page.py against it, stop the server. Arguments go to the test
# (e.g. --only webgl2). Exit status: the tests'.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

need_apt=()
command -v chromium >/dev/null || need_apt+=(chromium)
command -v chromedriver >/dev/null || need_apt+=(chromium-driver)
# A Vulkan driver for --enable-features=Vulkan on a machine without a GPU (lavapipe); Chromium
# 148 chose its own SwiftShader for WebGPU here, but CI images differ.
ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 || need_apt+=(mesa-vulkan-drivers libvulkan1)
if ((${#need_apt[@]})); then
  echo "run.sh: installing ${need_apt[*]}" >&2
  sudo=""
  [[ "$(id -u)" == 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
if ! python3 -c "import selenium" 2>/dev/null; then
  echo "run.sh: installing selenium" >&2
  python3 -m pip install -q selenium 2>/dev/null || python3 -m pip install -q --break-system-packages selenium
fi

# RENDERMM_WEB_BUILD=debug: a debug build (about half the compile time of a clean release
# build; the tests pass the same).
if [[ "${RENDERMM_WEB_BUILD:-release}" == debug ]]; then web/build.sh --debug; else web/build.sh; fi

port="${RENDERMM_WEB_PORT:-8765}"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$root" >/tmp/rendermm-web-server.log 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  python3 - "$port" <<'PY' 2>/dev/null && break
import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/web/dist/index.html", timeout=1)
PY
  sleep 0.1
done
python3 web/tests/test_page.py --url "http://127.0.0.1:$port/web/dist/index.html" "$@"
