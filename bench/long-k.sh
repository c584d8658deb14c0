#!/usr/bin/env bash
# Long k on the adapter at hand: every listed GPU method multiplies all-ones 3×k×2 (every element
# of C must be exactly k) at k = 65 537, 1 048 577 and 4 194 305, and the table says what each
# gave, the loop cap the plan held it to (none where the driver cut no loop short) and into how
# many chunks k was split. Needs python3 with numpy.
#   bench/long-k.sh [path/to/rendermm] [output.txt]     (KS="65537 1048577" for fewer depths)
set -u
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"   # lavapipe prints a harmless error without it
R=${1:-target/release/rendermm}
OUT_FILE=${2:-/dev/stdout}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$R" info | sed -n '/shader loop cap/,$p'
python3 - "$T" <<'PY'
import sys, numpy as np
for k in (65537, 1048577, 4194305):
    np.save(f"{sys.argv[1]}/a{k}.npy", np.ones((3, k), np.float32))
    np.save(f"{sys.argv[1]}/b{k}.npy", np.ones((k, 2), np.float32))
PY
{
printf "%-24s %-8s %-10s %-10s %s\n" method k "C" loop_cap chunks_k
for k in ${KS:-65537 1048577 4194305}; do
  for m in cs-naive cs-tiled-16 cs-tiled-32 5kk73-1-uncoalesced 5kk73-4-outer-product \
           5kk73-6-prefetch cannon cannon-tiled dns-tiled cs-fast coop lm hall-blocked frag-mrt; do
    if ! "$R" multiply --method $m --a "$T/a$k.npy" --b "$T/b$k.npy" --out "$T/c.npy" --json \
         > "$T/j.json" 2> "$T/e.txt"; then
      printf "%-24s %-8s %s\n" $m $k "refused: $(tail -1 "$T/e.txt")"; continue
    fi
    python3 - "$T" $m $k <<'PY'
import sys, json, numpy as np
t, m, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
c = np.load(f"{t}/c.npy")
got = "exact" if (c == k).all() else "WRONG " + str(c.ravel()[:2])
tl = json.load(open(f"{t}/j.json")).get("tiling") or {}
print(f"{m:<24} {k:<8} {got:<10} {str(tl.get('loop_cap') or 'none'):<10} {tl.get('chunks_k') or 1}")
PY
  done
done
} > "$OUT_FILE"
