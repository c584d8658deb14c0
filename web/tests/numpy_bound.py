"""The page's C against numpy: the bound of f32 sums of k products, for web/tests/test_page.py."""

import numpy as np

# f32's unit roundoff.
U = 2.0 ** -24


def gamma(n):
    """γ_n = n·u / (1 − n·u), u = 2⁻²⁴."""
    return n * U / (1 - n * U)


def numpy_verdict(c, a, b, f16_inputs=False):
    """Hold C (the page's, float32) to numpy's product of the inputs in float64: (passed, words).

    f32: every element within γ_(k+1)·(|A||B|)_ij + k·2⁻¹²⁶ of (AB)_ij. Each of the k products
    and the additions that sum them round once each in f32, in whatever order the pipeline sums
    (blending, a shader loop, packed channels), so no term is rounded more than k times and
    |C − AB| ≤ γ_k·|A||B| (Higham, Accuracy and Stability of Numerical Algorithms, §3.1); the
    margin is one more rounding (γ_(k+1): a sum converted or stored once more) and k·2⁻¹²⁶ for
    products a GPU flushes to zero below f32's normal range. f16 inputs: A and B rounded to f16
    first (nearest even, as the page packs them), whose products are exact in f32, then the same."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if f16_inputs:
        a64, b64 = a.astype(np.float16).astype(np.float64), b.astype(np.float16).astype(np.float64)
    k = a.shape[1]
    want = a64 @ b64
    if c.shape != want.shape:
        return False, f"C is {c.shape}, A·B is {want.shape}"
    bound = gamma(k + 1) * (np.abs(a64) @ np.abs(b64)) + k * 2.0 ** -126
    err = np.abs(c.astype(np.float64) - want)
    ratio = err / bound
    worst = tuple(int(i) for i in np.unravel_index(
        np.argmax(np.where(np.isfinite(ratio), ratio, np.inf)), ratio.shape))
    ok = bool(np.all(np.isfinite(c)) and np.all(err <= bound))
    return ok, (f"numpy: worst element {worst} is {float(c[worst])!r}, A·B has {float(want[worst])!r}: "
                f"{ratio[worst]:.2g} of the bound γ_(k+1)·|A||B| (k = {k}"
                + (", inputs rounded to f16" if f16_inputs else "") + ")")
