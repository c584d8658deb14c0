"""What the Python binding costs over the Rust call, and whether a second call builds pipelines.

Not a test: a measurement to read and record. It multiplies the same two matrices (1024³ unless
told otherwise) by one method

  - from Rust, with `python/examples/rust_multiply.rs` (one context, the calls back to back in one
    process, as the binding does): the wall time of `plan::multiply`, C in fresh memory each
    call, and again with C read back into memory kept from the last call;
  - from Python, with `rendermm.multiply` (numpy in, numpy out): the wall time of the call;

(and PyTorch's numpy → GPU → numpy, where torch and a CUDA GPU are there) and prints the medians
and the binding's overhead in percent (and, within each Python call, the
time outside the phases the report times), and the `timings.setup_ms` of the
binding's first and second call of the shape (pipeline building; the second should spend none).

    python python/bench/overhead.py [--method cs-fast] [--size 1024] [--repeats 5]

Run it from the repository root after `pip install ./python`; it builds the Rust example with
cargo (release) on first use.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import rendermm

PYTHON_DIR = Path(__file__).resolve().parent.parent


def rust_calls(
    a_path: Path, b_path: Path, method: str, repeats: int, example: str | None
) -> list[dict]:
    run = [example] if example else [
        "cargo", "run", "--quiet", "--release", "--example", "rust_multiply", "--"
    ]
    cmd = [*run, str(a_path), str(b_path), method, str(repeats)]
    out = subprocess.run(cmd, cwd=PYTHON_DIR, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"error: the Rust example failed: {out.stderr.strip().splitlines()[-1:]}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def python_calls(a: np.ndarray, b: np.ndarray, method: str, repeats: int) -> list[dict]:
    """The wall time of each `rendermm.multiply` call (numpy in, numpy out) by this script's
    own clock, and the timings the call reports: `wall_ms` is the library's call inside it."""
    calls = []
    for _ in range(repeats):
        # The last call's C is let go before the clock starts, as the Rust side's is: freeing
        # it (unmapping its pages) is not the call's work.
        r = None
        start = time.perf_counter()
        r = rendermm.multiply(a, b, method=method, result=True)
        wall = (time.perf_counter() - start) * 1e3
        calls.append({**r.timings, "stopwatch_ms": wall})
    return calls


def torch_calls(a: np.ndarray, b: np.ndarray, repeats: int) -> list[float] | None:
    """PyTorch's numpy → GPU → numpy for the same product (CUDA), where torch and a GPU are
    here: the wall time of copying A and B up, multiplying in their dtype (f32 without TF32,
    or f16) and copying C back."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    torch.backends.cuda.matmul.allow_tf32 = False  # f32 as rendermm computes, not TF32
    calls = []
    c = None
    for _ in range(repeats):
        c = None  # the last C let go before the clock starts, as for rendermm
        torch.cuda.synchronize()
        start = time.perf_counter()
        c = (torch.from_numpy(a).cuda() @ torch.from_numpy(b).cuda()).cpu().numpy()
        calls.append((time.perf_counter() - start) * 1e3)
    assert c.shape == (a.shape[0], b.shape[1])
    return calls


def main() -> None:
    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--method", default="cs-fast")
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--rust-example", help="a built rust_multiply (default: cargo run --release --example rust_multiply)")
    args = p.parse_args()
    n = args.size
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, size=(n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, size=(n, n)).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        a_path, b_path = Path(tmp, "a.npy"), Path(tmp, "b.npy")
        np.save(a_path, a)
        np.save(b_path, b)
        calls = rust_calls(a_path, b_path, args.method, args.repeats + 1, args.rust_example)
    # C in fresh memory each call (like for like with Python and PyTorch), then C read back into
    # the last call's memory (`Request::reusing`), for a Rust caller that keeps it.
    rust = [c for c in calls if not c.get("reused")]
    kept = [c for c in calls if c.get("reused")]
    py = python_calls(a, b, args.method, args.repeats + 1)
    info = rendermm.info()["adapter"]
    med = lambda calls, key: statistics.median(c[key] for c in calls[1:])  # noqa: E731
    # The first call of each builds the pipelines: reported apart, never in the warm medians.
    rust_ms = med(rust, "wall_ms")
    phases = med(rust, "total_ms")
    py_ms = med(py, "stopwatch_ms")
    inside = med(py, "wall_ms")
    print(f"adapter        {info['name']} ({info['backend']})")
    print(f"product        {n}x{n}x{n} by {args.method}, {args.repeats} warm calls each "
          "(medians; host to host = a stopwatch around the call)")
    print(f"rust           {rust_ms:9.2f} ms  plan::multiply, host to host (its own wall_ms "
          f"{med(rust, 'library_wall_ms'):.2f} ms); phases {phases:.2f} ms, compute "
          f"{med(rust, 'compute_ms'):.2f} ms; outside the phases {rust_ms - phases:.2f} ms")
    if kept:
        kept_ms = statistics.median(c["wall_ms"] for c in kept)
        print(f"rust, C kept   {kept_ms:9.2f} ms  plan::multiply with C read back into the last "
              f"call's memory (Request::reusing); readback "
              f"{statistics.median(c['readback_ms'] for c in kept):.2f} ms against "
              f"{med(rust, 'readback_ms'):.2f} ms into fresh memory")
    print(f"python         {py_ms:9.2f} ms  rendermm.multiply, numpy in and out; the library's "
          f"call inside it {inside:.2f} ms, the binding {py_ms - inside:.2f} ms")
    print(f"goal rust      wall / phases = {rust_ms / phases:.2f} (goal <= 1.10: "
          f"{'met' if rust_ms <= 1.10 * phases else 'not met'})")
    print(f"goal python    python / rust = {py_ms / rust_ms:.2f} (goal <= 1.05: "
          f"{'met' if py_ms <= 1.05 * rust_ms else 'not met'})")
    # PyTorch in the dtype the method computes from: f32 for every f32 method; coop reads f16,
    # which PyTorch is given as float16 numpy arrays (half the bytes rendermm's float32 moves).
    half = args.method == "coop"
    torch_ms = torch_calls(a.astype(np.float16) if half else a,
                           b.astype(np.float16) if half else b, args.repeats + 1)
    if torch_ms is not None:
        t = statistics.median(torch_ms[1:])
        what = "float16 numpy → CUDA f16 matmul → numpy" if half else "numpy → CUDA → numpy, f32 without TF32"
        print(f"pytorch        {t:9.2f} ms  ({what}); first call {torch_ms[0]:.2f} ms")
        print(f"vs pytorch     rust {t / rust_ms:.2f}x, python {t / py_ms:.2f}x "
              "(above 1: rendermm faster, same work, same clock)")
    print(f"first call     python {py[0]['stopwatch_ms']:.2f} ms (setup {py[0]['setup_ms']:.2f} ms), "
          f"rust {rust[0]['wall_ms']:.2f} ms (setup {rust[0]['setup_ms']:.2f} ms); "
          f"second call setup: python {py[1]['setup_ms']:.2f} ms, rust {rust[1]['setup_ms']:.2f} ms")


if __name__ == "__main__":
    main()
