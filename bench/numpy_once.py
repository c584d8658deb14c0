#!/usr/bin/env python3
"""One float32 n×n·n×n product with numpy, inputs uniform in [-1, 1): the whole-process
counterpart of `rendermm multiply --method cpu-fast --random NxNxN`.

    python3 bench/numpy_once.py 2048
"""
import sys

import numpy as np

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
rng = np.random.default_rng(0)
a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
c = a @ b
print(f"{n}x{n}x{n} numpy {np.__version__}: c[0,0] = {c[0, 0]}")
