"""Optional compiled build of the engine's hot modules (mypyc).

A plain ``pip install .`` installs pure Python and needs no compiler. With
``OA_COMPILE=1`` the modules listed under ``[tool.object-aligner] compiled`` in
``pyproject.toml`` are compiled to C extensions by mypyc, which needs mypy and a C
compiler in the build environment::

    pip install 'mypy>=2.4' wheel
    OA_COMPILE=1 pip install --no-build-isolation .

The compiled modules give the same score bits as the pure ones
(``tests/test_compiled.py`` builds them and compares). Do not combine it with an
editable install (``-e``): the extensions would sit beside the sources and shadow
every later edit of them.
"""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent


def compiled_modules() -> list[str]:
    """The source files ``OA_COMPILE=1`` compiles, from ``pyproject.toml``."""
    with (ROOT / "pyproject.toml").open("rb") as handle:
        config = tomllib.load(handle)
    return list(config["tool"]["object-aligner"]["compiled"])


def extensions() -> list:
    if os.environ.get("OA_COMPILE", "") not in {"1", "true", "yes"}:
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        sys.exit("OA_COMPILE=1 needs mypy in the build environment: run "
                 "pip install 'mypy>=2.4' wheel and then "
                 "OA_COMPILE=1 pip install --no-build-isolation .")
    return mypycify(compiled_modules(), opt_level="3", group_name="oa_core")


setup(ext_modules=extensions())
