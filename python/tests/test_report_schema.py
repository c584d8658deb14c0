"""Python's result JSON is the report `rendermm multiply --json` prints (report::Report): it
follows the schema in docs/report.schema.json, on f32, u8 (with its widths), a Hall block size,
a tiled product and a run read pass by pass."""

import json
import pathlib

import numpy as np
import pytest

import rendermm

jsonschema = pytest.importorskip("jsonschema")

SCHEMA = json.loads(
    (pathlib.Path(__file__).resolve().parents[2] / "docs" / "report.schema.json").read_text()
)


def validate(report):
    validator = jsonschema.Draft202012Validator(SCHEMA)
    errors = [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(report)]
    assert not errors, (errors, report)


def operands(m, k, n, lo=-1.0, hi=1.0, seed=5):
    rng = np.random.default_rng(seed)
    a = rng.uniform(lo, hi, size=(m, k)).astype(np.float32)
    b = rng.uniform(lo, hi, size=(k, n)).astype(np.float32)
    return a, b


@pytest.mark.parametrize(
    "kw,shape,fields",
    [
        (dict(method="cs-naive"), (5, 7, 3), ["checks"]),
        # u8 held to its pipeline's model: inputs in [0, √(2/k)), where some sums saturate.
        (dict(method="lm", precision="u8", check="model"), (8, 9, 6),
         ["u8_product_bits", "u8_sum_bits", "saturated"]),
        (dict(method="hall-blocked", block=3), (9, 10, 7), ["block"]),
        (dict(method="cs-naive", mem_budget="48KiB"), (40, 300, 30), ["tiling"]),
        (dict(method="cpu-naive"), (4, 4, 4), []),
    ],
)
def test_multiply_result_json_follows_the_report_schema(kw, shape, fields):
    if kw.get("precision") == "u8":
        a, b = operands(*shape, lo=0.0, hi=np.sqrt(2.0 / shape[1]))
    else:
        a, b = operands(*shape)
    r = rendermm.multiply(a, b, result=True, **{"check": True, **kw})
    validate(r.report)
    for f in fields:
        assert f in r.report, (f, r.report)
    if "block" in kw:
        assert r.block == kw["block"] == r.report["block"]


def test_slices_result_json_follows_the_report_schema():
    a, b = operands(6, 5, 4)
    s = rendermm.slices(a, b, method="lm", result=True)
    validate(s.result.report)
