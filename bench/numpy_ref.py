#!/usr/bin/env python3
"""The CPU anchor for `rendermm bench`: numpy float32 matmul (its BLAS) timed after warm-up.
Prints one JSON object: {"anchor": "numpy", "rows": [...]}.

    python3 bench/numpy_ref.py --sizes 256,512,1024 --repeats 5
"""
import argparse
import json
import statistics
import time

import numpy as np


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="256,512,1024")
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for n in [int(s) for s in args.sizes.split(",")]:
        a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        a @ b
        t = []
        for _ in range(args.repeats):
            s = time.perf_counter()
            a @ b
            t.append(time.perf_counter() - s)
        med = statistics.median(t)
        rows.append({"method": "numpy-f32", "n": n, "median_ms": med * 1e3, "min_ms": min(t) * 1e3,
                     "max_ms": max(t) * 1e3, "gflops": 2 * n**3 / med / 1e9})
    print(json.dumps({"anchor": "numpy", "numpy": np.__version__, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
