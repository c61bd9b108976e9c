"""Referential indexing and WL graph construction, Python against Rust.

On the people graphs of :mod:`benchmarks.alignment_speed` (``make_pair(n)``), CPU
seconds of one process (one core), best of ``--repeats``:

``index``
    :func:`oa_core.referential.index_document` of the gold and the candidate;
``graphs``
    ``_build_graph`` of both sides for every resolution group, before any scope is
    resolved, in tie-break and blend seeding (what WL refines);
``score()``
    :func:`oa_core.score` of the pair (whatever else runs in Rust or Python under
    each engine, the same bits: checked first).

Each figure is given under ``OA_ENGINE=python`` and ``OA_ENGINE=rust``. Run from the
repository root::

    python -m benchmarks.refer_speed --sizes 200 1000
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import oa_core
from benchmarks.alignment_speed import SCHEMA, make_pair
from oa_core.referential import _build_graph, _resolution_groups, index_document
from oa_core.schema import Schema
from oa_core.wl import WLEdge, WLVertex

__all__ = ["main"]


def _cpu(action: Callable[[], Any], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        action()
        best = min(best, time.process_time() - start)
    return best


def _graphs(schema: Schema, gold: Any, candidate: Any) -> None:
    indexes = index_document(gold, schema), index_document(candidate, schema)
    groups, _, _ = _resolution_groups(schema)
    for group in groups:
        for blend in (False, True):
            vertices: list[WLVertex] = []
            edges: list[WLEdge] = []
            seeds: list[str] = []
            for side, index in zip(("gold", "candidate"), indexes, strict=True):
                _build_graph(index, side, frozenset(group), {}, set(), vertices, edges,
                             seeds, blend=blend, describe=False)


def _row(schema: Schema, gold: Any, candidate: Any, repeats: int
         ) -> tuple[float, float, float]:
    """The index, graphs and score() seconds under the selected engine."""
    index = _cpu(lambda: (index_document(gold, schema), index_document(candidate, schema)),
                 repeats)
    graphs = _cpu(lambda: _graphs(schema, gold, candidate), repeats) - index
    return index, graphs, _cpu(lambda: oa_core.score(gold, candidate, schema), 1)


def main(argv: list[str] | None = None) -> int:
    """Print the table (see the module)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    schema = Schema.parse(SCHEMA)
    before = os.environ.get("OA_ENGINE")
    print(f"load average {os.getloadavg()[0]:.2f}; CPU seconds, best of {args.repeats}")
    print(f"{'people':>7} {'engine':>7} {'index':>9} {'graphs':>9} {'score()':>9}")
    try:
        for n in args.sizes:
            gold, candidate = make_pair(n, seed=1)
            scores = set()
            for engine in ("python", "rust"):
                os.environ["OA_ENGINE"] = engine
                scores.add(oa_core.score(gold, candidate, schema).hex())
            assert len(scores) == 1, scores
            for engine in ("python", "rust"):
                os.environ["OA_ENGINE"] = engine
                index, graphs, whole = _row(schema, gold, candidate, args.repeats)
                print(f"{n:>7} {engine:>7} {index:>9.4f} {graphs:>9.4f} {whole:>9.3f}")
    finally:
        if before is None:
            os.environ.pop("OA_ENGINE", None)
        else:
            os.environ["OA_ENGINE"] = before
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
