"""The native half of rendermm's binding (built by maturin from python/src/lib.rs).

Use the functions of the ``rendermm`` package, which wrap these: they return C alone or a
``Result``, and the table of methods as ``Method`` rows.
"""

from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

PRECISIONS: List[str]
"""The number formats: "u8", "f16", "f32"."""
ACCUMULATE: List[str]
"""Hall–Carr–Hart's ways to carry the running sum: "pingpong", "blend", "copy"."""
U8_PRODUCT_BITS: List[int]
"""The widths the 8-bit pipeline's fragment value may be kept at (L-M §4)."""
U8_SUM_BITS: List[int]
"""The widths of the 8-bit pipeline's running sum (L-M §4)."""

class CheckFailed(Exception):
    """The result failed its check against the f64 CPU reference.

    ``verdict`` is the judge's verdict (a dict: passed, held, tolerance, rel_err, ...) and
    ``report`` the run's whole report."""

    verdict: Dict[str, Any]
    report: Dict[str, Any]

def multiply(
    a: npt.NDArray[Any],
    b: npt.NDArray[Any],
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
    check: Union[bool, str, None] = None,
) -> Tuple[npt.NDArray[Any], str]:
    """C = a @ b by ``method`` and the run's report as JSON (``rendermm multiply --json``'s,
    with Hall's ``block``); ``check``: True or "exact", "model", or False/None for none.
    Raises ValueError, RuntimeError or CheckFailed."""
    ...

def judge(
    a: npt.NDArray[Any],
    b: npt.NDArray[Any],
    c: npt.NDArray[Any],
    method: Optional[str] = None,
    precision: str = "f32",
    block: Optional[int] = None,
    scale_by_depth: bool = False,
    u8_product_bits: Optional[int] = None,
    u8_sum_bits: Optional[int] = None,
    check: Union[bool, str, None] = None,
    allow_nonfinite: bool = False,
) -> str:
    """The judge's verdict on c = a @ b as JSON (``rendermm check --json``'s); ``check``:
    "exact" (the default, also True) or "model". Raises ValueError."""
    ...

def slices(
    a: npt.NDArray[Any],
    b: npt.NDArray[Any],
    method: str = "lm",
    precision: str = "f32",
    block: Optional[int] = None,
    accumulate: Optional[str] = None,
) -> Tuple[npt.NDArray[np.float32], str]:
    """The running sum after every pass, (passes, m, n), and the run's report as JSON."""
    ...

def methods() -> List[Dict[str, Any]]:
    """The table of methods, one dict per row."""
    ...

def info() -> str:
    """The adapter, features, limits and loop cap as JSON (``rendermm info --json``)."""
    ...
