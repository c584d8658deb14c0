"""One device for the process, shared by threads; the GIL released while the GPU works."""

import threading
import time

import numpy as np

import rendermm
from conftest import assert_close_to_reference


def test_two_threads_multiplying_at_once_each_get_their_own_product():
    rng = np.random.default_rng(7)
    jobs = []
    for i, method in enumerate(["lm", "hall-packed", "cs-tiled-16", "hall-blocked"] * 2):
        a = rng.uniform(-1, 1, size=(40 + i, 57)).astype(np.float32)
        b = rng.uniform(-1, 1, size=(57, 33 - i)).astype(np.float32)
        jobs.append((method, a, b))
    results = [None] * len(jobs)
    errors = []
    start = threading.Barrier(2)

    def worker(slot):
        start.wait()
        try:
            for j in range(slot, len(jobs), 2):
                method, a, b = jobs[j]
                for _ in range(3):
                    results[j] = rendermm.multiply(a, b, method=method)
        except Exception as e:  # reported below with the thread's job
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors, errors
    for (method, a, b), c in zip(jobs, results):
        assert_close_to_reference(c, a, b, f"{method} on a thread")


def test_the_gil_is_released_while_the_gpu_works():
    a = np.random.default_rng(3).uniform(-1, 1, size=(256, 256)).astype(np.float32)
    rendermm.multiply(a, a, method="lm")  # the device and pipelines, opened outside the timing
    ticks = []
    stop = threading.Event()

    def counter():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=counter)
    t.start()
    time.sleep(0.01)
    begin = time.perf_counter()
    rendermm.multiply(a, a, method="lm")
    end = time.perf_counter()
    stop.set()
    t.join()
    during = [x for x in ticks if begin < x < end]
    # The call takes many milliseconds on a software rasterizer; a held GIL would let the
    # counter run only at the switch interval's edges.
    assert end - begin > 0.02, "the call was too quick to tell"
    assert len(during) >= 0.3 * (end - begin) / 0.002, (len(during), end - begin)
