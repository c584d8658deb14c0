#!/usr/bin/env bash
# The H100 run: builds nothing. Runs rendermm's sweep (ceilings measured in the same run), the
# cuBLAS/PyTorch anchor (device and host to host) back to back, a soak of every GPU method in one
# process, then prints one ratio table.
#
#   bench/run-gpu.sh [OUT_DIR]        # from the repo root, with the release binary at .bin/rendermm
#
# Environment: RENDERMM (binary, default .bin/rendermm), SIZES (default 1024,2048,4096),
# REPEATS (default 5), MAX_RUN_S (default 8), SOAK_ROUNDS (default 5: the median of four later
# rounds, so that one slow run does not decide a method's ratio), SOAK_SIZE (default 1024).
set -euo pipefail
out=${1:-${OUT:-bench-out}}
bin=${RENDERMM:-.bin/rendermm}
sizes=${SIZES:-1024,2048,4096}
mkdir -p "$out"
# The Vulkan loader may be missing on the GPU machine (../shared/GPU.md): unpack the carried .debs.
if [ -d .gl ] && ! ldconfig -p | grep -q 'libvulkan\.so\.1'; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
"$bin" info > "$out/info.txt"
"$bin" bench --sizes "$sizes" --repeats "${REPEATS:-5}" --max-run-s "${MAX_RUN_S:-8}" \
    --json "$out/bench.json" --csv "$out/bench.csv" --plots "$out" > "$out/bench.txt"
python3 bench/cublas.py --sizes "$sizes" > "$out/cublas.json"
"$bin" bench --soak "${SOAK_ROUNDS:-5}" --soak-size "${SOAK_SIZE:-1024}" --json "$out/soak.json" \
    > "$out/soak.txt" || echo "the soak failed: see $out/soak.txt"
python3 bench/ratios.py "$out/bench.json" "$out/cublas.json" | tee "$out/ratios.md"
