"""rendermm from Python: matrix multiplication by every era's GPU method, numpy in and out.

The same product by Larsen–McAllister's blended slices (2001), Hall–Carr–Hart's fragment-shader
passes (2003), today's render passes, compute shaders and tensor cores, each checked against an
f64 CPU reference if asked; the running sum after every pass as an array to plot.

    >>> import numpy as np, rendermm
    >>> a = np.random.rand(64, 48).astype(np.float32)
    >>> b = np.random.rand(48, 32).astype(np.float32)
    >>> c = rendermm.multiply(a, b, method="hall-blocked", check=True)
    >>> r = rendermm.multiply(a, b, method="lm", result=True)
    >>> r.passes, r.timings["compute_ms"], r.kernel
    >>> s = rendermm.slices(a, b, method="lm")     # (48, 64, 32): the sum after each pass
    >>> v = rendermm.judge(a, b, a @ b)            # the judge on a product made anywhere
    >>> v["passed"], v["closeness"]

One GPU device serves the whole process and is reused across calls; the GIL is released while
the GPU works, so calls from several threads run safely side by side.

Errors: ValueError for a request that cannot be run (shapes, dtypes, names, options, sizes),
RuntimeError for the GPU or its driver, OSError for a file, CheckFailed (a subclass of
Exception) when ``check`` is set (True or "exact": held to the exact product and the method's
pipeline; "model": the pipeline alone) and the result is outside what the judge holds it to; its
``verdict`` attribute is the verdict.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

import numpy as np

from . import _rendermm
from ._rendermm import multiply as _multiply
from ._rendermm import judge as _judge
from ._rendermm import ACCUMULATE, PRECISIONS, U8_PRODUCT_BITS, U8_SUM_BITS, CheckFailed

__all__ = [
    "multiply",
    "judge",
    "slices",
    "methods",
    "info",
    "Result",
    "Slices",
    "Method",
    "CheckFailed",
    "PRECISIONS",
    "ACCUMULATE",
    "U8_PRODUCT_BITS",
    "U8_SUM_BITS",
]

_TIMING_KEYS = (
    "setup_ms",
    "upload_ms",
    "compute_ms",
    "copy_ms",
    "readback_ms",
    "total_ms",
    "wall_ms",
    "outside_ms",
    "python_wall_ms",
    "device_ms",
    "upload_bytes",
    "readback_bytes",
    "timing",
    "gflops",
)


@dataclass(frozen=True)
class Result:
    """One multiply: C and what ran, read from the run's report (what ``rendermm multiply
    --json`` prints, kept whole in ``report``).

    Attributes:
        c: the product, float32 (float64 when an input was float64; computed in float32).
        method: the method asked.
        kernel: the kernel that ran (``cannon`` hands the product to ``cannon-tiled``, ...).
        variant: the kernel's variant or block shape, where the method has several.
        precision: the number format the sums were kept in (``f16`` where f32 blending is
            missing), as ``inputs`` and ``sums`` say in full.
        inputs: the number format A and B were read in.
        sums: the number format the sums were kept in.
        shape: (m, k, n).
        block: Hall–Carr–Hart's b, where the method has one.
        passes: render passes or slices the method ran (one block's when tiled).
        tiling: how the product was tiled, or None.
        timings: host to host — ``python_wall_ms``, this call's wall clock from the numpy
            arrays in to C out as a numpy array, and ``wall_ms``, the library's call inside it
            (the Rust ``plan::multiply``) — then its breakdown: setup/upload/compute/copy/readback
            milliseconds, ``total_ms`` (those phases summed) and ``outside_ms`` (the library's
            call outside them); device_ms (timestamp queries, where the adapter has them),
            bytes moved, gflops.
        verdict: the judge's verdict against the f64 CPU reference (``check=True``), else None;
            ``verdict["held"]`` says what the result was held to in one line.
        notes: remarks on the run (fallbacks, float64 inputs rounded to float32, ...).
        adapter, backend: the GPU that ran it ("CPU", "cpu" for the CPU methods).
        report: the full report as a dict, as ``rendermm multiply --json`` prints it
            (docs/report.schema.json describes its fields).
    """

    c: np.ndarray
    method: str
    kernel: str
    variant: Optional[str]
    precision: str
    inputs: str
    sums: str
    shape: tuple
    block: Optional[int]
    passes: int
    tiling: Optional[Dict[str, Any]]
    timings: Dict[str, Any]
    verdict: Optional[Dict[str, Any]]
    notes: List[str]
    adapter: str
    backend: str
    report: Dict[str, Any] = field(repr=False)

    @classmethod
    def _of(
        cls, c: np.ndarray, report: Dict[str, Any], python_wall_ms: Optional[float] = None
    ) -> "Result":
        checks = report.get("checks") or []
        timings = {k: report.get(k) for k in _TIMING_KEYS}
        timings["python_wall_ms"] = python_wall_ms
        return cls(
            c=c,
            method=report["method"],
            kernel=report.get("ran") or report["method"],
            variant=report.get("variant"),
            precision=report["precision"],
            inputs=report["inputs"],
            sums=report["sums"],
            shape=(report["m"], report["k"], report["n"]),
            block=report.get("block"),
            passes=report["passes"],
            tiling=report.get("tiling"),
            timings=timings,
            verdict=checks[0] if checks else None,
            notes=list(report.get("notes", [])),
            adapter=report["adapter"],
            backend=report["backend"],
            report=report,
        )


@dataclass(frozen=True)
class Slices:
    """The running sum after every pass (``slices(..., result=True)``).

    Attributes:
        s: (passes, m, n) float32 array; ``s[-1]`` is C.
        result: the run's Result (its ``c`` is ``s[-1]``).
    """

    s: np.ndarray
    result: Result


@dataclass(frozen=True)
class Method:
    """One row of the table of methods."""

    name: str
    era: str
    source: str
    summary: str
    gpu: bool
    precisions: List[str]
    #: Whether u8 takes L-M §4's widths (``u8_product_bits``, ``u8_sum_bits``).
    u8_widths: bool
    block: bool
    accumulate: bool


def multiply(
    a: np.ndarray,
    b: np.ndarray,
    method: str = "lm",
    precision: str = "f32",
    block: Optional[int] = None,
    accumulate: Optional[str] = None,
    scale_by_depth: bool = False,
    u8_product_bits: Optional[int] = None,
    u8_sum_bits: Optional[int] = None,
    variant: Optional[str] = None,
    mem_budget: Optional[str] = None,
    no_tile: bool = False,
    allow_nonfinite: bool = False,
    check: Union[bool, str] = False,
    result: bool = False,
) -> Union[np.ndarray, Result]:
    """C = a @ b by one of rendermm's methods (see ``methods()``).

    Args:
        a, b: 2-D numpy arrays, float32 (float64 is rounded to float32 and C returned as
            float64, as the command line does). A C-contiguous float32 array is read in place,
            not copied (do not write to it from another thread during the call); any other
            memory order or stride is copied to rows first, and the notes say so.
        method: a name from ``methods()``: "lm" (Larsen–McAllister 2001), "hall-blocked",
            "hall-packed" (Hall–Carr–Hart 2003), "frag-mrt", "cs-naive", "cs-tiled-16", the 5kk73
            ladder, "cannon", "dns", "cs-fast", "coop", "cpu-naive", "cpu-fast", ...
        precision: "f32", "f16" or "u8" (u8 and f16 are modes of the render-pass methods).
        block: Hall–Carr–Hart's b (products per fragment per pass; default 32).
        accumulate: Hall–Carr–Hart's "pingpong", "blend" or "copy".
        scale_by_depth: u8 only: polygon colour 1/k so the 8-bit sum cannot saturate.
        u8_product_bits, u8_sum_bits: u8 only: L-M §4's widths (8, 14, 16 and 8, 16).
        variant: cs-fast's or coop's variant, frag-mrt's block shape.
        mem_budget: bytes of device memory before the product is tiled ("512MiB", "2GB").
        no_tile: refuse a product that needs tiling instead of tiling it.
        allow_nonfinite: accept NaN and infinity in the inputs.
        check: judge C against the f64 CPU reference; raise CheckFailed if it fails. True or
            "exact" (as ``rendermm multiply --check``) holds C to the exact product and to what
            the method's pipeline computes; "model" (``--check model``) to the pipeline alone,
            however far that is from the exact product (u8 saturation and rounding, f16 sums
            that stop growing); the verdict says how far either way.
        result: return a Result (C and what ran) instead of C alone.

    Raises:
        ValueError: the request cannot be run (dtype, shape, name, option, size), or ``check``
            is none of True, False, "exact", "model".
        RuntimeError: the GPU or its driver failed.
        CheckFailed: ``check`` is set and C is outside what the judge holds it to.
    """
    started = time.perf_counter()
    # A float64 value past f32's range is refused or, allowed, taken as an infinity by the
    # native side, in the command line's words; numpy's own warning would only repeat it.
    with np.errstate(over="ignore"):
        c, report = _multiply(
            a,
            b,
            method=method,
            precision=precision,
            block=block,
            accumulate=accumulate,
            scale_by_depth=scale_by_depth,
            u8_product_bits=u8_product_bits,
            u8_sum_bits=u8_sum_bits,
            variant=variant,
            mem_budget=mem_budget,
            no_tile=no_tile,
            allow_nonfinite=allow_nonfinite,
            check=check,
        )
    if result:
        # The report stays the library's own (docs/report.schema.json); this call's wall clock
        # goes with the timings.
        python_wall_ms = (time.perf_counter() - started) * 1e3
        return Result._of(c, json.loads(report), python_wall_ms)
    return c


def judge(
    a: np.ndarray,
    b: np.ndarray,
    c: np.ndarray,
    method: Optional[str] = None,
    precision: str = "f32",
    block: Optional[int] = None,
    scale_by_depth: bool = False,
    u8_product_bits: Optional[int] = None,
    u8_sum_bits: Optional[int] = None,
    check: str = "exact",
    allow_nonfinite: bool = False,
) -> Dict[str, Any]:
    """The judge's verdict on c = a @ b made anywhere (numpy, a file, another library): what
    ``rendermm check --json`` prints, as a dict.

    Args:
        a, b, c: 2-D numpy arrays, float32 or float64 (rounded to float32, as ``multiply``
            rounds its inputs); c must be a.shape[0] × b.shape[1].
        method: the method whose arithmetic made c, which the judge holds it to; None (the
            default): f32 arithmetic, as every method computes in f32.
        precision: "f32", "f16" or "u8": the method's number format (f16 and u8 are modes of the
            render-pass methods, and need ``method``).
        block: Hall–Carr–Hart's b that c was made with (default 32).
        scale_by_depth, u8_product_bits, u8_sum_bits: u8 only: as for ``multiply``.
        check: "exact" (close to the exact product, and what the method's pipeline computes) or
            "model" (the pipeline alone); True is "exact".
        allow_nonfinite: accept float64 a or b with values past f32's range, holding c to the
            product of the inputs as given.

    Returns:
        The verdict: ``passed`` (what it was held to), ``close`` and ``closeness`` (whether c is
        close to the exact product, in words), ``model_passed`` (whether c is what its pipeline
        computes), ``held_to``, ``held`` and ``tolerance`` (what it was held to), ``rel_err``,
        ``max_abs_err``, the u8 and f16 details, ``worst`` (the element farthest from the exact
        product: row, column, c, exact), ``method``, ``precision``, ``m``, ``k``, ``n`` and
        ``notes``. A failed verdict is returned, not raised.

    Raises:
        ValueError: shapes that do not fit, a bad dtype, name, option or ``check``.
    """
    with np.errstate(over="ignore"):
        verdict = _judge(
            a,
            b,
            c,
            method=method,
            precision=precision,
            block=block,
            scale_by_depth=scale_by_depth,
            u8_product_bits=u8_product_bits,
            u8_sum_bits=u8_sum_bits,
            check=check,
            allow_nonfinite=allow_nonfinite,
        )
    return json.loads(verdict)


def slices(
    a: np.ndarray,
    b: np.ndarray,
    method: str = "lm",
    precision: str = "f32",
    block: Optional[int] = None,
    accumulate: Optional[str] = None,
    result: bool = False,
) -> Union[np.ndarray, Slices]:
    """The running sum after every pass as a (passes, m, n) float32 array; the last is C.

    L-M ("lm") adds one slice of k per pass, so k passes; Hall–Carr–Hart adds b of k per pass
    ("hall-blocked": ceil(k/b) passes; "hall-packed": ceil(ceil(k/2)/b)). What the demos draw,
    read back from the method's own accumulation texture, so a notebook can plot L-M's figure 2
    or Hall's passes. The product must fit one texture (no tiling).

    Args:
        a, b: 2-D numpy arrays as for ``multiply``.
        method: "lm", "hall-blocked" or "hall-packed".
        precision: "f32" or "f16".
        block, accumulate: Hall–Carr–Hart's b and accumulation, as for ``multiply``.
        result: return a Slices (the array and the run's Result) instead of the array alone.

    Raises:
        ValueError: as ``multiply``, or a method without passes to watch.
        RuntimeError: the GPU or its driver failed.
    """
    s, report = _rendermm.slices(
        a, b, method=method, precision=precision, block=block, accumulate=accumulate
    )
    if result:
        return Slices(s=s, result=Result._of(s[-1], json.loads(report)))
    return s


def methods() -> List[Method]:
    """The table of methods: name, era, source (paper and section), one line on what it does,
    and the options it takes."""
    return [Method(**row) for row in _rendermm.methods()]


def info() -> Dict[str, Any]:
    """The adapter (name, backend, driver, type), the features and limits that matter to the
    methods, and the driver's shader loop cap as measured: what ``rendermm info --json``
    prints."""
    return json.loads(_rendermm.info())
