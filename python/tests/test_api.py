"""What editors and help() show: the stubs match the native functions, every public name has a
docstring, and the package says it is typed."""

import ast
import inspect
from pathlib import Path

import rendermm
from rendermm import _rendermm

PACKAGE = Path(rendermm.__file__).parent


def stub_functions():
    tree = ast.parse((PACKAGE / "_rendermm.pyi").read_text())
    return {
        f.name: [a.arg for a in f.args.args]
        for f in tree.body
        if isinstance(f, ast.FunctionDef)
    }


def test_the_stubs_name_the_native_functions_parameters():
    stubs = stub_functions()
    native = {n for n in dir(_rendermm) if callable(getattr(_rendermm, n)) and not n[0].isupper()}
    assert set(stubs) == native, (set(stubs), native)
    for name, params in stubs.items():
        got = list(inspect.signature(getattr(_rendermm, name)).parameters)
        assert params == got, f"{name}: the stub has {params}, the module {got}"


def test_the_package_functions_pass_every_native_option():
    for name in ("multiply", "slices"):
        wrapper = list(inspect.signature(getattr(rendermm, name)).parameters)
        native = list(inspect.signature(getattr(_rendermm, name)).parameters)
        assert wrapper == native + ["result"], (name, wrapper, native)


def test_public_names_have_docstrings_and_the_package_is_typed():
    for name in rendermm.__all__:
        obj = getattr(rendermm, name)
        if callable(obj):
            assert (obj.__doc__ or "").strip(), f"rendermm.{name} has no docstring"
    for name in ("multiply", "slices", "methods", "info"):
        assert (getattr(_rendermm, name).__doc__ or "").strip(), name
    assert (PACKAGE / "py.typed").exists()
    assert "method" in inspect.getdoc(rendermm.multiply) and "Raises" in inspect.getdoc(rendermm.multiply)
