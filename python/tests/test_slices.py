"""The running sum after every pass: one slice per pass, each the partial product so far, the
last equal to C."""

import numpy as np
import pytest

import rendermm
from conftest import assert_close_to_reference


def covered(method, k, block, p):
    """The indices of k summed after pass p (1-based)."""
    if method == "lm":
        return list(range(p))
    if method == "hall-packed":
        k2 = -(-k // 2)
        end = min(p * block, k2)
        return list(range(end)) + list(range(k2, min(k2 + end, k)))
    return list(range(min(p * block, k)))


def expected_passes(method, k, block):
    if method == "lm":
        return k
    if method == "hall-packed":
        return -(-(-(-k // 2)) // block)
    return -(-k // block)


@pytest.mark.parametrize(
    "method,m,k,n,block",
    [
        ("lm", 6, 9, 5, None),
        ("lm", 1, 1, 1, None),
        ("hall-blocked", 7, 29, 3, 4),
        ("hall-blocked", 5, 33, 8, None),
        ("hall-packed", 7, 29, 5, 3),
        ("hall-packed", 3, 2, 1, None),
    ],
)
def test_slices_count_the_passes_and_the_last_is_c(method, m, k, n, block):
    rng = np.random.default_rng(m * 1000 + k * 10 + n)
    a = rng.uniform(-1, 1, size=(m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, size=(k, n)).astype(np.float32)
    got = rendermm.slices(a, b, method=method, block=block, result=True)
    s, r = got.s, got.result
    b_used = r.block if r.block is not None else 1
    assert s.shape == (r.passes, m, n)
    assert r.passes == expected_passes(method, k, b_used)
    c = rendermm.multiply(a, b, method=method, block=block)
    np.testing.assert_array_equal(s[-1], c)
    for p in range(1, r.passes + 1):
        idx = covered(method, k, b_used, p)
        assert_close_to_reference(s[p - 1], a[:, idx], b[idx, :], f"{method} pass {p}")


def test_slices_refuse_a_method_without_passes():
    a = np.ones((2, 2), np.float32)
    with pytest.raises(ValueError) as e:
        rendermm.slices(a, a, method="cs-tiled-16")
    assert "\n" not in str(e.value) and "lm, hall-blocked or hall-packed" in str(e.value)
