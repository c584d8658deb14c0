#!/usr/bin/env python3
"""One ratio table from one run: rendermm's sweep (`rendermm bench --json FILE`) against the
adapter's own ceilings (measured in the same run) and the cuBLAS/PyTorch anchor
(`bench/cublas.py`), at the largest n both have, with the project's targets (docs/performance.md).

    python3 bench/ratios.py bench.json cublas.json
"""
import json
import sys

RENDER = {"lm", "hall-blocked", "hall-packed", "frag-mrt", "frag-mrt-f16"}
CPU = {"cpu-naive", "cpu-fast"}


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit("usage: ratios.py BENCH.json CUBLAS.json")
    bench = json.load(open(sys.argv[1]))
    anchor = json.load(open(sys.argv[2]))
    ceil = {c["name"]: c["value"] for c in bench["ceilings"]["ceilings"]}
    theory = {c["name"]: c["theoretical"] for c in bench["ceilings"]["ceilings"] if c.get("theoretical")}
    rows = [r for r in bench["rows"] if r.get("skipped") is None and r.get("passed")]
    anchor_rows = {(r["method"], r["n"]): r["gflops"] for r in anchor["rows"] if "n" in r}
    anchor_ms = {(r["method"], r["n"]): r["median_ms"] for r in anchor["rows"] if "n" in r}
    anchor_gbps = {r["method"]: r["gbps"] for r in anchor["rows"] if "gbps" in r}
    n = max(n for (_, n) in anchor_rows)
    at_n = [r for r in rows if r["n"] == n and r["precision"] == "f32"]
    if not at_n:
        n = max(r["n"] for r in rows)
        at_n = [r for r in rows if r["n"] == n and r["precision"] == "f32"]

    def best(names):
        c = [r for r in at_n if r["method"] in names]
        return max(c, key=lambda r: r["gflops"]) if c else None

    compute = {r["method"] for r in at_n} - RENDER - CPU - {"coop"}
    out = []

    def line(family, row, value, yardstick, ratio, target):
        name = f'{row["method"]} ({value})' if row else "not run"
        verdict = "—" if ratio is None else ("met" if ratio >= target else "not met")
        r = "—" if ratio is None else f"{ratio:.2f}x"
        out.append(f"| {family} | {name} | {yardstick} | {r} | >= {target:.2f}x | {verdict} |")

    r = best(RENDER)
    line("best render-pass method", r, f'{r["gflops"]:.0f} GFLOP/s' if r else "",
         f'fragment-FMA ceiling {ceil.get("fragment-fma", float("nan")):.0f} GFLOP/s',
         r["gflops"] / ceil["fragment-fma"] if r and "fragment-fma" in ceil else None, 0.70)
    peak = theory.get("fragment-fma")
    for name in ("frag-mrt", "frag-mrt-f16"):
        fr = next((x for x in at_n if x["method"] == name), None)
        if fr and peak:
            line(f"{name} vs the 4-SM fragment peak", fr, f'{fr["gflops"]:.0f} GFLOP/s',
                 f"theoretical {peak:.0f} GFLOP/s", fr["gflops"] / peak, 0.80)
    for name in ("compute-fma", "fragment-fma", "texture-fetch"):
        if name in ceil and name in theory:
            out.append(f'| ceiling {name} | {ceil[name]:.1f} | theoretical {theory[name]:.1f} | '
                       f'{ceil[name] / theory[name]:.2f}x | >= 0.90x | {"met" if ceil[name] / theory[name] >= 0.90 else "not met"} |')
    lm = next((x for x in at_n if x["method"] == "lm"), None)
    if lm is None:  # L-M may have been cut at a smaller n for time; use its largest n
        lms = [x for x in rows if x["method"] == "lm" and x["precision"] == "f32"]
        lm = max(lms, key=lambda x: x["n"]) if lms else None
    line("L-M", lm, f'n={lm["n"]}, {lm["gflops"]:.1f} GFLOP/s' if lm else "",
         f'R32F blend rate {ceil.get("blend-r32f", float("nan")):.2f} Gfragments/s',
         lm.get("ceiling_fraction") if lm else None, 0.80)
    c = best(compute)
    sgemm = anchor_rows.get(("torch-f32-notf32", n))
    line("best compute method", c, f'{c["gflops"]:.0f} GFLOP/s' if c else "",
         f'cuBLAS SGEMM (TF32 off) {sgemm:.0f} GFLOP/s' if sgemm else "cuBLAS not run",
         c["gflops"] / sgemm if c and sgemm else None, 0.85)
    co = next((x for x in rows if x["method"] == "coop" and x["n"] == n), None)
    h = anchor_rows.get(("torch-f16", n))
    line("cooperative matrix (f16 in, f32 acc)", co, f'{co["gflops"]:.0f} GFLOP/s' if co else "",
         f'torch float16 {h:.0f} GFLOP/s' if h else "torch f16 not run",
         co["gflops"] / h if co and h else None, 0.45)
    if co and "tensor-mma" in ceil:
        t = theory.get("tensor-mma")
        tt = f' (theoretical {t:.0f}: {ceil["tensor-mma"] / t:.2f}x, reached only through wgmma)' if t else ""
        out.append(f'| coop vs its own ceiling | coop ({co["gflops"]:.0f} GFLOP/s) | tensor-mma ceiling '
                   f'{ceil["tensor-mma"]:.0f} GFLOP/s{tt} | {co["gflops"] / ceil["tensor-mma"]:.2f}x | — | — |')
    fast = next((x for x in at_n if x["method"] == "cs-fast"), None)
    if fast and "readback_gbps" in fast:
        d2h, h2d = ceil.get("copy-d2h"), ceil.get("copy-h2d")
        line("cs-fast readback", fast, f'{fast["readback_gbps"]:.2f} GB/s',
             f'copy-d2h {d2h:.2f} GB/s' if d2h else "no copy-d2h",
             fast["readback_gbps"] / d2h if d2h else None, 0.70)
        th = anchor_gbps.get("torch-h2d")
        line("cs-fast upload", fast, f'{fast["upload_gbps"]:.2f} GB/s',
             f'copy-h2d {h2d:.2f} GB/s' + (f' (PyTorch from numpy {th:.2f} GB/s)' if th else ""),
             fast["upload_gbps"] / h2d if h2d else None, 0.70)
        # Host to host is the call's wall clock (`wall_ms`), as PyTorch's figure is; a sweep
        # file from before it had one holds only the phases summed, which is not the same
        # measure and is not compared.
        wall = fast.get("wall_ms")
        if wall is not None and wall != wall:
            wall = None
        torch_host = anchor_ms.get(("torch-f32-host", n))
        line("cs-fast host to host (wall clock)", fast,
             f'{wall:.1f} ms' if wall is not None else "no wall_ms in this sweep",
             f'PyTorch numpy→GPU→matmul→numpy {torch_host:.1f} ms' if torch_host else "not run",
             torch_host / wall if torch_host and wall else None, 1.00)
    over = [x for x in rows if (x.get("ceiling_fraction") or 0) > 1.0]
    out.append(f'| no method above its ceiling | {", ".join(x["method"] + " n=" + str(x["n"]) for x in over) or "none"} | each row\'s ceiling | — | — | {"not met" if over else "met"} |')
    slow = [x for x in rows if x.get("clock_ratio") is not None and x["clock_ratio"] < 0.87]
    slow_list = ", ".join("%s n=%d (%.2f)" % (x["method"], x["n"], x["clock_ratio"]) for x in slow) or "all"
    recorded = any(x.get("clock_ratio") is not None for x in rows)
    if not recorded:
        slow_list = "not recorded (a sweep without the clock guard)"
    out.append(f'| every row timed at full clock (clock guard) | {slow_list} | the clock the sweep began with | — | — | {"not met" if slow else ("met" if recorded else "—")} |')
    print(f'adapter: {bench["adapter"]} ({bench["backend"]}); anchor: {anchor.get("device", "?")}, torch {anchor.get("torch", "?")}; n = {n}')
    print()
    print("| method family | best | yardstick | ratio | target | |")
    print("|---|---|---|---:|---:|---|")
    print("\n".join(out))


if __name__ == "__main__":
    main()
