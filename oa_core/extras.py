"""Optional extras: import a module an extra installs, or say which ``pip install`` adds it.

``pip install object-aligner-explorer`` gives the engine, the ``oa`` command and the
optimizer adapters; the extras add the rest (see :data:`EXTRAS`). Code that needs one
calls :func:`require`, which returns the module or raises :class:`MissingExtra`, whose
one-line message names the extra and the command to run (:func:`check` does the same
without importing anything); the ``oa`` command prints it as its error, without a
traceback.

Examples
--------
>>> require("explorer", "json").__name__  # present: the module itself
'json'
>>> try:
...     require("notebook", "no_such_module_here")
... except MissingExtra as exc:
...     print(exc.extra, "|", str(exc).split("; ")[1])
notebook | fix: pip install 'object-aligner-explorer[notebook]'
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

__all__ = ["DISTRIBUTION", "EXTRAS", "MissingExtra", "check", "install_command", "require"]

DISTRIBUTION = "object-aligner-explorer"

EXTRAS: dict[str, str] = {
    "explorer": "the Streamlit explorer (`oa explore`): streamlit, plotly, pyvis",
    "notebook": "interactive notebook widgets: ipywidgets",
    "dask": "`oa batch --dask`: dask, distributed",
    "dspy": "the DSPy / GEPA adapter: dspy",
    "inspect": "the Inspect AI scorer: inspect_ai",
    "pydantic-evals": "the pydantic-evals evaluator: pydantic_evals",
    "langsmith": "the LangSmith / openevals evaluator: langsmith, openevals",
}
"""Each extra and what it adds (the ``[project.optional-dependencies]`` of pyproject)."""


class MissingExtra(ImportError):
    """A module of an optional extra is not installed.

    Attributes
    ----------
    extra : str
        The extra that installs it (a key of :data:`EXTRAS`).
    module : str
        The module that could not be imported.
    """

    def __init__(self, extra: str, module: str) -> None:
        self.extra = extra
        self.module = module
        super().__init__(f"the {extra} extra is not installed (no module named {module}); "
                         f"fix: {install_command(extra)}", name=module)


def install_command(extra: str) -> str:
    """The command that installs ``extra``.

    >>> install_command("dspy")
    "pip install 'object-aligner-explorer[dspy]'"
    """
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; the extras are {', '.join(EXTRAS)}")
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def require(extra: str, module: str) -> ModuleType:
    """Import ``module``, which the extra ``extra`` installs.

    Raises
    ------
    MissingExtra
        When ``module`` (or the package it is in) is not installed.
    ValueError
        For an extra that does not exist.
    """
    install_command(extra)  # an unknown extra is a programming error, whatever is installed
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if module == missing or module.startswith(missing + "."):
            raise MissingExtra(extra, module) from None
        raise  # a module the package itself needs is missing: not ours to explain


def check(extra: str, *modules: str) -> None:
    """Raise :class:`MissingExtra` for the first of ``modules`` that is not installed,
    without importing any (``oa explore`` runs the explorer in a child process).

    >>> check("explorer", "json", "html")
    """
    install_command(extra)
    for module in modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a missing parent package, a module without spec
            found = False
        if not found:
            raise MissingExtra(extra, module)
