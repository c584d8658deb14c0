"""Every method against numpy's product in float64, at awkward shapes and input layouts."""

import numpy as np
import pytest

import rendermm
from conftest import assert_close_to_reference, reference

# m, k, n: one element, one row, one column, primes, m ≠ k ≠ n, and k past one Hall block.
AWKWARD = [(1, 1, 1), (1, 9, 1), (1, 1, 13), (1, 17, 29), (7, 13, 11), (31, 5, 2), (5, 67, 3)]

METHODS = [m.name for m in rendermm.methods()]


def operands(rng, m, k, n, dtype=np.float32):
    a = rng.uniform(-1.0, 1.0, size=(m, k)).astype(dtype)
    b = rng.uniform(-1.0, 1.0, size=(k, n)).astype(dtype)
    return a, b


def run_or_unsupported(method, a, b, **kw):
    """The method's result, or None where the adapter lacks the hardware the method needs,
    which must then say so as one RuntimeError line (never a wrong array)."""
    try:
        return rendermm.multiply(a, b, method=method, result=True, **kw)
    except RuntimeError as e:
        line = str(e)
        assert "\n" not in line, f"{method}: a multi-line error: {line!r}"
        assert method == "coop", f"{method} failed on this adapter: {line}"
        assert "cooperative" in line.lower() or "tensor" in line.lower(), line
        return None


@pytest.mark.parametrize("method", METHODS)
def test_every_method_matches_numpy_at_awkward_shapes(method, rng):
    ran = 0
    for m, k, n in AWKWARD:
        a, b = operands(rng, m, k, n)
        r = run_or_unsupported(method, a, b, check=True)
        if r is None:
            continue
        ran += 1
        assert r.c.dtype == np.float32
        assert r.shape == (m, k, n)
        assert r.verdict is not None and r.verdict["passed"], r.verdict
        assert_close_to_reference(r.c, a, b, f"{method} {m}x{k}x{n}", inputs=r.inputs)
    if method != "coop":
        assert ran == len(AWKWARD)


@pytest.mark.parametrize("method", ["lm", "hall-blocked", "hall-packed", "cs-tiled-16", "cpu-fast"])
def test_float64_inputs_are_computed_in_float32_and_returned_as_float64(method, rng):
    a, b = operands(rng, 9, 23, 6, dtype=np.float64)
    r = rendermm.multiply(a, b, method=method, result=True)
    assert r.c.dtype == np.float64
    assert any("float64" in note for note in r.notes), r.notes
    assert_close_to_reference(r.c, a, b, f"{method} float64")
    # Exactly the float32 product of the rounded inputs.
    c32 = rendermm.multiply(a.astype(np.float32), b.astype(np.float32), method=method)
    np.testing.assert_array_equal(r.c, c32.astype(np.float64))


@pytest.mark.parametrize("method", ["lm", "hall-blocked", "hall-packed", "cs-naive", "cpu-naive"])
def test_fortran_ordered_and_strided_inputs_give_the_product_of_their_values(method, rng):
    a, b = operands(rng, 11, 19, 7)
    want = rendermm.multiply(a, b, method=method)
    fa, fb = np.asfortranarray(a), np.asfortranarray(b)
    assert not fa.flags.c_contiguous
    np.testing.assert_array_equal(rendermm.multiply(fa, fb, method=method), want)
    # Strided views: every other row of a larger array, and a transposed view.
    big = np.zeros((22, 19), np.float32)
    big[::2] = a
    bt = np.ascontiguousarray(b.T).T
    assert not bt.flags.c_contiguous
    np.testing.assert_array_equal(rendermm.multiply(big[::2], bt, method=method), want)
    assert_close_to_reference(want, a, b, f"{method} 11x19x7")


def test_result_says_what_ran(rng):
    a, b = operands(rng, 8, 70, 5)
    r = rendermm.multiply(a, b, method="hall-blocked", block=8, result=True)
    assert (r.method, r.kernel, r.block) == ("hall-blocked", "hall-blocked", 8)
    assert r.passes == -(-70 // 8)
    assert r.sums in ("f32", "f16") and r.inputs in ("f32", "f16")
    for key in ("setup_ms", "upload_ms", "compute_ms", "readback_ms", "total_ms"):
        assert r.timings[key] >= 0.0, key
    assert r.timings["total_ms"] > 0.0
    assert r.verdict is None
    assert r.adapter and r.backend
    np.testing.assert_array_equal(r.c, rendermm.multiply(a, b, method="hall-blocked", block=8))


def test_f16_mode_is_held_to_its_model(rng):
    a, b = operands(rng, 12, 40, 9)
    for method in ("lm", "hall-blocked", "hall-packed"):
        r = rendermm.multiply(a, b, method=method, precision="f16", check=True, result=True)
        assert r.sums == "f16" and r.verdict["passed"], (method, r.verdict)
        # f16 sums: each of the k additions rounds at f16's 2^-11 of the running sum.
        k = a.shape[1]
        bound = (k + 2) * 2.0 ** -11 * (np.abs(a).astype(np.float64) @ np.abs(b))
        assert np.all(np.abs(r.c - reference(a, b)) <= bound), method


U8_METHODS = [m.name for m in rendermm.methods() if "u8" in m.precisions]
# The methods that take L-M §4's widths (not the GL-era ones, whose framebuffer keeps 8 bits).
U8_WIDTHS = {m.name for m in rendermm.methods() if m.u8_widths}
# Hall's block size when none is given.
DEFAULT_BLOCK = 32


def round_div(x, d):
    """x / d rounded half up, exactly (non-negative integers)."""
    return x // d + (2 * (x % d) >= d)


def to_unorm8(x):
    """The 8-bit texel of each value: x clamped to [0, 1], times 255 in float32, rounded half
    away from zero."""
    v = np.clip(x.astype(np.float32), np.float32(0), np.float32(1)) * np.float32(255)
    return np.floor(v.astype(np.float64) + 0.5).astype(np.int64)


def u8_passes(method, k, block):
    """The inner indices p each pass sums: one per pass (L-M), blocks of b (hall-blocked,
    hall-arbfp), or blocks of b packed p, each p = q and q + ceil(k/2) (hall-packed)."""
    if method in ("lm", "lm-gl1"):
        return [[p] for p in range(k)]
    if method == "hall-packed":
        k2 = -(-k // 2)
        return [[p for q in range(s, min(s + block, k2)) for p in (q, q + k2) if p < k]
                for s in range(0, k2, block)]
    return [list(range(s, min(s + block, k))) for s in range(0, k, block)]


def u8_model(a, b, method, block, product_bits=None, sum_bits=None, depth=1):
    """The 8-bit pipeline (L-M §4) in exact integer arithmetic, a port of the library's
    `precision::u8_model` family: inputs to 8-bit texels; each pass sums its products exactly
    (units of 1/255²), times the polygon colour 1/depth, kept at `product_bits` and brought to
    `sum_bits` (each rounded half up), added to the running sum, which saturates at
    2^sum_bits - 1; the output is the sum reduced to 8 bits. lm-gl1 rounds each slice as OpenGL
    1.x's texture environment does: texels and colour in float32, two float32 multiplies, then
    x·255 rounded to nearest even. C as float32, acc / 255."""
    pb, sb = product_bits or 8, sum_bits or 8
    qa, qb = to_unorm8(a), to_unorm8(b)
    m, k = qa.shape
    n = qb.shape[1]
    top_p, top_s = 2 ** pb - 1, 2 ** sb - 1
    acc = np.zeros((m, n), np.int64)
    if method == "lm-gl1":
        step = np.float32(1.0) / np.float32(255.0)
        colour = np.float32(1.0) / np.float32(depth)
        for p in range(k):
            x = (colour * (qa[:, p:p + 1].astype(np.float32) * step)) * (
                qb[p:p + 1, :].astype(np.float32) * step)
            steps = np.rint(x * np.float32(255.0)).astype(np.int64)
            acc = np.minimum(acc + steps, 255)
        return acc.astype(np.float32) / np.float32(255.0)
    for ps in u8_passes(method, k, block):
        s = qa[:, ps] @ qb[ps, :]
        q = round_div(s * top_p, 255 * 255 * depth)
        if pb != sb:
            q = round_div(q * top_s, top_p)
        acc = np.minimum(acc + q, top_s)
    return round_div(acc * 255, top_s).astype(np.float32) / np.float32(255.0)


@pytest.mark.parametrize("method", U8_METHODS)
@pytest.mark.parametrize("bits", [(None, None), (16, 16)])
def test_u8_equals_its_model_and_stays_inside_its_range(method, bits, rng):
    if bits != (None, None) and method not in U8_WIDTHS:
        pytest.skip(f"{method} runs 2001's 8-bit framebuffer only")
    m, k, n = 13, 40, 11
    # In [0, sqrt(2/k)): products are in range and most sums lie between 0 and saturation.
    hi = np.sqrt(2.0 / k)
    a = rng.uniform(0.0, hi, size=(m, k)).astype(np.float32)
    b = rng.uniform(0.0, hi, size=(k, n)).astype(np.float32)
    pb, sb = bits
    r = rendermm.multiply(
        a, b, method=method, precision="u8", u8_product_bits=pb, u8_sum_bits=sb,
        check="model", result=True,
    )
    v = r.verdict
    assert v["passed"] and v["held_to"] == "model", v
    assert v["held"].startswith("equal to the 8-bit pipeline's model"), v["held"]
    inside = np.mean((r.c > 0.0) & (r.c < 1.0))
    assert inside > 0.5, f"{method}: only {inside:.0%} of C lies strictly between 0 and 1"
    # C is the 8-bit pipeline's model, bit for bit (computed here, not taken from the verdict).
    block = r.block if r.block is not None else DEFAULT_BLOCK
    want = u8_model(a, b, method, block, pb, sb)
    assert r.c.dtype == np.float32 and r.c.shape == want.shape
    off = np.argwhere(r.c != want)
    first = tuple(int(i) for i in off[0]) if len(off) else None
    assert first is None, (
        f"{method} {bits}: {len(off)} elements differ from the 8-bit model, first {first}: "
        f"C {float(r.c[first])!r} = {float(r.c[first]) * 255:.3f} steps, "
        f"model {float(want[first]) * 255:.3f} steps"
    )


def test_check_failure_raises_check_failed_with_the_verdict_and_no_array():
    # 1e300 · 1e-300 = 1, but in float32 the inputs are inf and 0, whose product is NaN: the
    # check holds C to the product of the inputs as given, as `multiply --check` does.
    a = np.array([[1e300]], np.float64)
    b = np.array([[1e-300]], np.float64)
    for method in ("cpu-naive", "cs-naive", "lm"):
        with pytest.raises(rendermm.CheckFailed) as info:
            rendermm.multiply(a, b, method=method, allow_nonfinite=True, check=True)
        e = info.value
        assert "\n" not in str(e) and str(e).startswith("check failed: "), str(e)
        assert e.verdict["passed"] is False, e.verdict
        assert "held" in e.verdict and "tolerance" in e.verdict
        assert any("as given" in note for note in e.report["notes"]), e.report["notes"]
        # Without the check, the request returns the float32 computation's C as it is.
        c = rendermm.multiply(a, b, method=method, allow_nonfinite=True)
        assert c.dtype == np.float64 and np.isnan(c[0, 0])


def test_a_float64_value_past_f32s_range_is_refused_unless_allowed():
    a = np.array([[1.0, 2.0], [3.0, -5e38]], np.float64)
    with pytest.raises(ValueError) as e:
        rendermm.multiply(a, np.eye(2), method="cs-naive")
    text = str(e.value)
    assert "\n" not in text and "row 1, column 1" in text and "allow_nonfinite" in text, text


def test_host_to_host_is_a_wall_clock_that_holds_the_phases(rng):
    """`python_wall_ms` is this call's wall clock (numpy in, numpy out), `wall_ms` the library's
    call inside it, `total_ms` the timed phases inside that: each holds the next, and
    `outside_ms` is what the library's call spent outside its phases."""
    a = rng.uniform(-1, 1, size=(96, 80)).astype(np.float32)
    b = rng.uniform(-1, 1, size=(80, 64)).astype(np.float32)
    r = rendermm.multiply(a, b, method="cs-tiled-16", result=True)
    t = r.timings
    assert t["python_wall_ms"] >= t["wall_ms"] >= t["total_ms"] > 0, t
    assert abs(t["outside_ms"] - (t["wall_ms"] - t["total_ms"])) < 1e-6, t
