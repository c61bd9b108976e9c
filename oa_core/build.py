"""Which of the engine's modules run compiled.

``OA_COMPILE=1 pip install --no-build-isolation .`` compiles the engine's hot modules
with mypyc (see ``setup.py``); a plain install runs pure Python. Both give the same
score bits; only the speed differs, so a throughput figure should say which ran.

>>> from oa_core.build import compiled_modules
>>> isinstance(compiled_modules(), tuple)
True
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import pkgutil
from pathlib import Path

__all__ = ["compiled_modules", "describe_build"]

_PACKAGE = Path(__file__).resolve().parent


def compiled_modules() -> tuple[str, ...]:
    """Names of the ``oa_core`` modules that load from a compiled extension.

    Each module is located, not imported. Empty for a pure-Python install.
    """
    compiled = []
    for info in pkgutil.iter_modules([str(_PACKAGE)]):
        spec = importlib.util.find_spec(f"oa_core.{info.name}")
        origin = spec.origin if spec is not None else None
        if origin and origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
            compiled.append(info.name)
    return tuple(sorted(compiled))


def describe_build() -> str:
    """One line for a benchmark's header: pure Python or which modules are compiled.

    >>> describe_build().startswith(("pure Python", "compiled (mypyc)"))
    True
    """
    compiled = compiled_modules()
    if not compiled:
        return "pure Python"
    return f"compiled (mypyc): {', '.join(compiled)}"
