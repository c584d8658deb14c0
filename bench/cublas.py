#!/usr/bin/env python3
"""The cuBLAS anchor for `rendermm bench`: PyTorch matmul on the CUDA GPU in float32 with TF32 off
(plain SGEMM) and in float16 (tensor cores), each product's device time from CUDA events after a
warm-up; and the host-to-host path a numpy user sees: numpy float32 arrays to
the GPU, the product, back to numpy (`torch-f32-host`), with the copy rates PyTorch reaches from
pageable numpy memory (`torch-h2d`, `torch-d2h`, 64 MiB). Prints one JSON object:
{"anchor": "cublas", "rows": [...]}.

    python3 bench/cublas.py --sizes 1024,2048,4096 --repeats 20
"""
import argparse
import json
import statistics
import time

import torch


def time_matmul(n: int, dtype, repeats: int) -> list:
    """Seconds of device time of each of `repeats` products, from CUDA events recorded around
    each on the stream: the device time rendermm's timestamps measure, with no host-side
    launch or synchronisation inside. Warmed up by 100 ms of products first, so that the clock
    is up."""
    a = torch.rand((n, n), device="cuda", dtype=dtype)
    b = torch.rand((n, n), device="cuda", dtype=dtype)
    a @ b
    torch.cuda.synchronize()
    t = time.perf_counter()
    while time.perf_counter() - t < 0.1:
        a @ b
        torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        a @ b
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e-3)
    return times


def time_host_to_host(n: int, repeats: int) -> list:
    """numpy → GPU → matmul (TF32 off) → numpy, as `rendermm multiply` of in-memory matrices."""
    import numpy as np
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    def once():
        c = (torch.from_numpy(a).cuda() @ torch.from_numpy(b).cuda()).cpu().numpy()
        torch.cuda.synchronize()
        return c
    for _ in range(3):
        once()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        once()
        times.append(time.perf_counter() - t)
    return times


def copy_rates(repeats: int) -> list:
    """GB/s of 64 MiB from pageable numpy memory to the GPU and back, best of `repeats`."""
    import numpy as np
    x = np.ones(16 << 20, dtype=np.float32)
    g = torch.from_numpy(x).cuda()
    torch.cuda.synchronize()
    rows = []
    for name, f in [("torch-h2d", lambda: torch.from_numpy(x).cuda()), ("torch-d2h", lambda: g.cpu().numpy())]:
        best = float("inf")
        for _ in range(repeats):
            t = time.perf_counter()
            f()
            torch.cuda.synchronize()
            best = min(best, time.perf_counter() - t)
        rows.append({"method": name, "bytes": x.nbytes, "best_ms": best * 1e3, "gbps": x.nbytes / best / 1e9})
    return rows


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
        t = time_host_to_host(n, max(3, args.repeats // 4))
        med = statistics.median(t)
        rows.append({
            "method": "torch-f32-host", "n": n, "median_ms": med * 1e3, "min_ms": min(t) * 1e3,
            "max_ms": max(t) * 1e3, "gflops": 2 * n**3 / med / 1e9,
        })
    rows.extend(copy_rates(5))
    print(json.dumps({"anchor": "cublas", "device": torch.cuda.get_device_name(0),
                      "torch": torch.__version__, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
