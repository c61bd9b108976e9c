"""Referential indexing and WL graph construction in the Rust engine.

On the people graphs of :mod:`benchmarks.alignment_speed` (``make_pair(n)``), CPU
seconds of one process (one core), best of ``--repeats``:

``index``
    the engine's index of the gold and the candidate
    (``oa_core.refer_native.refer_plan(schema).index``);
``graphs``
    both sides' WL graphs for every resolution group, before any scope is resolved,
    in tie-break and blend seeding (what WL refines; ``NativeIndex.graph``);
``score()``
    :func:`oa_core.score` of the pair (all of it, checks included).

Run from the repository root::

    python -m benchmarks.refer_speed --sizes 200 1000
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import oa_core
from benchmarks.alignment_speed import SCHEMA, make_pair
from oa_core.refer_native import refer_plan, resolution
from oa_core.schema import Schema

__all__ = ["main"]

_LIMITS = oa_core.Limits()


def _cpu(action: Callable[[], Any], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        action()
        best = min(best, time.process_time() - start)
    return best


def _indexes(schema: Schema, gold: Any, candidate: Any) -> list[Any]:
    plan = refer_plan(schema)
    return [plan.index(gold, _LIMITS), plan.index(candidate, _LIMITS)]


def _graphs(schema: Schema, gold: Any, candidate: Any) -> None:
    indexes = _indexes(schema, gold, candidate)
    groups = resolution(schema)[0]
    for group in groups:
        for blend in (False, True):
            offset = 0
            for side, index in zip(("gold", "candidate"), indexes, strict=True):
                vertices, _, _ = index.graph(side, sorted(group), {}, blend, offset)
                offset += len(vertices)


def main(argv: list[str] | None = None) -> int:
    """Print the table (see the module)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    schema = Schema.parse(SCHEMA)
    print(f"load average {os.getloadavg()[0]:.2f}; CPU seconds, best of {args.repeats}")
    print(f"{'people':>7} {'index':>9} {'graphs':>9} {'score()':>9}")
    for n in args.sizes:
        pair = make_pair(n, seed=1)
        index = _cpu(partial(_indexes, schema, *pair), args.repeats)
        graphs = _cpu(partial(_graphs, schema, *pair), args.repeats) - index
        whole = _cpu(partial(oa_core.score, *pair, schema), 1)
        print(f"{n:>7} {index:>9.4f} {graphs:>9.4f} {whole:>9.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
