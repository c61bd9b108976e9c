"""The teaching notebooks in notebooks/ run, offline, on a local kernel, and are kept
without outputs.

The kernel is this interpreter (the project's venv) started by ipykernel from a
kernelspec written to a temporary folder (tests/notebook_kernel.py): nothing is
registered with Jupyter. Each notebook shows its HTML views, with no error anywhere.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from tests.notebook_kernel import NOTEBOOKS, execute

# HTML views (result objects displayed) each notebook shows at least
VIEWS = {"01_referential_alignment.ipynb": 3, "02_schema_weights.ipynb": 1,
         "03_evaluating_a_run.ipynb": 4}


@pytest.fixture(scope="module")
def executed() -> dict[str, nbformat.NotebookNode]:
    """Every notebook, executed (once a session)."""
    return {path.name: execute(path) for path in NOTEBOOKS}


def test_there_are_three_notebooks() -> None:
    assert [p.name for p in NOTEBOOKS] == ["01_referential_alignment.ipynb",
                                           "02_schema_weights.ipynb",
                                           "03_evaluating_a_run.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_notebooks_have_no_outputs(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name}: a cell has outputs: clear them"
            assert cell.execution_count is None, f"{path.name}: clear the execution counts"
    assert "widgets" not in notebook.metadata, f"{path.name}: widget state is committed"


def _outputs(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs]


@pytest.mark.parametrize("name", [p.name for p in NOTEBOOKS])
def test_notebook_runs_and_shows_html_views(executed: dict[str, nbformat.NotebookNode],
                                            name: str) -> None:
    notebook = executed[name]
    outputs = _outputs(notebook)
    assert not [o for o in outputs if o.output_type == "error"]
    assert not [o for o in outputs if o.output_type == "stream" and o.name == "stderr"]
    views = [o.data["text/html"] for o in outputs
             if "text/html" in o.get("data", {}) and 'class="oa-nb"' in o.data["text/html"]]
    assert len(views) >= VIEWS[name], f"{name}: the results should display as HTML views"
    for view in views:
        assert "<script" not in view and "http://" not in view.replace(
            "http://www.w3.org/2000/svg", "") and "https://" not in view


def test_running_example_numbers(executed: dict[str, nbformat.NotebookNode]) -> None:
    """The first notebook shows the paper's score and that wl_mode none follows the order."""
    texts = [o.get("text", "") for o in _outputs(executed["01_referential_alignment.ipynb"])]
    assert "referential alignment: 0.7679" in "".join(texts)
    html = [o.data["text/html"] for o in _outputs(executed["01_referential_alignment.ipynb"])
            if "text/html" in o.get("data", {})]
    table = next(h for h in html if "Dave 4 paired with" in h)
    assert table.count("tie_break") == 2 and table.count("none") == 2


def test_widgets_are_interactive(executed: dict[str, nbformat.NotebookNode]) -> None:
    """With ipywidgets installed the kernel sends widget views, not the static stand-in."""
    outputs = _outputs(executed["01_referential_alignment.ipynb"])
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {})
               for o in outputs)
