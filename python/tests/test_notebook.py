"""The notebook of the eras runs from top to bottom with the binding, so it cannot rot."""

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "eras.ipynb"


LABEL_CHECK = """
import matplotlib.pyplot as _plt

_show = _plt.show


def _labelled_show(*args, **kwargs):
    fig = _plt.gcf()
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            assert ax.get_ylabel() or ax.get_xlabel(), "a colour bar without a label"
            continue
        assert ax.get_title() or fig._suptitle, "a plot without a title"
        assert ax.get_xlabel() and ax.get_ylabel(), f"unlabelled axes in {ax.get_title()!r}"
    return _show(*args, **kwargs)


_plt.show = _labelled_show
"""


def test_eras_notebook_runs_and_draws_its_figures(tmp_path):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # Every picture of the project is labelled inside the image: each figure the notebook shows
    # must have a title on every plot, both axes labelled, and a labelled colour bar.
    nb.cells.insert(0, nbformat.v4.new_code_cell(LABEL_CHECK))
    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    errors = [o for o in outputs if o.output_type == "error"]
    assert not errors, errors
    pictures = [o for o in outputs if "image/png" in o.get("data", {})]
    # L-M's slices, Hall's passes, the precision ladder, the speed comparison.
    assert len(pictures) == 4, f"{len(pictures)} figures drawn"
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "equal to the 8-bit pipeline's model" in text
