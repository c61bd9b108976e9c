"""Which Rust engine is installed: ``oa_core._engine``, compiled by maturin from
``crates/oa-engine`` whenever the package is installed, scores everything; a
throughput figure should say which version ran.

>>> from oa_core.build import describe_build
>>> describe_build().startswith("rust engine; oa-engine ")
True
"""

from __future__ import annotations

from ._engine import engine_version

__all__ = ["describe_build"]


def describe_build() -> str:
    """One line for ``oa --version`` and a benchmark's header.

    >>> "oa-engine" in describe_build()
    True
    """
    return f"rust engine; oa-engine {engine_version()}"
