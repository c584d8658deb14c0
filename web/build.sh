#!/usr/bin/env bash
# Build the web page into web/dist/ (index.html at its root): rendermm's core for wasm32 with
# WebGPU and WebGL2, bound to JS by wasm-bindgen, then shrunk by binaryen's `wasm-opt -Oz` (the
# version web/package-lock.json pins, installed with `npm ci`; skipped with a note where npm is
# missing or RENDERMM_WASM_OPT=0). Installs the wasm target and the wasm-bindgen CLI (the
# version Cargo.lock pins) when they are missing. See docs/web.md.
#   web/build.sh            release build (what CI and the tests use)
#   web/build.sh --debug    quicker to build, slower to run
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
profile=release
[[ "${1:-}" == "--debug" ]] && profile=debug
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/target}"

# The wasm-bindgen version both the crate and the CLI must have: the one the lock file pins.
version="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"
[[ -n "$version" ]] || { echo "build.sh: no wasm-bindgen in web/Cargo.lock" >&2; exit 1; }

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  echo "build.sh: installing the wasm32-unknown-unknown target" >&2
  rustup target add wasm32-unknown-unknown
fi
if ! command -v wasm-bindgen >/dev/null || [[ "$(wasm-bindgen --version | awk '{print $2}')" != "$version" ]]; then
  echo "build.sh: installing wasm-bindgen-cli $version" >&2
  # --locked first (the CLI's own lock file); a registry mirror that lacks one of its locked
  # versions gets the newest compatible ones instead.
  cargo install wasm-bindgen-cli --version "$version" --locked \
    || cargo install wasm-bindgen-cli --version "$version"
fi

flags=()
[[ "$profile" == release ]] && flags+=(--release)
cargo build --lib --target wasm32-unknown-unknown "${flags[@]}"

rm -rf dist
mkdir -p dist
wasm-bindgen --target web --no-typescript --out-dir dist --out-name rendermm_web \
  "$CARGO_TARGET_DIR/wasm32-unknown-unknown/$profile/rendermm_web.wasm"
# wasm-opt -Oz, run until it shrinks the module no more (--converge: 3 KB less than one run): a
# smaller download (docs/web.md gives the sizes). The features are those rustc's
# wasm32 target emits, so that wasm-opt keeps (and uses) no others.
wasm="dist/rendermm_web_bg.wasm"
if [[ "$profile" == release && "${RENDERMM_WASM_OPT:-1}" != 0 ]]; then
  if command -v npm >/dev/null; then
    if [[ ! -x node_modules/.bin/wasm-opt ]] || [[ package-lock.json -nt node_modules ]]; then
      npm ci --no-audit --no-fund >&2
    fi
    before=$(stat -c %s "$wasm")
    node_modules/.bin/wasm-opt -Oz --converge --enable-bulk-memory --enable-mutable-globals --enable-sign-ext \
      --enable-nontrapping-float-to-int --enable-reference-types --enable-multivalue \
      "$wasm" -o "$wasm.opt"
    mv "$wasm.opt" "$wasm"
    echo "build.sh: wasm-opt -Oz: $before -> $(stat -c %s "$wasm") bytes" >&2
  else
    echo "build.sh: npm not found; the wasm is not run through wasm-opt (a larger download)" >&2
  fi
fi
cp static/index.html static/main.js dist/
echo "built $here/dist ($(du -sh dist | cut -f1); the wasm $(stat -c %s "$wasm") bytes, $(gzip -6 -c "$wasm" | wc -c) gzipped); serve it with web/serve.sh"
