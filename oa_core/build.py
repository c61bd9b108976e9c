"""Which engine scores, and which Rust extension is installed beside it.

The scoring rules are moving from Python to the Rust crate ``crates/oa-engine``,
compiled by maturin into ``oa_core._engine`` whenever the package is installed.
``OA_ENGINE`` picks the engine while both exist (``rust``, the default, or
``python``, kept as the parity oracle until its copies of the rules are deleted); a
throughput figure should say which ran.

>>> from oa_core.build import describe_build
>>> describe_build().startswith(("python engine", "rust engine"))
True
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from ._engine import engine_version

__all__ = ["ENGINES", "describe_build", "selected_engine", "using_engine"]

ENGINES = ("python", "rust")


def selected_engine() -> str:
    """The engine named by ``OA_ENGINE`` (``rust`` when unset).

    Raises
    ------
    ValueError
        When ``OA_ENGINE`` names no engine.
    """
    name = os.environ.get("OA_ENGINE", "rust").strip().lower() or "rust"
    if name not in ENGINES:
        raise ValueError(f"OA_ENGINE={name!r} names no engine; use one of {', '.join(ENGINES)}")
    return name


def describe_build() -> str:
    """One line for ``oa --version`` and a benchmark's header.

    >>> "oa-engine" in describe_build()
    True
    """
    return f"{selected_engine()} engine; oa-engine {engine_version()}"


@contextmanager
def using_engine(name: str) -> Iterator[None]:
    """Set ``OA_ENGINE`` to ``name`` while the block runs, then restore it (benchmarks
    and parity tests putting the engines side by side).

    >>> with using_engine("rust"):
    ...     selected_engine()
    'rust'
    """
    if name not in ENGINES:
        raise ValueError(f"{name!r} names no engine; use one of {', '.join(ENGINES)}")
    before = os.environ.get("OA_ENGINE")
    os.environ["OA_ENGINE"] = name
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("OA_ENGINE", None)
        else:
            os.environ["OA_ENGINE"] = before
