"""Each kind of bad input raises its exception with one clear line; nothing half-done comes
back."""

import os
import subprocess
import sys

import numpy as np
import pytest

import rendermm

A = np.ones((3, 4), np.float32)
B = np.ones((4, 2), np.float32)


def one_line(excinfo, *words):
    text = str(excinfo.value)
    assert text and "\n" not in text, f"not one line: {text!r}"
    for w in words:
        assert w in text, f"{w!r} not in {text!r}"
    assert "panicked" not in text and "Traceback" not in text


@pytest.mark.parametrize(
    "a,b,words",
    [
        (A.astype(np.int32), B, ["a", "int32", "float32"]),
        (A, B.astype(np.float16), ["b", "float16"]),
        (A.astype(np.complex64), B, ["a", "complex64"]),
        (np.ones((2, 3, 4), np.float32), B, ["a", "2-D", "3-D"]),
        (np.ones(4, np.float32), B, ["a", "2-D", "1-D"]),
        ([[1.0, 2.0]], B, ["a", "numpy array", "list"]),
        (A, np.ones((5, 2), np.float32), ["3x4", "5x2"]),
        (np.ones((0, 4), np.float32), B, ["empty"]),
    ],
)
def test_bad_operands_raise_value_error_in_one_line(a, b, words):
    with pytest.raises(ValueError) as e:
        rendermm.multiply(a, b)
    one_line(e, *words)


@pytest.mark.parametrize(
    "kw,words",
    [
        (dict(method="nope"), ["unknown method 'nope'", "lm"]),
        (dict(precision="f64"), ["precision 'f64'", "u8, f16 or f32"]),
        (dict(method="cs-tiled-16", precision="u8"), ["cs-tiled-16", "u8"]),
        (dict(method="lm", block=4), ["block", "lm", "hall-blocked"]),
        (dict(method="hall-blocked", accumulate="sideways"), ["sideways"]),
        (dict(method="lm", precision="u8", u8_product_bits=12), ["12", "8, 14"]),
        (dict(method="lm", u8_sum_bits=16), ["precision='u8'"]),
        (dict(method="cs-naive", variant="fast"), ["variant", "cs-naive"]),
        (dict(method="lm", scale_by_depth=True), ["scale_by_depth", "u8"]),
        (dict(mem_budget="lots"), ["lots"]),
        (dict(method="hall-blocked", block=-1), ["block=-1", "whole number"]),
        (dict(method="hall-blocked", block=2**40), ["block=1099511627776"]),
        (dict(method="hall-blocked", block=0), ["b = 0"]),
        (dict(method="lm", precision="u8", u8_sum_bits=-8), ["u8_sum_bits=-8"]),
    ],
)
def test_bad_options_raise_value_error_in_one_line(kw, words):
    with pytest.raises(ValueError) as e:
        rendermm.multiply(A, B, **kw)
    one_line(e, *words)


def test_non_finite_input_is_refused_unless_allowed():
    a = A.copy()
    a[0, 1] = np.inf
    with pytest.raises(ValueError) as e:
        rendermm.multiply(a, B, method="cs-naive")
    one_line(e, "A")


def test_a_product_past_the_texture_limit_with_no_tile_is_a_value_error():
    side = rendermm.info()["limits"]["max_texture_dimension_2d"] + 1
    a = np.ones((1, side), np.float32)
    b = np.ones((side, 1), np.float32)
    with pytest.raises(ValueError) as e:
        rendermm.multiply(a, b, method="lm", no_tile=True)
    one_line(e, str(side))


def test_no_adapter_is_a_runtime_error_in_one_line():
    # A backend this machine does not have: the context cannot open, which is the GPU's side.
    code = (
        "import numpy as np, rendermm\n"
        "try:\n"
        "    rendermm.multiply(np.ones((2, 2), np.float32), np.ones((2, 2), np.float32))\n"
        "except RuntimeError as e:\n"
        "    print('RuntimeError:', e)\n"
    )
    env = dict(os.environ, WGPU_BACKEND="metal")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    lines = [l for l in out.stdout.splitlines() if l.strip()]
    assert len(lines) == 1 and lines[0].startswith("RuntimeError: "), out.stdout
    assert "adapter" in lines[0].lower(), lines[0]


def test_methods_and_info_describe_what_there_is():
    rows = rendermm.methods()
    names = [r.name for r in rows]
    for name in ("lm", "hall-blocked", "hall-packed", "cs-naive", "cpu-fast"):
        assert name in names
    lm = rows[names.index("lm")]
    assert lm.era.startswith("2001") and "Larsen" in lm.source and lm.summary
    assert set(lm.precisions) == {"u8", "f16", "f32"} and not lm.block
    info = rendermm.info()
    assert info["adapter"]["name"] and info["adapter"]["backend"]
    assert set(info["features"]) >= {"FLOAT32_BLENDABLE", "TIMESTAMP_QUERY"}
    assert info["limits"]["max_texture_dimension_2d"] >= 2048
    assert "fragment" in info["loop_cap"]
