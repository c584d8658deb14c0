#!/usr/bin/env bash
# L-M §5 sample application on the H100 (docs/reach.md): the figure 4-5 experiment and closures
# checked against the CPU BFS. Prepare on the x86-64 build box, then run it through the device
# tool with `carry: ["target/reach-h100"]`:
#   cargo build --release && mkdir -p target/reach-h100
#   cp target/release/rendermm bench/reach-h100.sh target/reach-h100/
#   (cd target/reach-h100 && apt-get download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
#   command: bash target/reach-h100/reach-h100.sh   (results land in $OUT)
set -u
D=target/reach-h100
for f in $D/*.deb; do dpkg -x "$f" / >/dev/null 2>&1; done; ldconfig
export XDG_RUNTIME_DIR=/tmp
R=$D/rendermm
if ! $R info 2>/dev/null | grep -q NVIDIA; then export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; fi
L=$OUT/reach-h100.txt
$R info | head -4 > $L
run() { echo "\$ rendermm $*" >> $L; timeout 150 $R "$@" >> $L 2>&1; echo "rc=$?" >> $L; echo >> $L; }
run reach --bench --n 1024 --powers 20 --out $OUT/bench-lm-u8.png
run reach --bench --n 1024 --powers 20 --via-host --out $OUT/bench-lm-u8-via-host.png
run reach --bench --n 1024 --powers 20 --precision f32 --out $OUT/bench-lm-f32.png
run reach --bench --n 1024 --powers 20 --method hall-blocked --out $OUT/bench-hall-blocked.png
run reach --bench --n 1024 --powers 20 --method hall-packed --out $OUT/bench-hall-packed.png
run reach --bench --n 4096 --powers 20 --method hall-packed --out $OUT/bench-hall-packed-4096.png
run reach --graph assets/graph-example.txt --closure --check --out /tmp/c.csv
awk 'BEGIN{srand(3); for(i=0;i<2300;i++) printf "%d %d\n", int(rand()*2400), int(rand()*2400)}' > /tmp/g2400.txt
run reach --graph /tmp/g2400.txt --closure --check --out /tmp/g.json
run reach --graph /tmp/g2400.txt --closure --check --method hall-packed --out /tmp/g2.json
run reach --graph /tmp/g2400.txt --steps 5 --check --method hall-blocked --out /tmp/g3.npy
run reach --graph /tmp/g2400.txt --closure --check --directed --precision f16 --out /tmp/g4.json
cat $L
