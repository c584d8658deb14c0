#!/usr/bin/env bash
# cs-fast and coop on the H100, in one device run (about 2-4 minutes): every variant
# timed at n = 4096 (`rendermm tune`, each variant's result checked against the f64 reference on
# 512 sampled elements; coop against its f16 bound), coop checked in full on awkward shapes for
# every variant, and the best variants printed as the environment for `bench/run-gpu.sh`.
# Prepare on the x86-64 build box, then run it through the device tool with
# `carry: ["target/fast-h100"]` (or next to bench/run-gpu.sh, with RENDERMM=.bin/rendermm):
#   cargo build --release && mkdir -p target/fast-h100
#   cp target/release/rendermm bench/fast-h100.sh target/fast-h100/
#   (cd target/fast-h100 && apt-get download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
#   command: bash target/fast-h100/fast-h100.sh   (results land in $OUT)
# Environment: RENDERMM (binary), N (default 4096), REPEATS (default 5).
set -u
D=$(dirname "$0")
for f in "$D"/*.deb .gl/*.deb; do [ -f "$f" ] && dpkg -x "$f" / >/dev/null 2>&1; done; ldconfig
export XDG_RUNTIME_DIR=/tmp
R=${RENDERMM:-$D/rendermm}
[ -x "$R" ] || R=.bin/rendermm
OUT=${OUT:-fast-out}; mkdir -p "$OUT"
if ! $R info 2>/dev/null | grep -q NVIDIA; then export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; fi
N=${N:-4096}; REPEATS=${REPEATS:-5}
L=$OUT/fast-h100.txt
$R info > $L 2>&1
run() { echo "\$ $*" >> $L; timeout 240 "$@" >> $L 2>&1; echo "rc=$?" >> $L; echo >> $L; }
# 1. Every variant at n, device time, with the check.
run $R tune --method cs-fast --m $N --k $N --n $N --repeats $REPEATS --json
run $R tune --method coop --m $N --k $N --n $N --repeats $REPEATS --json
# 2. coop in full against the f64 reference and its f16 bound, every variant, awkward shapes.
for v in 64x64 64x64-frag 64x32 64x32-frag 32x32 32x32-frag; do
    for s in 1x1x1 7x13x5 65x100x37 130x67x129 512x512x512; do
        echo "\$ RENDERMM_COOP=$v rendermm multiply --method coop --random $s --check" >> $L
        RENDERMM_COOP=$v timeout 60 $R multiply --method coop --random $s --check --json 2>&1 \
            | grep -E '"(gflops|rel_err|f16_bound_ratio|check_passed)"|^error' >> $L
    done
done
# 3. cs-fast's default through multiply, with its notes (padding, bounds checks off).
run $R multiply --method cs-fast --random ${N}x${N}x${N} --json
cat $L
echo
echo "# for bench/run-gpu.sh:"
python3 - "$L" <<'EOF'
import json, re, sys
text = open(sys.argv[1]).read()
for block in re.findall(r'^\{\n.*?^\}', text, re.S | re.M):
    try:
        t = json.loads(block)
    except ValueError:
        continue
    if "best" in t and "env" in t:
        print(f'export {t["env"]}={t["best"]}   # {t["method"]}: ' + ", ".join(
            f'{p["variant"]} {p["gflops"]:.0f}' if p.get("gflops") is not None else f'{p["variant"]} error'
            for p in t["points"]) + " GFLOP/s")
EOF
