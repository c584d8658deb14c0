#!/usr/bin/env bash
# frag-mrt's block shapes side by side on one adapter: for each shape, the best of
# REPEATS device-timed runs at N×N×N, then one checked run at an odd size near 1000.
#
#   bench/frag-mrt-shapes.sh [N]      # from the repo root; N defaults to 4096
#
# Environment: RENDERMM (binary, default .bin/rendermm), REPEATS (default 3), SHAPES (a
# space-separated list of RENDERMM_FRAG_MRT values; see docs/frag-mrt.md), BLOCKS (extra
# "SHAPE:--block B --accumulate MODE" runs, space-separated, '_' for spaces inside one).
set -euo pipefail
bin=${RENDERMM:-.bin/rendermm}
n=${1:-4096}
repeats=${REPEATS:-3}
shapes=${SHAPES:-"4x8 4x8,share=0 8x4 8x4,share=0 4x4 4x4,share=0 4x8,unroll=2 4x8,unroll=8 8x4,unroll=2"}
blocks=${BLOCKS:-"4x8:--block_512 4x8:--block_512_--accumulate_blend"}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}

best() { # the fastest of the JSON reports on stdin
    python3 -c '
import json, sys
text, dec, runs, i = sys.stdin.read(), json.JSONDecoder(), [], 0
while text[i:].strip():
    r, i = dec.raw_decode(text, len(text) - len(text[i:].lstrip()))
    runs.append(r)
r = max(runs, key=lambda r: r["gflops"])
print("%10.1f GFLOP/s %10.3f ms  passes %d" % (r["gflops"], r.get("device_ms", r["compute_ms"]), r["passes"]))'
}

run() { # shape, extra args...
    local shape=$1
    shift
    for _ in $(seq "$repeats"); do
        RENDERMM_FRAG_MRT=$shape "$bin" multiply --method frag-mrt --random "${n}x${n}x${n}" --json "$@"
    done | best
}

echo "frag-mrt at n=$n, best of $repeats; $("$bin" info 2>/dev/null | head -1 || true)"
for s in $shapes; do
    printf '%-22s ' "$s"
    run "$s"
done
for sb in $blocks; do
    s=${sb%%:*}
    args=${sb#*:}
    printf '%-22s %s\n%-22s ' "$s" "${args//_/ }" ""
    # shellcheck disable=SC2086
    run "$s" ${args//_/ }
done
echo "checks at 1023x1001x999 against the f64 reference:"
for s in $shapes; do
    printf '%-22s ' "$s"
    RENDERMM_FRAG_MRT=$s "$bin" multiply --method frag-mrt --random 1023x1001x999 --check --json |
        python3 -c 'import json,sys; r=json.load(sys.stdin); print("passed" if r["check_passed"] else "FAILED", "rel_err %.2e" % r["rel_err"])' || true
done
