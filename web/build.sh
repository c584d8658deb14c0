#!/usr/bin/env bash
# Build the web page into web/dist/ (index.html at its root): rendermm's core for wasm32 with
# WebGPU and WebGL2, bound to JS by wasm-bindgen. Installs the wasm target and the
# wasm-bindgen CLI (the version Cargo.lock pins) when they are missing. See docs/web.md.
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
cp static/index.html static/main.js dist/
echo "built $here/dist ($(du -sh dist | cut -f1)); serve it with web/serve.sh"
