#!/usr/bin/env python3
"""The cuBLAS anchor for `rendermm bench`: PyTorch matmul on the CUDA GPU in float32 with TF32 off
(plain SGEMM) and in float16 (tensor cores), timed after warm-up with torch.cuda.synchronize()
around a loop of repeats. Prints one JSON object: {"anchor": "cublas", "rows": [...]}.

    python3 bench/cublas.py --sizes 1024,2048,4096 --repeats 20
"""
import argparse
import json
import statistics
import time

import torch


def time_matmul(n: int, dtype, repeats: int) -> list:
    a = torch.rand((n, n), device="cuda", dtype=dtype)
    b = torch.rand((n, n), device="cuda", dtype=dtype)
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        a @ b
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    return times


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="1024,2048,4096")
    p.add_argument("--repeats", type=int, default=20)
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    rows = []
    for n in [int(s) for s in args.sizes.split(",")]:
        for name, dtype in [("torch-f32-notf32", torch.float32), ("torch-f16", torch.float16)]:
            t = time_matmul(n, dtype, args.repeats)
            med = statistics.median(t)
            rows.append({
                "method": name, "n": n, "median_ms": med * 1e3, "min_ms": min(t) * 1e3,
                "max_ms": max(t) * 1e3, "gflops": 2 * n**3 / med / 1e9,
            })
    print(json.dumps({"anchor": "cublas", "device": torch.cuda.get_device_name(0),
                      "torch": torch.__version__, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
