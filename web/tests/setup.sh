# Sourced by web/tests/run.sh and run_site.sh from the repository root: installs what the browser
# tests need when it is missing (Chromium and chromedriver from Debian, selenium, numpy and
# jsonschema from PyPI, lavapipe for WebGPU without a GPU).
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

# numpy: the tests compare the page's C with numpy's product and read the .npy it offers.
if ! python3 -c "import numpy" 2>/dev/null; then
  echo "run.sh: installing numpy" >&2
  python3 -m pip install -q numpy 2>/dev/null || python3 -m pip install -q --break-system-packages numpy
fi

# jsonschema: the page's result is the run's report, held to docs/report.schema.json.
if ! python3 -c "import jsonschema" 2>/dev/null; then
  echo "run.sh: installing jsonschema" >&2
  python3 -m pip install -q jsonschema 2>/dev/null || python3 -m pip install -q --break-system-packages jsonschema
fi

# serve_repo PORT LOG: serve the repository's root on 127.0.0.1:PORT in the background (its log
# in LOG), stopped when the calling script exits, and wait until the built page answers.
serve_repo() {
  local port="$1" log="$2"
  python3 -m http.server "$port" --bind 127.0.0.1 --directory "$root" >"$log" 2>&1 &
  server=$!
  trap 'kill "$server" 2>/dev/null || true' EXIT
  for _ in $(seq 50); do
    python3 - "$port" <<'PY' 2>/dev/null && break
import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/web/dist/index.html", timeout=1)
PY
    sleep 0.1
  done
}
