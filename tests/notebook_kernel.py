"""Run a notebook on a local kernel for the tests: this interpreter (the project's venv)
started by ipykernel from a kernelspec written to a temporary folder, so nothing is
registered with Jupyter and no network is used."""

from __future__ import annotations

import copy
import functools
import json
import sys
import tempfile
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
KERNEL = "oa-notebook-test"
# generous: a cell waits for what it computes, never for a fixed time (a busy machine)
CELL_TIMEOUT = 300


def kernel_manager(folder: Path) -> KernelManager:
    """A kernel manager for this interpreter's ipykernel, from a kernelspec in ``folder``."""
    spec = folder / "kernels" / KERNEL
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Object Aligner tests", "language": "python"}))
    specs = KernelSpecManager(kernel_dirs=[str(folder / "kernels")])
    return KernelManager(kernel_name=KERNEL, kernel_spec_manager=specs)


def execute(path: Path) -> nbformat.NotebookNode:
    """``path`` executed in notebooks/ (as a user opens it): a copy of the executed
    notebook. Each notebook runs once per test session (the notebook tests and the
    browser tests read the same run)."""
    return copy.deepcopy(_executed(path))


@functools.cache
def _executed(path: Path) -> nbformat.NotebookNode:
    notebook = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as folder:
        client = NotebookClient(notebook, km=kernel_manager(Path(folder)),
                                timeout=CELL_TIMEOUT, allow_errors=False,
                                resources={"metadata": {"path": str(path.parent)}})
        client.execute()
    return notebook
