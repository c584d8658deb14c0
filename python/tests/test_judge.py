"""rendermm.judge (the judge on a product made anywhere, as `rendermm check --json`) and
multiply's check=True / "exact" / "model"."""

import inspect

import numpy as np
import pytest

import rendermm
from rendermm import _rendermm

from conftest import reference

VERDICT_KEYS = {
    "passed", "close", "closeness", "model_passed", "held_to", "held", "tolerance",
    "rel_err", "max_abs_err", "worst", "method", "precision", "m", "k", "n", "notes",
}


def operands(rng, m, k, n, lo=-1.0, hi=1.0):
    a = rng.uniform(lo, hi, size=(m, k)).astype(np.float32)
    b = rng.uniform(lo, hi, size=(k, n)).astype(np.float32)
    return a, b


def saturating(rng):
    """The README's saturating u8 problem: 64×4×64 in [0, √(2/4)), about 2% of C saturates."""
    return operands(rng, 64, 4, 64, 0.0, np.sqrt(2.0 / 4))


def test_the_wrapper_passes_every_native_option():
    wrapper = list(inspect.signature(rendermm.judge).parameters)
    native = list(inspect.signature(_rendermm.judge).parameters)
    assert wrapper == native, (wrapper, native)
    assert (_rendermm.judge.__doc__ or "").strip()


def test_judge_passes_a_product_made_by_multiply_and_by_numpy(rng):
    a, b = operands(rng, 33, 40, 17)
    for c in (rendermm.multiply(a, b, method="lm"), a @ b, reference(a, b)):
        v = rendermm.judge(a, b, c)
        assert VERDICT_KEYS <= set(v), VERDICT_KEYS - set(v)
        assert v["passed"] and v["close"] and v["model_passed"], v
        assert v["held_to"] == "exact" and v["method"] is None and v["precision"] == "f32", v
        assert (v["m"], v["k"], v["n"]) == (33, 40, 17)


def test_judge_fails_one_changed_element_and_names_it(rng):
    a, b = operands(rng, 20, 30, 10)
    c = rendermm.multiply(a, b, method="lm")
    c[7, 3] += 1e-3
    v = rendermm.judge(a, b, c)
    assert v["passed"] is False and v["close"] is False, v
    assert (v["worst"]["row"], v["worst"]["column"]) == (7, 3), v["worst"]
    assert abs(v["worst"]["c"] - v["worst"]["exact"] - 1e-3) < 1e-5, v["worst"]
    # An all-zero C fails too, 100% off.
    v = rendermm.judge(a, b, np.zeros((20, 10), np.float32))
    assert v["passed"] is False and v["rel_err"] == pytest.approx(1.0), v


def test_judge_refuses_what_does_not_fit_in_one_line(rng):
    a, b = operands(rng, 4, 6, 3)
    for kwargs, needle in [
        (dict(c=np.zeros((3, 4), np.float32)), "C is 3x4 but A·B is 4x3"),
        (dict(c=np.zeros((4, 3), np.float32), precision="u8"), "method="),
        (dict(c=np.zeros((4, 3), np.float32), check="nearly"), "'nearly' is neither 'exact'"),
        (dict(c=np.zeros((4, 3), np.float32), check=False), "judge always checks"),
        (dict(c=np.zeros((4, 3), np.float32), method="cpu-naive", precision="u8"), "f32 only"),
    ]:
        with pytest.raises(ValueError) as e:
            rendermm.judge(a, b, **kwargs)
        assert "\n" not in str(e.value) and needle in str(e.value), (kwargs, str(e.value))


def test_judge_holds_a_u8_product_to_the_pipeline_named(rng):
    a, b = saturating(rng)
    c = rendermm.multiply(a, b, method="lm", precision="u8")
    v = rendermm.judge(a, b, c, method="lm", precision="u8", check="model")
    assert v["passed"] and v["model_passed"] and v["held_to"] == "model", v
    assert v["saturated"] > 0 and v["method"] == "lm", v
    v = rendermm.judge(a, b, c, method="lm", precision="u8")
    assert v["held_to"] == "exact" and v["model_passed"], v
    assert v["passed"] == v["close"], v
    # As f32 arithmetic the 8-bit rounding is far past the bound.
    v = rendermm.judge(a, b, c)
    assert not v["passed"] and not v["model_passed"], v


def test_multiply_check_takes_true_exact_or_model(rng):
    a, b = saturating(rng)
    # Held to the pipeline's model: passes, and says how far C is from the exact product.
    r = rendermm.multiply(a, b, method="lm", precision="u8", check="model", result=True)
    v = r.verdict
    assert v["passed"] and v["model_passed"] and v["held_to"] == "model", v
    assert r.report["held_to"] == "model" and r.report["check_passed"], r.report
    assert "exact product" in v["closeness"] or "exact product" in (v.get("exact") or ""), v
    # Held to the exact product (True is "exact"): passes exactly when C is close.
    for check in (True, "exact"):
        try:
            r = rendermm.multiply(a, b, method="lm", precision="u8", check=check, result=True)
            v, raised = r.verdict, False
        except rendermm.CheckFailed as e:
            v, raised = e.verdict, True
            assert "\n" not in str(e) and str(e).startswith("check failed: "), str(e)
        assert v["held_to"] == "exact" and v["model_passed"], v
        assert raised == (not v["close"]), v
    # No check: no verdict.
    for check in (False, None):
        assert rendermm.multiply(a, b, method="lm", precision="u8", check=check, result=True).verdict is None


def test_multiply_refuses_any_other_check_in_one_line(rng):
    a, b = operands(rng, 3, 4, 5)
    for check in ("nearly", 1, 0.5):
        with pytest.raises(ValueError) as e:
            rendermm.multiply(a, b, method="cpu-naive", check=check)
        assert "\n" not in str(e.value) and "exact" in str(e.value), str(e.value)
