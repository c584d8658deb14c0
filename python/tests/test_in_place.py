"""A C-contiguous float32 input is read in place; every other input is copied or converted
first, says so in the notes, and gives numpy's product all the same. Either way the caller's
arrays come back unchanged, writable and no longer held."""

import sys

import numpy as np
import pytest

import rendermm
from conftest import assert_close_to_reference

METHODS = ["lm", "hall-packed", "cs-tiled-16", "cpu-naive"]


def pair(rng, m=13, k=37, n=9):
    a = rng.uniform(-1.0, 1.0, size=(m, k)).astype(np.float32)
    b = rng.uniform(-1.0, 1.0, size=(k, n)).astype(np.float32)
    return a, b


def copy_notes(r):
    return [note for note in r.notes if "copied" in note or "float64" in note]


def misaligned(x):
    """`x`'s values in a C-contiguous float32 array whose memory starts one byte past
    float32's alignment."""
    raw = np.zeros(x.size * 4 + 1, np.uint8)
    y = raw[1:].view(np.float32).reshape(x.shape)
    y[...] = x
    assert y.flags.c_contiguous and not y.flags.aligned
    return y


@pytest.mark.parametrize("method", METHODS)
def test_row_major_float32_is_read_in_place_and_gives_numpys_product(method, rng):
    a, b = pair(rng)
    keep_a, keep_b = a.copy(), b.copy()
    refs = sys.getrefcount(a), sys.getrefcount(b)
    r = rendermm.multiply(a, b, method=method, check=True, result=True)
    assert r.verdict["passed"], r.verdict
    assert copy_notes(r) == [], r.notes
    assert r.c.dtype == np.float32
    assert_close_to_reference(r.c, a, b, f"{method} in place")
    # The same values copied first give the same C, bit for bit.
    np.testing.assert_array_equal(
        r.c, rendermm.multiply(np.asfortranarray(a), np.asfortranarray(b), method=method)
    )
    # Unchanged, still writable, and no reference (numpy borrow) left behind.
    np.testing.assert_array_equal(a, keep_a)
    np.testing.assert_array_equal(b, keep_b)
    assert (sys.getrefcount(a), sys.getrefcount(b)) == refs
    assert a.flags.writeable and b.flags.writeable
    a[0, 0] = 5.0
    b[...] = 0.0
    assert a[0, 0] == 5.0 and not b.any()


def test_one_array_as_both_operands_and_a_read_only_array_are_read_in_place(rng):
    a, _ = pair(rng, 17, 17, 17)
    r = rendermm.multiply(a, a, result=True)
    assert copy_notes(r) == [], r.notes
    assert_close_to_reference(r.c, a, a, "a @ a")
    frozen = a.copy()
    frozen.flags.writeable = False
    r = rendermm.multiply(frozen, a, result=True)
    assert copy_notes(r) == [], r.notes
    np.testing.assert_array_equal(r.c, rendermm.multiply(a, a))


@pytest.mark.parametrize(
    "layout, note",
    [
        (np.asfortranarray, "copied into row-major order (it is Fortran-ordered)"),
        (lambda x: np.repeat(x, 2, axis=1)[:, ::2], "copied into row-major order (it is a strided view)"),
        (misaligned, "copied into aligned memory"),
        (lambda x: x.astype(np.float64), "float64"),
    ],
    ids=["fortran", "strided", "misaligned", "float64"],
)
@pytest.mark.parametrize("method", ["lm", "cpu-naive"])
def test_any_other_input_is_copied_says_so_and_gives_numpys_product(method, layout, note, rng):
    a, b = pair(rng)
    for which in ("a", "b", "both"):
        x = layout(a) if which in ("a", "both") else a
        y = layout(b) if which in ("b", "both") else b
        np.testing.assert_array_equal(x, a)
        np.testing.assert_array_equal(y, b)
        keep_x, keep_y = x.copy(), y.copy()
        r = rendermm.multiply(x, y, method=method, result=True)
        assert_close_to_reference(r.c, a, b, f"{method}, {which} {note}")
        wide = note == "float64"
        assert r.c.dtype == (np.float64 if wide else np.float32)
        if wide:
            # float64 is converted, which its one note says; nothing is said to be copied.
            assert any("float64" in n for n in r.notes), r.notes
            assert not any("copied" in n for n in r.notes), r.notes
        else:
            named = [n.split(" ", 1)[0] for n in copy_notes(r)]
            assert named == {"a": ["a"], "b": ["b"], "both": ["a", "b"]}[which], r.notes
            assert all(note in n for n in copy_notes(r)), r.notes
        np.testing.assert_array_equal(x, keep_x)
        np.testing.assert_array_equal(y, keep_y)


def test_a_failed_call_lets_go_of_the_array_it_read(rng):
    a, _ = pair(rng)
    refs = sys.getrefcount(a)
    with pytest.raises(ValueError):
        rendermm.multiply(a, np.zeros((5, 3, 2), np.float32))
    with pytest.raises(ValueError):
        rendermm.multiply(a, np.zeros((3, 2), np.float32))  # shapes that do not fit
    assert sys.getrefcount(a) == refs
    a[...] = 1.0
    assert (a == 1.0).all()


def test_slices_and_judge_read_row_major_float32_too(rng):
    a, b = pair(rng, 6, 40, 5)
    s = rendermm.slices(a, b, method="hall-blocked", block=8)
    assert_close_to_reference(s[-1], a, b, "slices' last pass")
    v = rendermm.judge(a, b, (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32))
    assert v["passed"], v
