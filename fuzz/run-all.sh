#!/usr/bin/env bash
# Run every reader fuzz target for RUNS executions (default 1,000,000) from the kept corpus,
# then minimize the corpus in place. Needs cargo-fuzz (`cargo install cargo-fuzz`) and a nightly
# toolchain (`rustup toolchain install nightly`); see docs/reliability.md.
# Usage: fuzz/run-all.sh [RUNS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"
runs=${1:-1000000}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(npy mtx csv edge_list)
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
for t in "${targets[@]}"; do
    echo "== $t: $runs runs"
    # -a: debug assertions on (integer overflow panics count as crashes). A Matrix Market
    # `coordinate` header may declare a dense matrix of up to 2^30 f32 (4 GiB, mapped lazily),
    # so the malloc and RSS limits sit above that.
    cargo +nightly fuzz run -a "$t" -- -runs="$runs" -max_len=4096 -timeout=10 \
        -rss_limit_mb=6144 -malloc_limit_mb=6144 -print_final_stats=1
    cargo +nightly fuzz cmin -a "$t" -- -rss_limit_mb=6144 -malloc_limit_mb=6144
done
